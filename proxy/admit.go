package proxy

import "github.com/avaedge/avaedge/limits"

// Admission comes first. Every request is identified and admitted (its
// rate, its compute units, its plan's routes) before its body is read or
// its query and body are parsed, so that a client over its limit gets its
// 429 for the price of its headers, and nothing is free: a request refused
// for a bad parameter, a malformed or oversized body or an empty batch has
// been charged.
//
// A REST route's price is known from its route alone: it is admitted
// whole. A JSON-RPC endpoint's price is in its body, which names the call
// (or the batch's calls): it is admitted for the endpoint's minimum, a
// request of the rate and the price of its cheapest route (1 CU unless the
// operator prices them all higher), by a plan that allows some route of the
// endpoint, before the body is read; once the body is parsed, admitRest charges the
// rest of its price (its calls' sum) as an extra charge, which spends
// compute units only and checks the plan's routes for the call itself. A
// body that names no call keeps the minimum. The alternative, pricing a
// body before admission by a bounded pre-scan of its method names, would
// be a second JSON reader of the body beside the one that decides what is
// forwarded, and readers that disagree are what a hostile client looks
// for; the two-step charge costs one more in-process spend, and only for
// calls priced above the minimum.

// admit asks the limiter; on refusal it answers in the request's format and
// returns false.
func (s *Server) admit(ex *exchange, c limits.Charge) bool {
	if s.opts.Limiter == nil {
		ex.admitted, ex.cu = true, c.Cost
		return true
	}
	c.At = ex.start
	var d limits.Decision
	if ex.identified {
		d = s.opts.Limiter.(Identifier).AdmitClient(ex.r.Context(), ex.client, c)
	} else {
		d = s.opts.Limiter.Admit(ex.r.Context(), ex.r, c)
	}
	ex.keyID, ex.identity = d.KeyID, d.Identity
	if d.HasHeaders() {
		d.WriteHeaders(ex.w.Header())
	}
	if d.Status != 0 {
		s.refuse(ex, d.Status, d.Message)
		return false
	}
	ex.admitted, ex.cu, ex.bypassOK = true, c.Cost, d.CacheBypass
	return true
}

// admitEndpoint admits a JSON-RPC request before its body is read: for the
// endpoint's minimum (endpoint.minimum), by a plan that allows one of its
// routes. A limiter that cannot identify alone is left to admit the whole
// price once the body is parsed (serve). It answers and returns false on
// refusal.
func (s *Server) admitEndpoint(ex *exchange, e endpoint) bool {
	if s.opts.Limiter != nil {
		if !s.identify(ex) {
			return false
		}
		if !ex.identified {
			return true
		}
	}
	return s.admit(ex, limits.Charge{Routes: e.routes, Cost: e.minimum, AnyRoute: true})
}

// admitRest charges a request admitted before its body was read what its
// parsed body costs beyond what it was admitted for, by c's routes (an
// extra charge: compute units only). A request not admitted yet is left to
// serve, which admits c whole; so is one a limiter that cannot identify
// alone admitted. It answers and returns false on refusal.
func (s *Server) admitRest(ex *exchange, c limits.Charge) bool {
	if !ex.admitted || s.opts.Limiter != nil && !ex.identified {
		return true
	}
	rest := max(0, c.Cost-ex.cu)
	if s.opts.Limiter == nil {
		ex.cu += rest
		return true
	}
	c.Cost, c.Extra, c.At = rest, true, ex.start
	d := s.opts.Limiter.(Identifier).AdmitClient(ex.r.Context(), ex.client, c)
	if d.HasHeaders() {
		d.WriteHeaders(ex.w.Header())
	}
	if d.Status != 0 {
		s.refuse(ex, d.Status, d.Message)
		return false
	}
	ex.cu += rest
	return true
}

// identify refuses a request whose credentials the limiter refuses, before
// its body is read; it answers and returns false then. A limiter that cannot
// identify alone admits everything here and decides in admit.
func (s *Server) identify(ex *exchange) bool {
	id, ok := s.opts.Limiter.(Identifier)
	if !ok {
		return true
	}
	c, d := id.Identify(ex.r)
	ex.keyID = d.KeyID
	if d.Status != 0 {
		if d.HasHeaders() {
			d.WriteHeaders(ex.w.Header())
		}
		s.refuse(ex, d.Status, d.Message)
		return false
	}
	ex.client, ex.identified, ex.keyID = c, true, c.KeyID()
	return true
}

// endpoint is what admission knows of a JSON-RPC endpoint before a body
// names its calls.
type endpoint struct {
	// routes are the route names its calls are charged by, one of which a
	// plan must allow.
	routes []string
	// minimum is the price of its cheapest route, at least 1 CU.
	minimum int64
}
