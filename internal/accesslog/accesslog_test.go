package accesslog

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// gate is a destination whose writes wait until the test opens it; it
// keeps what it was given.
type gate struct {
	entered chan struct{} // told when a write begins
	open    chan struct{} // closed to let writes through
	fail    error         // returned by the first write when set

	mu     sync.Mutex // guards buf and failed
	buf    bytes.Buffer
	failed bool
}

func newGate() *gate { return &gate{entered: make(chan struct{}, 1), open: make(chan struct{})} }

func (g *gate) Write(b []byte) (int, error) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fail != nil && !g.failed {
		g.failed = true
		return 0, g.fail
	}
	return g.buf.Write(b)
}

// lines parses what the gate was given.
func (g *gate) lines(t *testing.T) []map[string]any {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(g.buf.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func newLogger(t *testing.T, g *gate, opts Options) (*Logger, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	opts.Registerer = reg
	l, err := New(g, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-g.open:
		default:
			close(g.open)
		}
		l.Close(context.Background())
	})
	return l, reg
}

func entry(i int) *Entry {
	e := hit()
	e.RequestID = "r-" + strconv.Itoa(i)
	return &e
}

func dropped(t *testing.T, l *Logger) int {
	t.Helper()
	var m dto.Metric
	if err := l.dropped.Write(&m); err != nil {
		t.Fatal(err)
	}
	return int(m.GetCounter().GetValue())
}

// TestBlockedDestination: while the destination takes nothing, Log still
// returns for every line; what does not fit is dropped and counted, and the
// first line queued afterwards says how many.
func TestBlockedDestination(t *testing.T) {
	g := newGate()
	l, reg := newLogger(t, g, Options{MaxPending: 8 << 10})
	const total = 400 // about 100 KiB of lines, far more than the queue holds
	i := 0
	// Enough lines to wake the writer, which then blocks in its write.
	for ; i < 20; i++ {
		l.Log(entry(i))
	}
	<-g.entered
	for ; i < total; i++ {
		l.Log(entry(i)) // returns although the destination is stuck
	}
	lost := dropped(t, l)
	if lost == 0 || lost >= total {
		t.Fatalf("%d of %d lines dropped while the destination was blocked; want some but not all", lost, total)
	}
	if mf, err := reg.Gather(); err != nil || len(mf) != 1 || mf[0].GetName() != "avaedge_access_log_dropped_total" ||
		mf[0].Metric[0].GetCounter().GetValue() != float64(lost) {
		t.Fatalf("registry has %v (%v); want avaedge_access_log_dropped_total %d", mf, err, lost)
	}
	close(g.open)
	// The first line queued once the writer has taken the queue says the
	// drops (the writer is woken by the queue it left behind).
	for {
		before := dropped(t, l)
		l.Log(entry(i))
		i++
		if dropped(t, l) == before {
			break
		}
	}
	lost = dropped(t, l)
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := g.lines(t)
	if len(got)+lost != i {
		t.Fatalf("%d lines written and %d dropped; want %d in all", len(got), lost, i)
	}
	said := 0
	for _, m := range got {
		if d, ok := m["dropped"].(float64); ok {
			said += int(d)
			if m["request_id"] != "r-"+strconv.Itoa(i-1) {
				t.Errorf("line %v says the drops; want the first line after them", m["request_id"])
			}
		}
	}
	if said != lost {
		t.Fatalf("lines say %d dropped; the metric %d", said, lost)
	}
}

// TestCloseWrites: lines still queued at Close are written, in order,
// without waiting for the next flush; lines after Close are counted.
func TestCloseWrites(t *testing.T) {
	g := newGate()
	close(g.open)
	l, _ := newLogger(t, g, Options{FlushEvery: 1 << 62}) // no timed flush
	for i := range 50 {
		l.Log(entry(i))
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := g.lines(t)
	if len(got) != 50 {
		t.Fatalf("%d lines written at Close; want 50", len(got))
	}
	for i, m := range got {
		if m["request_id"] != "r-"+strconv.Itoa(i) || m["msg"] != "request" {
			t.Fatalf("line %d: %v", i, m)
		}
	}
	l.Log(entry(50))
	if n := dropped(t, l); n != 1 {
		t.Fatalf("a line after Close: %d dropped; want 1", n)
	}
}

// TestCloseBounded: Close returns when its context ends although the
// destination never takes the last lines.
func TestCloseBounded(t *testing.T) {
	g := newGate()
	l, _ := newLogger(t, g, Options{})
	l.Log(entry(0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close with a blocked destination and an ended context: %v; want context.Canceled", err)
	}
}

// TestDropsSaidAtClose: drops with no line after them are said in a last
// line of their own.
func TestDropsSaidAtClose(t *testing.T) {
	g := newGate()
	l, _ := newLogger(t, g, Options{MaxPending: 4 << 10})
	i := 0
	for ; i < 10; i++ {
		l.Log(entry(i))
	}
	<-g.entered
	for ; dropped(t, l) == 0; i++ {
		l.Log(entry(i))
	}
	close(g.open)
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := g.lines(t)
	last := got[len(got)-1]
	if last["msg"] != "access log lines dropped" || last["dropped"] != 1.0 || last["level"] != "WARN" {
		t.Fatalf("last line %v; want the drop said", last)
	}
}

// TestWriteError: lines a failed write lost are counted and said.
func TestWriteError(t *testing.T) {
	g := newGate()
	g.fail = errors.New("disk full")
	close(g.open)
	l, _ := newLogger(t, g, Options{FlushEvery: 1 << 62})
	for i := range 3 {
		l.Log(entry(i))
	}
	l.write(nil) // the writer's write, at once: it fails
	if n := dropped(t, l); n != 3 {
		t.Fatalf("a failed write of 3 lines: %d dropped; want 3", n)
	}
	l.Log(entry(3))
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := g.lines(t)
	if len(got) != 1 || got[0]["dropped"] != 3.0 {
		t.Fatalf("after the failed write: %v; want one line saying 3 dropped", got)
	}
}

// TestTimedFlush: a lone line is written without Close.
func TestTimedFlush(t *testing.T) {
	g := newGate()
	close(g.open)
	l, _ := newLogger(t, g, Options{FlushEvery: time.Millisecond})
	l.Log(entry(0))
	<-g.entered
}

func BenchmarkLog(b *testing.B) {
	l, err := New(discard{}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close(context.Background())
	e := hit()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Log(&e)
		}
	})
}
