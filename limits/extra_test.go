package limits

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/internal/redistest"
)

// TestAdmitThenExtra: a request admitted for a minimum before its body is
// read (the JSON-RPC endpoints) is charged the rest once it is parsed. The
// extra charge spends compute units only, never a request of the rate;
// refuses (429) when they fall short; and, at zero cost, checks the plan's
// routes and decides nothing. An endpoint is admitted when the plan allows
// any of its routes. In process and with Redis (leases).
func TestAdmitThenExtra(t *testing.T) {
	srv := redistest.Start(t)
	kf, err := ParseKeysFile([]byte(`
plans:
  both: {rps: 2, burst: 2, cu_per_minute: 10}
  info: {routes: [info.getNetworkID, info.peers], cache_bypass: true}
keys:
  - {id: both, key: both-secret, plan: both}
  - {id: info, key: info-secret, plan: info}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"memory", "redis"} {
		t.Run(mode, func(t *testing.T) {
			clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			var rdb redis.UniversalClient
			if mode == "redis" {
				rdb = srv.Client()
				rdb.FlushAll(context.Background())
			}
			l := newLimiter(t, Options{Keys: kf, Redis: rdb, Now: clk.Now})
			ctx := context.Background()
			c, _ := l.Identify(req("both-secret"))
			first := Charge{Routes: []string{"evm.rpc"}, Cost: 1}
			if d := l.AdmitClient(ctx, c, first); d.Status != 0 || d.Remaining != 1 {
				t.Fatalf("admission: %+v; want allowed with 1 request left of the burst", d)
			}
			// Two extra charges: neither takes a request of the rate (burst 2).
			for i := range 2 {
				if d := l.AdmitClient(ctx, c, Charge{Routes: []string{"evm.rpc"}, Cost: 2, Extra: true}); d.Status != 0 {
					t.Fatalf("extra %d: %+v", i, d)
				}
			}
			if d := l.AdmitClient(ctx, c, first); d.Status != 0 || d.Remaining != 0 {
				t.Fatalf("second admission: %+v; want allowed, nothing left of the burst", d)
			}
			// 1 + 2 + 2 + 1 of 10 CU spent: an extra 5 falls short.
			if d := l.AdmitClient(ctx, c, Charge{Routes: []string{"evm.rpc"}, Cost: 5, Extra: true}); d.Status != 429 || d.RetryAfter <= 0 {
				t.Fatalf("extra over the minute's CU: %+v; want 429", d)
			}
			if d := l.AdmitClient(ctx, c, Charge{Routes: []string{"evm.rpc"}, Cost: 4, Extra: true}); d.Status != 0 {
				t.Fatalf("extra of the last 4 CU: %+v", d)
			}

			i, _ := l.Identify(req("info-secret"))
			for _, tc := range []struct {
				name   string
				c      Charge
				status int
			}{
				{"endpoint with an allowed route", Charge{Routes: []string{"info.acps", "info.peers"}, Cost: 1, AnyRoute: true}, 0},
				{"endpoint without", Charge{Routes: []string{"avm.getTx", "avm.getHeight"}, Cost: 1, AnyRoute: true}, 403},
				{"extra of an allowed route", Charge{Routes: []string{"info.peers"}, Cost: 9, Extra: true}, 0},
				{"extra of zero cost, route allowed", Charge{Routes: []string{"info.getNetworkID"}, Extra: true}, 0},
				{"extra of zero cost, route not allowed", Charge{Routes: []string{"info.acps"}, Extra: true}, 403},
			} {
				d := l.AdmitClient(ctx, i, tc.c)
				if d.Status != tc.status || !d.CacheBypass {
					t.Errorf("%s: %+v; want status %d and CacheBypass", tc.name, d, tc.status)
				}
				if tc.c.Extra && tc.c.Cost == 0 && d.HasHeaders() {
					t.Errorf("%s: headers %q; an extra charge of zero cost decides nothing", tc.name, d.Policy)
				}
			}
			if d := l.AdmitClient(ctx, c, first); d.CacheBypass {
				t.Errorf("plan without cache_bypass: %+v", d)
			}
		})
	}
}
