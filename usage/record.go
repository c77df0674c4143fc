package usage

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
)

// shardCount buffers take records; a request picks one by its id, so
// concurrent requests rarely share a lock.
const shardCount = 32

// chunkLen is how many records a buffer holds before it is handed whole to
// the flusher and replaced by an empty one. Buffers are small on purpose:
// records hold pointers, and the garbage collector scans every buffer on
// each cycle.
const chunkLen = 128

// maxQueuedChunks bounds the full buffers waiting for the flusher; past it
// a full buffer is dropped (its records counted in records_dropped_total),
// so memory stays bounded whatever the load.
const maxQueuedChunks = 256

// shard is one buffer of records.
type shard struct {
	mu   sync.Mutex // guards recs
	recs []Record
	_    [40]byte // keeps neighbours' locks off this cache line
}

// Record buffers one request's record. It does no I/O and, in the steady
// state, allocates nothing; the flusher aggregates it later.
func (u *Meter) Record(rec Record) {
	sh := &u.shards[shardOf(rec.RequestID)]
	sh.mu.Lock()
	sh.recs = append(sh.recs, rec)
	if len(sh.recs) < chunkLen {
		sh.mu.Unlock()
		return
	}
	full := sh.recs
	sh.recs = u.chunk()
	sh.mu.Unlock()
	select {
	case u.full <- full:
	default:
		u.m.dropped.Add(float64(len(full)))
		u.release(full)
	}
}

// shardOf picks a buffer from the last bytes of a request id (a counter),
// so consecutive requests spread over every buffer.
func shardOf(id string) int {
	if len(id) < 2 {
		return 0
	}
	return int(uint(id[len(id)-1])+uint(id[len(id)-2])*7) % shardCount
}

// chunk returns an empty buffer, reused when one is free.
func (u *Meter) chunk() []Record {
	select {
	case c := <-u.free:
		return c
	default:
		return make([]Record, 0, chunkLen)
	}
}

// release clears a drained buffer (dropping its references) for reuse.
func (u *Meter) release(c []Record) {
	clear(c)
	select {
	case u.free <- c[:0]:
	default:
	}
}

// aggregate adds a drained buffer's records to what is pending. Callers
// hold flushMu.
func (u *Meter) aggregate(c []Record) {
	for i := range c {
		u.pending.add(&c[i], u)
	}
	u.release(c)
}

// drain aggregates every full buffer waiting and every buffer's records so
// far. Callers hold flushMu.
func (u *Meter) drain() {
	for {
		select {
		case c := <-u.full:
			u.aggregate(c)
			continue
		default:
		}
		break
	}
	for i := range u.shards {
		sh := &u.shards[i]
		sh.mu.Lock()
		c := sh.recs
		if len(c) == 0 {
			sh.mu.Unlock()
			continue
		}
		sh.recs = u.chunk()
		sh.mu.Unlock()
		u.aggregate(c)
	}
	u.pending.publish(u.m)
}

func randomID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
