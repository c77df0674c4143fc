package catalog

import (
	"net/url"
	"strings"
)

// PathValuer gives a request's path values; *http.Request is one.
type PathValuer interface{ PathValue(name string) string }

// PathFunc adapts a function to PathValuer.
type PathFunc func(name string) string

// PathValue calls f.
func (f PathFunc) PathValue(name string) string { return f(name) }

// Validate checks a REST request against the route's rules: path values
// (each one segment: SegmentProblem), the query as ParseQuery returns it,
// and for routes with body parameters the JSON body (empty means {}).
// It returns the validated values with defaults filled, or every message in
// parameter order (and nil values). Cross-parameter rules (Route.Check) run
// only when every parameter is valid on its own.
func (r *Route) Validate(pv PathValuer, q url.Values, body []byte) (Values, []string) {
	var msgs []string
	vals := make(Values, len(r.Params))
	hasBody := false
	for i := range r.Params {
		p := &r.Params[i]
		switch p.In {
		case Path:
			v := pv.PathValue(p.Name)
			vals[p.Name] = v
			if problem := SegmentProblem(v); problem != "" {
				msgs = append(msgs, p.Name+" "+problem)
				continue
			}
			msgs = append(msgs, p.Check(v, true)...)
		case Query:
			vs, ok := q[p.Name]
			var v string
			if ok && len(vs) > 0 {
				v = vs[0]
				if p.Format == Array && len(vs) > 1 {
					v = strings.Join(vs, ",")
				}
				vals[p.Name] = v
			} else if p.Default != "" {
				vals[p.Name] = p.Default
			}
			msgs = append(msgs, p.Check(v, ok)...)
		case Body:
			hasBody = true
		}
	}
	if hasBody {
		bv, bmsgs := bodyValues(body, r.Params)
		msgs = append(msgs, bmsgs...)
		for i := range r.Params {
			p := &r.Params[i]
			if p.In != Body || bv == nil {
				continue
			}
			if _, bad := find(bmsgs, p.Name+" "); bad {
				continue
			}
			v, ok := bv[p.Name]
			msgs = append(msgs, p.Check(v, ok)...)
			if ok {
				vals[p.Name] = v
			} else if p.Default != "" {
				vals[p.Name] = p.Default
			}
		}
	}
	if len(msgs) == 0 && r.Check != nil {
		msgs = r.Check(vals)
	}
	if len(msgs) > 0 {
		return nil, msgs
	}
	return vals, nil
}

func find(msgs []string, prefix string) (string, bool) {
	for _, m := range msgs {
		if len(m) >= len(prefix) && m[:len(prefix)] == prefix {
			return m, true
		}
	}
	return "", false
}
