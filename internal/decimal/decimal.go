// Package decimal formats integers for header values without allocating
// for the small ones that most answers carry (Age, Content-Length,
// rate-limit numbers).
package decimal

import "strconv"

// small holds the decimal strings of 0..8191.
var small = func() []string {
	out := make([]string, 1<<13)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}()

// Itoa returns the decimal string of n; for 0 <= n < 8192 without allocating.
func Itoa(n int64) string {
	if n >= 0 && n < int64(len(small)) {
		return small[n]
	}
	return strconv.FormatInt(n, 10)
}
