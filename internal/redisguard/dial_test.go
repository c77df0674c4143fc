package redisguard

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// TestDialTimeouts: both kinds of client apply context deadlines and have
// read, write, dial and pool timeouts of the order of a call's deadline, not
// go-redis's 5s defaults; a URL's own timeout is kept.
func TestDialTimeouts(t *testing.T) {
	type timeouts struct {
		ctx                     bool
		read, write, dial, pool time.Duration
	}
	want := timeouts{true, ReadTimeout, WriteTimeout, DialTimeout, PoolTimeout}
	for _, tc := range []struct {
		name  string
		addrs []string
		want  timeouts
	}{
		{"url", []string{"redis://127.0.0.1:1/0"}, want},
		{"url with read_timeout", []string{"redis://127.0.0.1:1/0?read_timeout=1s"}, timeouts{true, time.Second, WriteTimeout, DialTimeout, PoolTimeout}},
		{"cluster", []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}, want},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rdb, g, err := Dial(tc.addrs, Options{}, prometheus.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			defer rdb.Close()
			defer g.Close()
			var got timeouts
			switch c := rdb.(type) {
			case *redis.Client:
				o := c.Options()
				got = timeouts{o.ContextTimeoutEnabled, o.ReadTimeout, o.WriteTimeout, o.DialTimeout, o.PoolTimeout}
			case *redis.ClusterClient:
				o := c.Options()
				got = timeouts{o.ContextTimeoutEnabled, o.ReadTimeout, o.WriteTimeout, o.DialTimeout, o.PoolTimeout}
			default:
				t.Fatalf("client is a %T", rdb)
			}
			if got != tc.want {
				t.Fatalf("got %+v; want %+v", got, tc.want)
			}
			if !g.Up() {
				t.Fatal("a new guard is tripped")
			}
		})
	}
}
