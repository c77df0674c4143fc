package catalog

import (
	"net/url"
	"slices"
	"strings"
)

// CanonicalQuery returns the parameters of q that the route knows, with its
// defaults filled in, in sorted order: the query part of a cache key.
// Unknown parameters are left out (the edge does not forward them either), so
// they cannot make new entries. Values are query-escaped.
func (r *Route) CanonicalQuery(q url.Values) string {
	var b strings.Builder
	r.AppendCanonicalQuery(&b, q)
	return b.String()
}

// AppendCanonicalQuery writes CanonicalQuery(q) to b.
func (r *Route) AppendCanonicalQuery(b *strings.Builder, q url.Values) {
	var stack [16]string
	keys := stack[:0]
	for k := range q {
		if r.param(k) != nil {
			keys = append(keys, k)
		}
	}
	for i := range r.Params {
		p := &r.Params[i]
		if p.In == Query && p.Default != "" {
			if _, ok := q[p.Name]; !ok {
				keys = append(keys, p.Name)
			}
		}
	}
	slices.Sort(keys)
	start := b.Len()
	for _, k := range keys {
		vs, ok := q[k]
		if !ok {
			vs = []string{r.param(k).Default}
		}
		for _, v := range vs {
			if b.Len() > start {
				b.WriteByte('&')
			}
			writeEscaped(b, k)
			b.WriteByte('=')
			writeEscaped(b, v)
		}
	}
}

// writeEscaped query-escapes s into b, without allocating when s needs no
// escaping (the common case).
func writeEscaped(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~') {
			b.WriteString(url.QueryEscape(s))
			return
		}
	}
	b.WriteString(s)
}

func (r *Route) param(name string) *Param {
	for i := range r.Params {
		if r.Params[i].Name == name {
			return &r.Params[i]
		}
	}
	return nil
}
