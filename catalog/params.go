package catalog

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Kind is the type of a parameter's value.
type Kind int

// Kinds of parameter values, as the OpenAPI files type them.
const (
	String  Kind = iota
	Integer      // a whole number ("10"; "1.5" and "1e3" are rejected)
	Number       // any finite decimal number
	Boolean      // "true" or "false"
)

// Format is an extra rule on a string value.
type Format int

// Formats of string values.
const (
	Plain       Format = iota
	Hex                // hex digits with an optional 0x prefix
	AddressList        // comma-separated addresses, none empty
	List               // comma-separated values, none empty
)

// In says where a parameter travels.
type In int

// Parameter locations.
const (
	Query In = iota
	Path
	Body // a field of a JSON object body
)

// Param is one parameter of a route and its rules. The zero value is an
// optional plain string in the query. Param is immutable once the catalogue
// is built.
type Param struct {
	Name     string
	In       In
	Kind     Kind
	Format   Format
	Required bool
	// Min and Max bound numeric values when HasMin / HasMax are set.
	Min, Max       float64
	HasMin, HasMax bool
	// Default is the value the service assumes when the parameter is absent;
	// it is filled into cache keys so "?" and "?pageSize=10" share an entry.
	Default string
	// Enum, when set, is the closed list of accepted values.
	Enum []string
}

// Messages are in the style of NestJS class-validator, which both REST
// services use ("pageSize must not be greater than 100").

// Check validates one raw value (present says whether the parameter was sent
// at all) and returns the messages for each rule it breaks.
func (p *Param) Check(raw string, present bool) []string {
	if !present {
		if p.Required {
			return []string{p.Name + " should not be empty"}
		}
		return nil
	}
	if p.Required && raw == "" {
		return []string{p.Name + " should not be empty"}
	}
	var msgs []string
	switch p.Kind {
	case Integer:
		v, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			msgs = append(msgs, p.Name+" must be an integer number")
			break
		}
		msgs = append(msgs, p.bounds(float64(v))...)
	case Number:
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			msgs = append(msgs, p.Name+" must be a number conforming to the specified constraints")
			break
		}
		msgs = append(msgs, p.bounds(v)...)
	case Boolean:
		if raw != "true" && raw != "false" {
			msgs = append(msgs, p.Name+" must be a boolean value")
		}
	}
	if len(p.Enum) > 0 && !contains(p.Enum, raw) {
		msgs = append(msgs, p.Name+" must be one of the following values: "+strings.Join(p.Enum, ", "))
	}
	switch p.Format {
	case Hex:
		h := strings.TrimPrefix(strings.TrimPrefix(raw, "0x"), "0X")
		if h == "" || len(h)%2 != 0 {
			msgs = append(msgs, p.Name+" must be a hexadecimal number")
		} else if _, err := hex.DecodeString(h); err != nil {
			msgs = append(msgs, p.Name+" must be a hexadecimal number")
		}
	case AddressList, List:
		for _, item := range strings.Split(raw, ",") {
			if strings.TrimSpace(item) == "" {
				msgs = append(msgs, p.Name+" must be a comma-separated list without empty items")
				break
			}
		}
	}
	return msgs
}

func (p *Param) bounds(v float64) []string {
	var msgs []string
	if p.HasMin && v < p.Min {
		msgs = append(msgs, p.Name+" must not be less than "+formatNum(p.Min))
	}
	if p.HasMax && v > p.Max {
		msgs = append(msgs, p.Name+" must not be greater than "+formatNum(p.Max))
	}
	return msgs
}

func formatNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Values is what Route.Validate hands to cross-field checks: each parameter's
// raw value by name, present or not.
type Values map[string]string

// Has reports whether name was sent.
func (v Values) Has(name string) bool { _, ok := v[name]; return ok }

// bodyValues flattens a JSON object body into raw strings, so body fields
// take the same rules as query parameters. Numbers keep their JSON text.
// A field of the wrong JSON type is reported in msgs.
func bodyValues(body []byte, params []Param) (Values, []string) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return nil, []string{"request body must be a JSON object"}
	}
	vals := Values{}
	var msgs []string
	for _, p := range params {
		raw, ok := obj[p.Name]
		if !ok || string(raw) == "null" {
			continue
		}
		switch p.Kind {
		case Integer, Number:
			var n json.Number
			if err := json.Unmarshal(raw, &n); err != nil {
				if p.Kind == Integer {
					msgs = append(msgs, p.Name+" must be an integer number")
				} else {
					msgs = append(msgs, p.Name+" must be a number conforming to the specified constraints")
				}
				continue
			}
			// Integer rules are checked on the JSON text: 50.0 is not an integer.
			vals[p.Name] = n.String()
		case Boolean:
			var b bool
			if err := json.Unmarshal(raw, &b); err != nil {
				msgs = append(msgs, p.Name+" must be a boolean value")
				continue
			}
			vals[p.Name] = strconv.FormatBool(b)
		default:
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				msgs = append(msgs, p.Name+" must be a string")
				continue
			}
			vals[p.Name] = s
		}
	}
	return vals, msgs
}

// CanonicalQuery returns q with the route's defaults filled in, in sorted
// order: the query part of a cache key. Parameters the route does not know are
// kept (the upstream may honour them). Values are query-escaped.
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
		keys = append(keys, k)
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

func parseFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
