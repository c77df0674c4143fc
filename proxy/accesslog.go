package proxy

import (
	"net/http"
	"net/netip"

	"github.com/avaedge/avaedge/internal/accesslog"
)

// logAccess queues ex's access log line. It does not wait for the log's
// destination, and allocates nothing: the entry stays on the stack.
func (s *Server) logAccess(ex *exchange, status int) {
	end := s.now()
	s.opts.AccessLog.Log(&accesslog.Entry{
		Time:      end,
		RequestID: ex.id,
		Method:    ex.r.Method,
		Path:      ex.r.URL.Path,
		Service:   string(ex.service),
		Route:     ex.route,
		Status:    status,
		Source:    ex.source.String(),
		Cache:     string(ex.cache),
		Bytes:     ex.w.bytes,
		Duration:  end.Sub(ex.start),
		KeyID:     ex.keyID,
		Client:    s.clientAddr(ex.r),
	})
}

// clientAddr is the client of r: Options.ClientIP's, else the connection's
// remote address (the zero Addr when it is not an IP address).
func (s *Server) clientAddr(r *http.Request) netip.Addr {
	if s.opts.ClientIP != nil {
		return s.opts.ClientIP(r)
	}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ap.Addr()
	}
	a, _ := netip.ParseAddr(r.RemoteAddr)
	return a
}

// clientIP is clientAddr as X-Forwarded-For names it ("" for none).
func (s *Server) clientIP(r *http.Request) string {
	if a := s.clientAddr(r); a.IsValid() {
		return a.String()
	}
	return ""
}
