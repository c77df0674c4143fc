package limits

import (
	"net/http"
	"strconv"
	"time"

	"github.com/avaedge/avaedge/internal/decimal"
)

// Charge is what one request costs.
type Charge struct {
	// Routes are the route names charged: one, or the calls of a batch.
	Routes []string
	// Cost is the total in compute units.
	Cost int64
	// At is when the request arrived, read by the caller from the same
	// clock as Options.Now (one clock reading per request). Zero means
	// Options.Now().
	At time.Time
	// AnyRoute says Routes are alternatives: the plan must allow one of
	// them. The edge admits a request so before reading a body that names
	// its route (a JSON-RPC endpoint's call).
	AnyRoute bool
	// Extra says the charge adds to a request already admitted: a request
	// whose body names its cost is admitted for a minimum before the body
	// is read, and the rest is charged once it is parsed. An extra charge
	// spends compute units only (the request was counted against the rate
	// when it was admitted) and is refused when they fall short; an extra
	// charge of zero cost checks the plan's routes and nothing else, and
	// its Decision has no headers (those of the admission stand).
	Extra bool
}

// Decision is a verdict and what the rate-limit headers say.
type Decision struct {
	// Status is 0 when allowed, else 401, 403 or 429.
	Status  int
	Message string
	// KeyID names the key ("anonymous" without one, "sha256:<16 hex
	// digits>" for a key avaedge does not manage); never the key itself.
	KeyID string
	// Identity is who the request is counted for (Client.Identity); empty
	// on a 401.
	Identity string
	Plan     string
	// Policy is the ratelimit-policy value, e.g. "8000;w=60, 2000000;w=86400".
	Policy           string
	Limit, Remaining int64
	// RetryAfter and ResetAfter are set on a 429.
	RetryAfter, ResetAfter time.Duration
	// CacheBypass says the client's plan lets a request's own
	// Cache-Control: no-cache (or Pragma: no-cache) skip the cache's read
	// (Plan.CacheBypass).
	CacheBypass bool
}

// Allowed reports whether the request may proceed.
func (d Decision) Allowed() bool { return d.Status == 0 }

// HasHeaders reports whether WriteHeaders writes any header.
func (d Decision) HasHeaders() bool { return d.Policy != "" }

// WriteHeaders sets the rate-limit headers: ratelimit-policy, ratelimit-limit
// and ratelimit-remaining on every answer with a plan, and retry-after and
// ratelimit-reset (whole seconds, rounded up) on a 429. The names are set
// lower-case, as the real Data API sends them (HTTP/2 lower-cases anyway;
// on HTTP/1.1 this keeps the bytes identical).
func (d Decision) WriteHeaders(h http.Header) {
	if !d.HasHeaders() {
		return
	}
	vals := make([]string, 5) // one allocation for every value
	vals[0] = d.Policy
	vals[1] = decimal.Itoa(d.Limit)
	vals[2] = decimal.Itoa(max(0, d.Remaining))
	h["ratelimit-policy"] = vals[0:1:1]
	h["ratelimit-limit"] = vals[1:2:2]
	h["ratelimit-remaining"] = vals[2:3:3]
	if d.Status == http.StatusTooManyRequests {
		vals[3], vals[4] = seconds(d.RetryAfter), seconds(d.ResetAfter)
		h["retry-after"] = vals[3:4:4]
		h["ratelimit-reset"] = vals[4:5:5]
	}
}

func seconds(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(1, s), 10)
}

func limitName(f string) string {
	switch f {
	case "rate":
		return "requests per second"
	case "minute":
		return "compute units per minute"
	case "day":
		return "compute units per day"
	}
	return "compute units per month"
}

// fill sets the headers' numbers from the most constraining limit.
func fill(d *Decision, p *Plan, res result) {
	best := 2.0
	consider := func(limit, remaining int64) {
		if frac := float64(remaining) / float64(limit); frac < best {
			best, d.Limit, d.Remaining = frac, limit, remaining
		}
	}
	if p.CUPerMinute > 0 {
		left := res.minuteLeft
		if left < 0 {
			left = p.CUPerMinute
		}
		consider(p.CUPerMinute, min(left, p.CUPerMinute))
	}
	if p.CUPerDay > 0 {
		consider(p.CUPerDay, p.CUPerDay-res.dayUsed)
	}
	if p.CUPerMonth > 0 {
		consider(p.CUPerMonth, p.CUPerMonth-res.monthUsed)
	}
	if p.RPS > 0 {
		left := res.rateLeft
		if left < 0 {
			left = int64(p.Burst)
		}
		consider(int64(p.Burst), min(left, int64(p.Burst)))
	}
}
