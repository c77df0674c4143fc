// Package accesslog writes the edge's access log: one JSON line per request,
// encoded by appending into a pooled buffer (no allocation per field) and
// handed to a background writer through a bounded queue, so a request never
// waits on the log's destination (a slow disk, a full pipe, a stopped
// journald). Lines that do not fit in the queue are dropped, counted in
// avaedge_access_log_dropped_total, and said in the next line queued
// ("dropped":N). Close writes what is queued.
package accesslog

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Options configures a Logger. Zero values mean the documented defaults.
type Options struct {
	// MaxPending bounds the bytes of lines queued and not yet handed to the
	// destination; a line that would go over it is dropped. The line being
	// written takes as much again at most. Zero means 1 MiB (about 3,000
	// lines).
	MaxPending int
	// FlushEvery is the longest a line waits in the queue when fewer than
	// MaxPending/4 bytes (64 KiB at most) are queued; more are written at
	// once. Zero means 100ms.
	FlushEvery time.Duration
	// Registerer receives avaedge_access_log_dropped_total. Nil registers
	// none.
	Registerer prometheus.Registerer
}

// Logger queues access log lines for one background writer. Its methods are
// safe for concurrent use.
type Logger struct {
	out     io.Writer
	max     int // Options.MaxPending
	flushAt int // queued bytes that wake the writer before FlushEvery
	every   time.Duration
	dropped prometheus.Counter

	// mu guards pending, unsaid and closed.
	mu      sync.Mutex
	pending []byte // whole lines, queued
	unsaid  uint64 // lines dropped since the last line queued
	closed  bool

	kick chan struct{} // wakes the writer; one wake-up is enough
	stop chan struct{} // closed by Close
	done chan struct{} // closed when the writer has written everything
}

// New starts a Logger writing to out; Close stops it. out is written from
// one goroutine, whole lines at a time.
func New(out io.Writer, opts Options) (*Logger, error) {
	if opts.MaxPending <= 0 {
		opts.MaxPending = 1 << 20
	}
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = 100 * time.Millisecond
	}
	l := &Logger{
		out:     out,
		max:     opts.MaxPending,
		flushAt: min(opts.MaxPending/4, 64<<10),
		every:   opts.FlushEvery,
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "avaedge", Name: "access_log_dropped_total",
			Help: "Access log lines dropped because the log's destination did not take them fast enough (or failed).",
		}),
		kick: make(chan struct{}, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	if opts.Registerer != nil {
		if err := opts.Registerer.Register(l.dropped); err != nil {
			return nil, fmt.Errorf("access log metrics: %w", err)
		}
	}
	// Both buffers at their largest from the start (the queue never holds
	// more than max bytes), so it never grows; pages not yet written are not
	// resident.
	l.pending = make([]byte, 0, l.max)
	go l.run(make([]byte, 0, l.max))
	return l, nil
}

// lines are the encoding buffers, reused.
var lines = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// Log queues e's line, or drops it when the queue is full or the Logger is
// closed. It never waits for the destination.
func (l *Logger) Log(e *Entry) {
	bp := lines.Get().(*[]byte)
	b := e.appendTo((*bp)[:0])
	l.enqueue(b)
	if cap(b) <= maxKept {
		*bp = b
		lines.Put(bp)
	}
}

// maxKept is the largest encoding buffer kept for reuse: one line with a
// long path does not stay in memory.
const maxKept = 16 << 10

// enqueue queues line, a JSON object without its closing brace.
func (l *Logger) enqueue(line []byte) {
	l.mu.Lock()
	// ,"dropped":N}\n is 33 bytes at most.
	if l.closed || len(l.pending)+len(line)+33 > l.max {
		l.unsaid++
		l.mu.Unlock()
		l.dropped.Inc()
		return
	}
	l.pending = append(l.pending, line...)
	if l.unsaid > 0 {
		l.pending = append(l.pending, `,"dropped":`...)
		l.pending = strconv.AppendUint(l.pending, l.unsaid, 10)
		l.unsaid = 0
	}
	l.pending = append(l.pending, '}', '\n')
	wake := len(l.pending) >= l.flushAt
	l.mu.Unlock()
	if wake {
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
}

// run is the writer: it swaps the queue for spare and writes what it took,
// when woken, every FlushEvery, and once more when the Logger is closed.
func (l *Logger) run(spare []byte) {
	defer close(l.done)
	t := time.NewTicker(l.every)
	defer t.Stop()
	for {
		select {
		case <-l.kick:
		case <-t.C:
		case <-l.stop:
			l.mu.Lock()
			if l.unsaid > 0 {
				// No line came after the last drops to say so.
				l.pending = fmt.Appendf(l.pending, `{"time":%q,"level":"WARN","msg":"access log lines dropped","dropped":%d}`+"\n",
					time.Now().Format(time.RFC3339Nano), l.unsaid)
				l.unsaid = 0
			}
			l.mu.Unlock()
			l.write(spare)
			return
		}
		spare = l.write(spare)
	}
}

// write writes the queue, leaving spare in its place, and returns the
// written buffer emptied, the next spare.
func (l *Logger) write(spare []byte) []byte {
	l.mu.Lock()
	b := l.pending
	l.pending = spare
	l.mu.Unlock()
	if len(b) == 0 {
		return b
	}
	n, err := l.out.Write(b)
	if err != nil {
		// The lines not written in full are lost: count them, and say so in
		// the next line.
		lost := bytes.Count(b[min(n, len(b)):], []byte{'\n'})
		l.mu.Lock()
		l.unsaid += uint64(lost)
		l.mu.Unlock()
		l.dropped.Add(float64(lost))
	}
	return b[:0]
}

// Close stops queueing lines (later ones are dropped and counted) and waits
// until the queued ones are written, or ctx is done.
func (l *Logger) Close(ctx context.Context) error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.stop)
	}
	l.mu.Unlock()
	select {
	case <-l.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("access log not written in full: %w", ctx.Err())
	}
}

// CloseWithin is Close bounded by d.
func (l *Logger) CloseWithin(d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return l.Close(ctx)
}
