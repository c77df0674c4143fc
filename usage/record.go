package usage

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"time"
)

// shardCount shards take records; a request picks one by its id, so
// concurrent requests rarely share a lock.
const shardCount = 32

// A shard asks the flusher to drain it early when it holds softCells cells
// or softLogs records of keyed requests; past maxLogs records a keyed
// request's log line is dropped (counted in logs_dropped_total; its counts
// are kept). So memory stays bounded whatever the load.
const (
	softCells = 1024
	softLogs  = 1024
	maxLogs   = 4 * softLogs
)

// shard counts the requests recorded since the last drain, and keeps the
// records of keyed requests for their log lines.
type shard struct {
	mu    sync.Mutex // guards everything below
	cells map[cellKey]*cell
	logs  []Record
	// last is the cell of the shard's last shared-plan request: a repeated
	// request (a client's cache hits) finds it without hashing its key.
	last    *cell
	lastKey fastKey
	_       [16]byte // a shard fills two cache lines of its own: no false sharing between cores
}

// fastKey is the part of a cellKey a request with a shared plan fills.
type fastKey struct {
	shape    any
	identity string
	minute   int64
	status   int
	source   string
}

// cellKey names what a request is counted under in its shard. When the
// edge shares the request's plan between requests (Record.Shape), the plan
// stands for the route, path and chain, so the key is a pointer and two
// short strings; otherwise the key holds those values themselves.
type cellKey struct {
	fastKey
	// Without a shape only:
	path, chain, method, route, ua string
	rpc                            bool
}

// cell is one key's counts in one shard between two drains.
type cell struct {
	identity string // Anonymous for every anonymous client
	minute   int64  // unix seconds
	d        dims
	route    string
	c        counters
	shape    any // keeps a shared plan (and so its address) alive while it names the cell
}

// Count is what Meter.Count needs of a request whose shared plan
// (Record.Shape) stands for its route, path and chain: the fields of
// Record of the same names.
type Count struct {
	Shape     any
	Identity  string
	Start     time.Time
	Status    int
	Source    string
	CU        int64
	RequestID string
}

// Count counts a request by its shared plan alone, answered at once (its
// Duration 0), and reports true; it reports false, counting nothing, when
// the meter needs the whole record (a keyed request's log line, or no
// plan), which the caller then hands to Record.
func (u *Meter) Count(q Count) bool {
	if q.Shape == nil || q.Identity == "" || !strings.HasPrefix(q.Identity, "ip:") {
		return false
	}
	k := fastKey{shape: q.Shape, identity: q.Identity, minute: q.Start.Unix() / 60 * 60, status: q.Status, source: q.Source}
	sh := &u.shards[shardOf(q.RequestID)]
	sh.mu.Lock()
	c := sh.last
	if c == nil || sh.lastKey != k {
		if c = sh.cells[cellKey{fastKey: k}]; c == nil {
			sh.mu.Unlock()
			return false // a new cell: made by Record, from the whole record
		}
		sh.last, sh.lastKey = c, k
	}
	c.c.count(q.Status, q.CU, 0)
	sh.mu.Unlock()
	return true
}

// Record counts one request in its shard, and keeps the record of a keyed
// request for its log line. It does no I/O; a request counted under a cell
// its shard already holds (a repeated request of the same client, as cache
// hits are) allocates nothing.
func (u *Meter) Record(rec Record) {
	if rec.Identity == "" {
		return // refused before it was identified: nobody's usage
	}
	k := cellKey{fastKey: fastKey{shape: rec.Shape, identity: rec.Identity, minute: rec.Start.Unix() / 60 * 60, status: rec.Status, source: rec.Source}}
	if rec.Shape == nil {
		k.path, k.chain, k.method, k.route, k.rpc = rec.Path, chainOf(&rec), rec.Method, rec.Route, rec.RPC
		if rec.RPC {
			k.ua = headerValue(&rec, "User-Agent")
		}
	}
	keyed := !strings.HasPrefix(rec.Identity, "ip:")
	sh := &u.shards[shardOf(rec.RequestID)]
	sh.mu.Lock()
	var c *cell
	if rec.Shape != nil && sh.last != nil && sh.lastKey == k.fastKey {
		c = sh.last
	} else {
		c = sh.cells[k]
		if c == nil {
			c = u.newCell(&rec, k)
			sh.cells[k] = c
			if len(sh.cells) == softCells {
				u.drainSoon()
			}
		}
		if rec.Shape != nil {
			sh.last, sh.lastKey = c, k.fastKey
		}
	}
	c.c.add(&rec)
	if keyed {
		switch n := len(sh.logs); {
		case n < maxLogs:
			sh.logs = append(sh.logs, rec)
			if n+1 == softLogs {
				u.drainSoon()
			}
		default:
			u.m.logsDropped.Inc()
		}
	}
	sh.mu.Unlock()
}

// drainSoon asks the flusher to drain the shards now.
func (u *Meter) drainSoon() {
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

// newCell makes the cell of a request's key: its dimensions, read once.
func (u *Meter) newCell(rec *Record, k cellKey) *cell {
	identity := rec.Identity
	if strings.HasPrefix(identity, "ip:") {
		identity = Anonymous
	}
	return &cell{identity: identity, minute: k.minute, d: u.dimsOf(rec), route: rec.Route, shape: rec.Shape}
}

// dimsOf is what a request is counted under.
func (u *Meter) dimsOf(rec *Record) dims {
	d := dims{typ: "data", path: clip(rec.Path), code: statusText(rec.Status), chain: clip(chainOf(rec)), src: clip(rec.Source)}
	if rec.RPC {
		d.typ, d.method = "rpc", clip(rec.Method)
		d.ua = clip(headerValue(rec, "User-Agent"))
		if rec.Path == cChainRPC || rec.Path == cChainSocket {
			d.chain = u.opts.EVMChainID
		}
	}
	return d
}

// The C-Chain's JSON-RPC endpoint and its WebSocket twin, whose calls and
// notifications the EVM RPC usage routes count.
const (
	cChainRPC    = "/ext/bc/C/rpc"
	cChainSocket = "/ext/bc/C/ws"
)

// chainOf is the chain a request named: its chainId, else its blockchainId.
func chainOf(rec *Record) string {
	if c := rec.Values.Get("chainId"); c != "" {
		return c
	}
	return rec.Values.Get("blockchainId")
}

// shardOf picks a shard from the last bytes of a request id (a counter):
// consecutive requests, likely on different cores, land on shards far
// apart (an odd multiplier permutes the shards).
func shardOf(id string) int {
	if len(id) < 2 {
		return 0
	}
	return int((uint(id[len(id)-1])*40503 + uint(id[len(id)-2])*31) % shardCount)
}

// drain takes every shard's cells and records and adds them to what is
// pending. Callers hold flushMu.
func (u *Meter) drain() {
	for i := range u.shards {
		sh := &u.shards[i]
		sh.mu.Lock()
		cells, logs := sh.cells, sh.logs
		if len(cells) == 0 && len(logs) == 0 {
			sh.mu.Unlock()
			continue
		}
		sh.cells = make(map[cellKey]*cell, len(cells))
		sh.last, sh.lastKey = nil, fastKey{}
		sh.logs = u.spare[i]
		sh.mu.Unlock()
		for _, c := range cells {
			u.pending.addCell(c)
		}
		for j := range logs {
			u.pending.addLog(&logs[j], u)
		}
		clear(logs) // drop the references (headers) at once
		u.spare[i] = logs[:0]
	}
	u.pending.publish(u.m)
}

func randomID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
