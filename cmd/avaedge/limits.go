package main

import (
	"context"
	"net/http"
	"net/netip"

	"github.com/avaedge/avaedge/limits"
	"github.com/avaedge/avaedge/proxy"
)

// limiterAdapter presents limits.Limiter as the proxy's Limiter.
type limiterAdapter struct{ l *limits.Limiter }

func (a limiterAdapter) Admit(ctx context.Context, r *http.Request, c proxy.Charge) proxy.Decision {
	d := a.l.Admit(ctx, r, limits.Charge{Routes: c.Routes, Cost: c.Cost, At: c.At})
	out := proxy.Decision{Status: d.Status, Message: d.Message, KeyID: d.KeyID}
	if d.HasHeaders() {
		out.SetHeaders = d.WriteHeaders
	}
	return out
}

func parsePrefixes(ss []string) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(ss))
	for _, s := range ss {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p)
		}
	}
	return out
}
