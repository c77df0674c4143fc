package proxy

import "github.com/avaedge/avaedge/limits"

// admit asks the limiter; on refusal it answers in the request's format and
// returns false.
func (s *Server) admit(ex *exchange, c limits.Charge) bool {
	if s.opts.Limiter == nil {
		ex.admitted = true
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
	ex.admitted = true
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
