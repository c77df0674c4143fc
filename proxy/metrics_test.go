package proxy

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/catalog"
)

// TestRouteMetrics: answers of one route with changing statuses and sources
// are each counted under their own labels (the last counter used is
// remembered, never reused for other labels).
func TestRouteMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	rm := &routeMetrics{m: m, svc: catalog.Data, name: "getLatestBlocks"}
	type answer struct {
		status int
		source Origin
	}
	seq := []answer{{200, FromCache}, {200, FromCache}, {200, FromUpstream}, {429, FromEdge}, {200, FromCache}, {200, FromUpstream | FromCache}}
	want := map[string]float64{}
	for range 3 {
		for _, a := range seq {
			rm.observe(a.status, a.source)
			want[labels(a.status, a.source)]++
		}
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "avaedge_requests_total" {
			continue
		}
		for _, mt := range mf.Metric {
			l := map[string]string{}
			for _, p := range mt.Label {
				l[p.GetName()] = p.GetValue()
			}
			if l["service"] != "data" || l["route"] != "getLatestBlocks" {
				t.Errorf("labels %v", l)
			}
			got[l["status"]+" "+l["source"]] = mt.GetCounter().GetValue()
		}
	}
	if len(got) != len(want) {
		t.Fatalf("series %v; want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v; want %v", k, got[k], v)
		}
	}
}

func labels(status int, src Origin) string {
	return map[int]string{200: "200", 429: "429"}[status] + " " + src.String()
}
