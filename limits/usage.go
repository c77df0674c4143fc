package limits

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// Usage is a key's consumption and limits.
type Usage struct {
	KeyID       string  `json:"keyId"`
	Plan        string  `json:"plan"`
	MinuteUsed  int64   `json:"cuMinuteUsed"`
	DayUsed     int64   `json:"cuDayUsed"`
	MonthUsed   int64   `json:"cuMonthUsed"`
	CUPerMinute int64   `json:"cuPerMinute,omitempty"`
	CUPerDay    int64   `json:"cuPerDay,omitempty"`
	CUPerMonth  int64   `json:"cuPerMonth,omitempty"`
	RPS         float64 `json:"rps,omitempty"`
}

// ErrUnknownKey is returned by Usage for an id not in the keys file.
var ErrUnknownKey = errors.New("unknown key id")

// Usage returns a key's current usage by key id.
func (l *Limiter) Usage(ctx context.Context, keyID string) (Usage, error) {
	ks := l.keys.Load()
	k, ok := ks.byID[keyID]
	if !ok {
		return Usage{}, ErrUnknownKey
	}
	p := ks.file.Plans[k.Plan]
	u := Usage{KeyID: keyID, Plan: k.Plan, CUPerMinute: p.CUPerMinute, CUPerDay: p.CUPerDay, CUPerMonth: p.CUPerMonth, RPS: p.RPS}
	now := l.opts.Now()
	id := "key:" + keyID
	switch {
	case l.opts.Redis == nil:
		u.MinuteUsed, u.DayUsed, u.MonthUsed = l.mem.usage(id, now)
	case l.redisDown.Load():
		u.MinuteUsed, u.DayUsed, u.MonthUsed = l.backup.usage(id, now)
	default:
		// Units leased to replicas and not yet spent count as used.
		us, day, month, err := redisUsage(ctx, l.opts.Redis, l.opts.Prefix, id, now)
		if err != nil {
			return u, err
		}
		u.DayUsed, u.MonthUsed = day, month
		// Redis TIME and the local clock agree closely enough for a report.
		if tat := time.UnixMicro(us); p.CUPerMinute > 0 && tat.After(now) {
			u.MinuteUsed = min(p.CUPerMinute, int64(tat.Sub(now)/(time.Minute/time.Duration(p.CUPerMinute))))
		}
	}
	return u, nil
}

// UsageHandler serves GET ?key=<id> with the key's Usage as JSON.
func (l *Limiter) UsageHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		u, err := l.Usage(r.Context(), r.URL.Query().Get("key"))
		switch {
		case errors.Is(err, ErrUnknownKey):
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]string{"error": "no key with id " + strconv.Quote(r.URL.Query().Get("key"))})
		case err != nil:
			w.WriteHeader(http.StatusBadGateway)
			json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		default:
			json.NewEncoder(w).Encode(u)
		}
	})
}
