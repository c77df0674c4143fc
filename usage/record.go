package usage

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
)

// shardCount buffers take records; a request picks one by its id, so
// concurrent requests rarely share a lock.
const shardCount = 32

// shardCap is each buffer's capacity: past half of it the flusher drains
// early; a full buffer drops records (counted), so memory stays bounded
// (shardCount x shardCap records) whatever the load.
const shardCap = 4096

// shard is one buffer of records.
type shard struct {
	mu   sync.Mutex // guards recs
	recs []Record
	_    [40]byte // keeps neighbours' locks off this cache line
}

// Record buffers one request's record. It does no I/O and allocates
// nothing; the flusher aggregates it later.
func (u *Meter) Record(rec Record) {
	sh := &u.shards[shardOf(rec.RequestID)]
	sh.mu.Lock()
	n := len(sh.recs)
	if n == cap(sh.recs) {
		sh.mu.Unlock()
		u.m.dropped.Inc()
		return
	}
	sh.recs = append(sh.recs, rec)
	sh.mu.Unlock()
	if n+1 == shardCap/2 {
		select {
		case u.wake <- struct{}{}:
		default:
		}
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

// drain swaps every buffer for an empty one and aggregates the records it
// held. Callers hold flushMu.
func (u *Meter) drain() {
	for i := range u.shards {
		sh := &u.shards[i]
		sh.mu.Lock()
		full := sh.recs
		sh.recs = u.spare[i]
		sh.mu.Unlock()
		for j := range full {
			u.pending.add(&full[j], u)
			full[j] = Record{} // drop the references (headers) at once
		}
		u.spare[i] = full[:0]
	}
	u.pending.publish(u.m)
}

func randomID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
