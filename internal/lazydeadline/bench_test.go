package lazydeadline

import (
	"net"
	"testing"
	"time"
)

// BenchmarkRequestDeadlines is the deadline changes net/http makes on a
// keep-alive connection per request with ReadHeaderTimeout, IdleTimeout
// and WriteTimeout set (the clock readings it makes included), on a plain
// TCP connection and on one from Listen.
func BenchmarkRequestDeadlines(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	raw, err := ln.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	lazy := &conn{Conn: raw, r: deadline{apply: raw.SetReadDeadline}, w: deadline{apply: raw.SetWriteDeadline, grain: int64(time.Second)}}
	past := time.Unix(1, 0)
	for _, c := range []struct {
		name string
		c    net.Conn
	}{{"tcp", raw}, {"lazy", lazy}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.c.SetReadDeadline(time.Now().Add(10 * time.Second))  // header timeout
				c.c.SetReadDeadline(time.Time{})                       // whole request read
				c.c.SetWriteDeadline(time.Now().Add(60 * time.Second)) // write timeout
				c.c.SetReadDeadline(time.Time{})                       // background read
				c.c.SetReadDeadline(past)                              // background read ended
				c.c.SetReadDeadline(time.Time{})
				c.c.SetWriteDeadline(time.Time{})                      // answer written
				c.c.SetReadDeadline(time.Now().Add(120 * time.Second)) // idle timeout
			}
		})
	}
}
