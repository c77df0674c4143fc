package catalog

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
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
	// Array is an OpenAPI array parameter (style form): its values sent
	// as repeated parameters (?txTypes=a&txTypes=b, as the SDKs send
	// them), comma-separated (?txTypes=a,b), or both. Validate joins
	// them with commas; each value takes the rules of a List item.
	Array
	// UnixTime is an Integer of seconds since the Unix epoch, at most
	// MaxUnixTime from it either way.
	UnixTime
)

// MaxUnixTime bounds every timestamp parameter (UnixTime): 2^53-1 seconds,
// the largest integer the services (JavaScript) read exactly, and one whose
// milliseconds, or a day added to it, still fit an int64. A larger value
// (9223372036854775807, say) is a 400, never a number that overflows on the
// way and answers an empty list.
const MaxUnixTime = 1<<53 - 1

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
	// Enum, when set, is the closed list of accepted values (of each item,
	// for a list).
	Enum []string
	// MaxItems, when positive, bounds the items of a list (AddressList,
	// List, Array). Zero means no bound.
	MaxItems int
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
	switch {
	case len(p.Enum) > 0 && (p.Format == List || p.Format == Array):
		for _, item := range strings.Split(raw, ",") {
			if !contains(p.Enum, strings.TrimSpace(item)) {
				msgs = append(msgs, "each value in "+p.Name+" must be one of the following values: "+strings.Join(p.Enum, ", "))
				break
			}
		}
	case len(p.Enum) > 0 && !contains(p.Enum, raw):
		msgs = append(msgs, p.Name+" must be one of the following values: "+strings.Join(p.Enum, ", "))
	}
	switch p.Format {
	case UnixTime:
		if v, err := strconv.ParseInt(raw, 10, 64); err == nil && (v > MaxUnixTime || v < -MaxUnixTime) {
			if v > 0 {
				msgs = append(msgs, p.Name+" must not be greater than "+strconv.Itoa(MaxUnixTime))
			} else {
				msgs = append(msgs, p.Name+" must not be less than "+strconv.Itoa(-MaxUnixTime))
			}
		}
	case Hex:
		// An empty string is no bytes: the aggregator reads "" as absent.
		h := strings.TrimPrefix(strings.TrimPrefix(raw, "0x"), "0X")
		if len(h)%2 != 0 {
			msgs = append(msgs, p.Name+" must be a hexadecimal number")
		} else if _, err := hex.DecodeString(h); err != nil {
			msgs = append(msgs, p.Name+" must be a hexadecimal number")
		}
	case AddressList, List, Array:
		for _, item := range strings.Split(raw, ",") {
			if strings.TrimSpace(item) == "" {
				msgs = append(msgs, p.Name+" must be a comma-separated list without empty items")
				break
			}
		}
		if p.MaxItems > 0 && strings.Count(raw, ",") >= p.MaxItems {
			msgs = append(msgs, p.Name+" must contain no more than "+strconv.Itoa(p.MaxItems)+" elements")
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

// Values holds a validated request's parameters by name: path values, the
// value of each query parameter (every value of an Array joined with
// commas), and body fields (strings as sent, numbers as their JSON text,
// booleans as "true" or "false"). An absent parameter with a Default holds
// the default; other absent ones are missing. Values are read-only once
// Validate returns them.
type Values map[string]string

// Has reports whether name has a value (sent, or filled by its default).
func (v Values) Has(name string) bool { _, ok := v[name]; return ok }

// Get returns name's value, "" when absent.
func (v Values) Get(name string) string { return v[name] }

// bodyValues flattens a JSON object body into raw strings, so body fields
// take the same rules as query parameters. Numbers keep their JSON text.
// A field of the wrong JSON type is reported in msgs.
func bodyValues(body []byte, params []Param) (Values, []string) {
	var obj map[string]json.RawMessage
	// An empty body is an empty object, as NestJS reads it.
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
			return nil, []string{"body must be a JSON object"}
		}
	}
	vals := Values{}
	var msgs []string
	for _, p := range params {
		if p.In != Body {
			continue
		}
		raw, ok := obj[p.Name]
		if !ok || string(raw) == "null" {
			continue
		}
		switch p.Kind {
		case Integer, Number:
			var n json.Number
			// json.Number also takes a string holding a number; the services
			// do not (a string is not a number to class-validator).
			if err := json.Unmarshal(raw, &n); err != nil || raw[0] == '"' {
				if p.Kind == Integer {
					msgs = append(msgs, p.Name+" must be an integer number")
				} else {
					msgs = append(msgs, p.Name+" must be a number conforming to the specified constraints")
				}
				continue
			}
			// JSON has one number type, as JavaScript: 75.0 and 1e6 are the
			// integers 75 and 1000000 to the services, so an integral value
			// is written as an integer; any other keeps its JSON text.
			vals[p.Name] = n.String()
			if f, err := strconv.ParseFloat(n.String(), 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
				vals[p.Name] = strconv.FormatFloat(f, 'f', -1, 64)
			}
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
