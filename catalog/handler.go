package catalog

import (
	"errors"
	"io"
	"net/http"

	"github.com/avaedge/avaedge/apierror"
)

// Handler answers one call of a REST route given its validated values: it
// reads its parameters from v, never from the request's path, query or
// body, and does not check again what the catalogue checked.
type Handler func(w http.ResponseWriter, r *http.Request, v Values)

// MaxBody bounds a request body read by Validating.
const MaxBody = 1 << 20

// Validating returns an http.Handler for r's pattern that validates each
// request through the catalogue and then calls h with the values: the way to
// use a Handler without the edge (tests, a directly mounted local world).
// An invalid request gets 400 with the messages as an array, the format
// both services use for validation errors; a body over MaxBody gets 413.
func (r *Route) Validating(h Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body []byte
		if r.hasBody() {
			var err error
			body, err = io.ReadAll(http.MaxBytesReader(w, req.Body, MaxBody))
			if err != nil {
				var tooLarge *http.MaxBytesError
				if errors.As(err, &tooLarge) {
					r.writeError(w, http.StatusRequestEntityTooLarge, "request entity too large")
					return
				}
				r.writeError(w, http.StatusBadRequest, "request body could not be read")
				return
			}
		}
		q, msgs := r.ParseQuery(req.URL.RawQuery)
		var v Values
		if msgs == nil {
			v, msgs = r.Validate(req, q, body)
		}
		if msgs != nil {
			apierror.WriteList(w, http.StatusBadRequest, msgs...)
			return
		}
		h(w, req, v)
	})
}

// writeError answers a failure that is not a validation error in the
// service's format: an array message for the Metrics API, a string for the
// Data API.
func (r *Route) writeError(w http.ResponseWriter, status int, msg string) {
	if r.Service == Metrics {
		apierror.WriteList(w, status, msg)
		return
	}
	apierror.Write(w, status, msg)
}

func (r *Route) hasBody() bool {
	for i := range r.Params {
		if r.Params[i].In == Body {
			return true
		}
	}
	return false
}

// NewMux returns a ServeMux serving, on its pattern, each REST route of
// routes that has a handler in handlers, through Validating (see Mount;
// the caller may register "/" unless handlers answer two routes whose
// patterns conflict).
func NewMux(routes []Route, handlers map[string]Handler) *http.ServeMux {
	var served []Route
	for i := range routes {
		if _, ok := handlers[routes[i].Name]; ok {
			served = append(served, routes[i])
		}
	}
	mux := http.NewServeMux()
	Mount(mux, served, func(rt *Route) http.Handler { return rt.Validating(handlers[rt.Name]) }, nil)
	return mux
}
