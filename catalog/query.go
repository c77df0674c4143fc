package catalog

import (
	"net/url"
	"slices"
	"strings"
)

// ParseQuery parses a request's raw query (url.URL.RawQuery) strictly, the
// one parse the edge and the local world make of it. Pairs are separated by
// '&' (empty pairs are skipped); names and values are percent-decoded, '+'
// being a space. A pair containing ';' (which Go's url.ParseQuery drops
// silently and other servers read as part of a value), a name or value
// that is not correctly percent-encoded, or a second value of a parameter
// that is not an Array is refused with a message in NestJS style.
// Parameters the route does not know are dropped: they are neither
// validated, forwarded nor part of a cache key. It returns the route's
// query parameters, one value each (an Array parameter's values joined with
// commas), for Validate and AppendCanonicalQuery; or the messages and nil.
func (r *Route) ParseQuery(raw string) (url.Values, []string) {
	var q url.Values
	msgs := eachPair(raw, func(name, value string) string {
		p := r.param(name)
		if p == nil || p.In != Query {
			return ""
		}
		if prev, ok := q[name]; ok {
			if p.Format != Array {
				return name + " must not be given more than once"
			}
			prev[0] += "," + value
			return ""
		}
		if q == nil {
			q = make(url.Values, 4)
		}
		q[name] = []string{value}
		return ""
	})
	if msgs != nil {
		return nil, msgs
	}
	return q, nil
}

// ReencodeQuery reads the query of a published route the catalogue does not
// describe as strictly as ParseQuery does, and returns it re-encoded: every
// pair decoded and query-escaped again, in the client's order (repeats
// kept), so that the upstream reads exactly the pairs the edge read. A
// malformed query gets the messages instead.
func ReencodeQuery(raw string) (string, []string) {
	var b strings.Builder
	msgs := eachPair(raw, func(name, value string) string {
		writePair(&b, 0, name, value)
		return ""
	})
	if msgs != nil {
		return "", msgs
	}
	return b.String(), nil
}

// eachPair splits raw into '&'-separated pairs, decodes each and calls fn
// with it; fn returns a message to refuse it. It returns the messages of
// malformed pairs and fn's, each once, in order; nil when none.
func eachPair(raw string, fn func(name, value string) string) []string {
	var msgs []string
	refuse := func(m string) {
		if m != "" && !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		if strings.IndexByte(pair, ';') >= 0 {
			refuse("query parameters must be separated by '&', not ';'")
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			refuse("query parameter names must be correctly percent-encoded")
			continue
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			refuse(name + " must be correctly percent-encoded")
			continue
		}
		refuse(fn(name, value))
	}
	return msgs
}

// CanonicalQuery returns the parameters of q (as ParseQuery returns them)
// that the route knows, with its defaults filled in, in sorted order: the
// query the edge sends upstream and the query part of the cache key, so that
// what is cached is what was fetched. Unknown parameters are left out, so
// they cannot make new entries. Values are query-escaped; an Array
// parameter is written as one pair per item (the form the OpenAPI files
// give arrays: "txTypes=A&txTypes=B"), items trimmed as validation reads
// them.
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
		if p := r.param(k); p != nil && p.In == Query {
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
		p := r.param(k)
		vs, ok := q[k]
		if !ok {
			vs = []string{p.Default}
		}
		for _, v := range vs {
			if p.Format != Array {
				writePair(b, start, k, v)
				continue
			}
			for item := range strings.SplitSeq(v, ",") {
				writePair(b, start, k, strings.TrimSpace(item))
			}
		}
	}
}

func writePair(b *strings.Builder, start int, k, v string) {
	if b.Len() > start {
		b.WriteByte('&')
	}
	writeEscaped(b, k)
	b.WriteByte('=')
	writeEscaped(b, v)
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
