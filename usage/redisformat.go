package usage

import (
	"strconv"
	"strings"
)

// How the Redis store writes log lines and counters.

// member is a log line as a member of its key's sorted set: its time in 16
// digits (unix ms), a space, its id, a space and its LogsFormat object.
// Every member has the score 0, so the set is ordered by these bytes, which
// is the order of newer reversed (ids hold no byte below '!', so an id that
// is a prefix of another sorts first, as in Go): a page is one
// ZREVRANGEBYLEX from the token's line, whatever the log's length.
func member(l *logLine) string {
	b := make([]byte, 0, 18+len(l.ID)+len(l.JSON))
	b = appendLexTime(b, l.At)
	b = append(b, ' ')
	b = append(b, l.ID...)
	b = append(b, ' ')
	b = append(b, l.JSON...)
	return string(b)
}

// lexTime is t (unix ms, 0 to maxLogTime) in 16 digits.
func lexTime(t int64) string { return string(appendLexTime(nil, t)) }

func appendLexTime(b []byte, t int64) []byte {
	t = min(max(t, 0), maxLogTime)
	var d [16]byte
	for i := len(d) - 1; i >= 0; i-- {
		d[i] = byte('0' + t%10)
		t /= 10
	}
	return append(b, d[:]...)
}

// parseMember reads a member back into its line.
func parseMember(s string) (logLine, bool) {
	if len(s) < 18 || s[16] != ' ' {
		return logLine{}, false
	}
	at, err := strconv.ParseInt(s[:16], 10, 64)
	id, js, ok := strings.Cut(s[17:], " ")
	if err != nil || !ok || id == "" || at < 0 {
		return logLine{}, false
	}
	return logLine{At: at, ID: id, JSON: js}, true
}

// packCounters groups a bucket's counter fields ("<dims>\x1f<name>") by
// dims, as field/value pairs for the script: the dims and its counters as
// "name=value,...", which the script adds to what the field holds.
func packCounters(f map[string]int64) []any {
	byDims := map[string][]byte{}
	for k, v := range f {
		i := strings.LastIndex(k, sep)
		if i < 0 {
			continue
		}
		d, name := k[:i], k[i+len(sep):]
		b := byDims[d]
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = append(b, name...)
		b = append(b, '=')
		byDims[d] = strconv.AppendInt(b, v, 10)
	}
	out := make([]any, 0, 2*len(byDims))
	for d, b := range byDims {
		out = append(out, d, string(b))
	}
	return out
}

// unpackCounters adds a stored counter field to f as "<dims>\x1f<name>"
// fields: a dims holding "name=value,...", or a single counter written so
// before packing. Anything else is ignored.
func unpackCounters(field, value string, f map[string]int64) {
	if strings.Count(field, sep) != 6 { // "<dims>\x1f<name>": one integer
		if n, err := strconv.ParseInt(value, 10, 64); err == nil {
			f[field] += n
		}
		return
	}
	for value != "" {
		var pair string
		pair, value, _ = strings.Cut(value, ",")
		name, v, ok := strings.Cut(pair, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if ok && err == nil && name != "" {
			f[field+sep+name] += n
		}
	}
}
