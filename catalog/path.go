package catalog

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A path parameter is one segment of the path: its value may not contain
// '/' or '\', may not be a dot segment ("." or ".."), and may not contain
// control characters, neither as received nor in any percent-encoding of
// them that an upstream (or a chain of proxies before it) could decode on
// the way (%2F, %252F, %2e%2e, %5C, %00, ...). It must be valid UTF-8,
// which refuses the overlong forms a lax decoder reads as '/', '\' or '.'
// (%C0%AF, %C0%AE, %C1%9C), and may not contain the characters that
// Unicode compatibility normalization (NFKC, which some servers and
// frameworks apply to paths) turns into them (dotLike). The path sent upstream is
// built from the route's pattern and the validated values, each escaped as
// one segment (AppendPath), so it is always the path of the route that was
// matched and charged, whatever the client's encoding.

// maxDecodes bounds how many layers of percent-encoding SegmentProblem
// looks through; a value still encoded deeper is refused.
const maxDecodes = 8

// SegmentProblem returns why v cannot be the value of one path segment, as
// the end of a message that starts with the parameter's name ("must not
// contain '/'"), or "" when it can.
func SegmentProblem(v string) string {
	encoded := ""
	for range maxDecodes {
		if v == "." || v == ".." {
			return "must not be " + encoded + "'.' or '..'"
		}
		for i := 0; i < len(v); {
			r, n := utf8.DecodeRuneInString(v[i:])
			switch {
			case r == '/':
				return "must not contain " + encoded + "'/'"
			case r == '\\':
				return "must not contain " + encoded + "'\\'"
			case unicode.IsControl(r):
				return "must not contain " + encoded + "control characters"
			case r == utf8.RuneError && n == 1:
				return "must be valid UTF-8"
			case dotLike(r):
				return "must not contain " + encoded + "'" + string(r) + "'"
			}
			i += n
		}
		if !strings.Contains(v, "%") {
			return ""
		}
		d, err := url.PathUnescape(v)
		if err != nil || d == v {
			return "" // '%' that is no escape is sent as %25
		}
		v, encoded = d, "an encoded "
	}
	return "must not be percent-encoded more than " + strconv.Itoa(maxDecodes) + " times"
}

// dotLike reports whether r is one of the characters whose compatibility
// decomposition (NFKC) is or holds '/', '\\' or '.': the fullwidth
// solidus, reverse solidus and full stop (U+FF0F, U+FF3C, U+FF0E), their
// small forms (U+FE68, U+FE52), and the leaders and ellipsis (U+2024,
// U+2025, U+2026).
func dotLike(r rune) bool {
	switch r {
	case '\uFF0F', '\uFF3C', '\uFF0E', '\uFE68', '\uFE52', '\u2024', '\u2025', '\u2026':
		return true
	}
	return false
}

// AppendPath writes r's path with each "{name}" of its pattern replaced by
// v's value escaped as one segment (url.PathEscape), the rest of the
// pattern (literal segments, ":verb" suffixes) as written: the canonical
// escaped path of a call of r. The values must have passed Validate.
func (r *Route) AppendPath(b *strings.Builder, v Values) {
	appendPattern(b, r.Path, func(name string) string { return v[name] })
}

// appendPattern writes pattern with each "{name}" replaced by the escaped
// value(name).
func appendPattern(b *strings.Builder, pattern string, value func(name string) string) {
	for {
		i := strings.IndexByte(pattern, '{')
		if i < 0 {
			b.WriteString(pattern)
			return
		}
		j := strings.IndexByte(pattern[i:], '}')
		if j < 0 {
			b.WriteString(pattern)
			return
		}
		b.WriteString(pattern[:i])
		b.WriteString(url.PathEscape(value(pattern[i+1 : i+j])))
		pattern = pattern[i+j+1:]
	}
}

// PathMatch is a request path matched against a pattern of MatchPath.
type PathMatch struct {
	// Literals counts the pattern's literal segments (including segments
	// with a ":verb" suffix): the more, the more specific the match.
	Literals int
	// Values are the pattern's wildcards by name, unescaped.
	Values Values
}

// Problems returns a message for each value that is not one segment
// (SegmentProblem), in the pattern's order.
func (m PathMatch) Problems(pattern string) []string {
	var msgs []string
	for _, name := range wildcards(pattern) {
		if p := SegmentProblem(m.Values[name]); p != "" {
			msgs = append(msgs, name+" "+p)
		}
	}
	return msgs
}

// Path returns pattern with the match's values, escaped: the canonical path
// sent upstream.
func (m PathMatch) Path(pattern string) string {
	var b strings.Builder
	appendPattern(&b, pattern, func(name string) string { return m.Values[name] })
	return b.String()
}

func wildcards(pattern string) []string {
	var names []string
	for {
		i := strings.IndexByte(pattern, '{')
		if i < 0 {
			return names
		}
		j := strings.IndexByte(pattern[i:], '}')
		if j < 0 {
			return names
		}
		names = append(names, pattern[i+1:i+j])
		pattern = pattern[i+j+1:]
	}
}

// MatchPath matches an escaped request path (url.URL.EscapedPath) against
// a pattern whose "{name}" segments match any one non-empty segment
// ("{address}:verb" any segment ending in ":verb"). Segments are split on
// the escaped path's '/' and then unescaped, as net/http's ServeMux does, so
// "%2F" stays inside its segment (and is refused by Problems). Matching is
// exact otherwise: a trailing slash or another case is another path.
func MatchPath(pattern, escapedPath string) (PathMatch, bool) {
	ps := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	segs := strings.Split(strings.TrimPrefix(escapedPath, "/"), "/")
	if len(ps) != len(segs) {
		return PathMatch{}, false
	}
	m := PathMatch{Values: Values{}}
	for i, p := range ps {
		seg, err := url.PathUnescape(segs[i])
		if err != nil || seg == "" {
			return PathMatch{}, false
		}
		open, close := strings.IndexByte(p, '{'), strings.IndexByte(p, '}')
		switch {
		case open < 0:
			if p != seg {
				return PathMatch{}, false
			}
			m.Literals++
		case open == 0 && close == len(p)-1:
			m.Values[p[1:close]] = seg
		case open == 0 && close > 0 && strings.HasPrefix(p[close+1:], ":"):
			// A wildcard segment with a ":verb" suffix, e.g. {address}:x.
			verb := p[close+1:]
			if !strings.HasSuffix(seg, verb) || len(seg) == len(verb) {
				return PathMatch{}, false
			}
			m.Values[p[1:close]] = seg[:len(seg)-len(verb)]
			m.Literals++
		default:
			return PathMatch{}, false
		}
	}
	return m, true
}
