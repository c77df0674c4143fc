package cache

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/internal/redistest"
)

// gathered returns the value of the counter, gauge or histogram count
// named name whose labels include label=value (any labels when label is "").
func gathered(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			match := label == ""
			for _, lp := range m.GetLabel() {
				match = match || (lp.GetName() == label && lp.GetValue() == value)
			}
			if !match {
				continue
			}
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return -1
}

func TestMetrics(t *testing.T) {
	srv := redistest.Start(t)
	reg := prometheus.NewRegistry()
	clk := newClock()
	ctx := context.Background()
	c := mustNew(t, Options{Now: clk.Now, Redis: srv.Client(), RedisTimeout: time.Second, Registerer: reg})
	u := &upstream{clk: clk}
	c.Do(ctx, "k", false, u.fetch) // miss, store
	c.Do(ctx, "k", false, u.fetch) // hit in memory
	clk.Add(15 * time.Second)
	c.Do(ctx, "k", false, u.fetch) // stale, refresh, store
	waitRefreshes(t, c)
	u.fail.Store(true)
	clk.Add(25 * time.Second)
	c.Do(ctx, "k", false, u.fetch) // stale on error

	tests := []struct {
		name, label, value string
		want               float64
	}{
		{"avaedge_cache_hits_total", "tier", "memory", 1},
		{"avaedge_cache_misses_total", "", "", 2},
		{"avaedge_cache_stale_total", "reason", "revalidate", 1},
		{"avaedge_cache_stale_total", "reason", "error", 1},
		{"avaedge_cache_stores_total", "", "", 2},
		{"avaedge_cache_refreshes_total", "result", "ok", 1},
		{"avaedge_cache_memory_entries", "", "", 1},
		{"avaedge_cache_duration_seconds", "op", "set", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.value, func(t *testing.T) {
			if got := gathered(t, reg, tt.name, tt.label, tt.value); got != tt.want {
				t.Fatalf("got %v; want %v", got, tt.want)
			}
		})
	}
	if _, err := New(Options{Registerer: reg}); err == nil {
		t.Fatal("a second Cache registered the same metrics without an error")
	}
}
