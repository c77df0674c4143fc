package proxy

import (
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkSocketFanout: one notification of a feed's subscription handed
// to 1,000 subscribers, each on its own connection (through the edge's
// send queue, charge, usage record and frame write); the clients only
// count the bytes they read, so the time and allocations are the edge's
// (and the node's one notification). One op is one notification written
// to all 1,000.
func BenchmarkSocketFanout(b *testing.B) {
	const subs = 1000
	// No pings: the clients count every byte they read, and a ping read
	// between two notifications would throw the count off.
	_, hs, fn, _ := socketEdge(b, "", SocketOptions{ConnectionsPerAddress: subs + 1, PingInterval: time.Hour})
	var read atomic.Int64
	for range subs {
		c := dialSocket(b, hs, "/ext/bc/C/ws", nil)
		subscribeHeads(b, c)
		go func() { // ends when the test closes c
			buf := make([]byte, 64<<10)
			for {
				n, err := c.UnderlyingConn().Read(buf)
				read.Add(int64(n))
				if err != nil {
					return
				}
			}
		}()
	}
	head := map[string]string{"number": "0x1", "parentHash": "0x5e2c9a0e7f4c1b3f6a8d2e4c6b8a0f1e3d5c7b9a1f3e5d7c9b1a3f5e7d9c1b3a",
		"miner": "0x0100000000000000000000000000000000000000", "gasLimit": "0x1c9c380", "timestamp": "0x6774d2a0"}
	wait := func(n int64) {
		for deadline := time.Now().Add(time.Minute); read.Load() < n; time.Sleep(100 * time.Microsecond) {
			if time.Now().After(deadline) {
				b.Fatalf("after a minute %d bytes read of %d", read.Load(), n)
			}
		}
	}
	// One notification first: every subscriber's frame has the same size.
	fn.chain.emit("newHeads", head)
	time.Sleep(time.Second)
	perOp := read.Load()
	if perOp%subs != 0 {
		b.Fatalf("read %d bytes after one notification to %d subscribers", perOp, subs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fn.chain.emit("newHeads", head)
		wait(int64(i+2) * perOp)
	}
}
