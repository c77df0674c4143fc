package usage

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// AdminHandler serves the operator's GET /admin/usage: with ?key=ID, perKey
// (the limiter's report of a key's plan and budgets); otherwise every key's
// usage over a window (?from=&to=, unix seconds; default the last 24 hours),
// from the same counters the usage routes read: per key its totals and its
// requests by route and by status. Anonymous clients are counted together as
// "anonymous".
func (u *Meter) AdminHandler(perKey http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Has("key") && perKey != nil {
			perKey.ServeHTTP(w, r)
			return
		}
		now := u.opts.Now()
		to, from := now.Unix(), now.Add(-24*time.Hour).Unix()
		for name, dst := range map[string]*int64{"from": &from, "to": &to} {
			if s := q.Get(name); s != "" {
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil || n < 0 {
					writeJSON(w, http.StatusBadRequest, map[string]any{"error": name + " must be unix seconds"})
					return
				}
				*dst = n
			}
		}
		if to <= from {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "to must be after from"})
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
		out, err := u.fleet(ctx, from, to, now)
		if err != nil {
			writeJSON(w, http.StatusBadGateway, map[string]any{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, out)
	})
}

// keyUsage is one key's line of the fleet view.
type keyUsage struct {
	Key                string           `json:"key"`
	TotalRequests      int64            `json:"totalRequests"`
	SuccessRatePercent float64          `json:"successRatePercent"`
	InvalidRequests    int64            `json:"invalidRequests"`
	APICreditsUsed     int64            `json:"apiCreditsUsed"`
	APICreditsWasted   int64            `json:"apiCreditsWasted"`
	ByRoute            []routeUsage     `json:"byRoute"`
	ByStatus           map[string]int64 `json:"byStatus"`
	BySource           map[string]int64 `json:"bySource"`
}

type routeUsage struct {
	RequestType    string `json:"requestType"`
	RequestPath    string `json:"requestPath"`
	TotalRequests  int64  `json:"totalRequests"`
	APICreditsUsed int64  `json:"apiCreditsUsed"`
}

type fleetView struct {
	From  int64      `json:"from"`
	To    int64      `json:"to"`
	Level string     `json:"resolution"`
	Keys  []keyUsage `json:"keys"`
}

// fleet sums every key's counters over [from, to), read at the finest level
// that still holds the whole window.
func (u *Meter) fleet(ctx context.Context, from, to int64, now time.Time) (fleetView, error) {
	lv := dayLevel
	for _, l := range []level{minuteLevel, hourLevel} {
		if now.Unix()-from <= int64(levels[l].retention/time.Second) {
			lv = l
			break
		}
	}
	// Nothing older than the level keeps, nothing after now: bounded reads.
	step := levels[lv].seconds
	from = max(from, now.Unix()-int64(levels[lv].retention/time.Second))
	to = min(to, now.Unix()+step)
	from, to = from/step*step, max(from/step*step, (to+step-1)/step*step)
	out := fleetView{From: from, To: to, Level: map[level]string{minuteLevel: "minute", hourLevel: "hour", dayLevel: "day"}[lv], Keys: []keyUsage{}}
	ids, err := u.store.identities(ctx, from, to)
	if err != nil {
		return out, err
	}
	for _, id := range ids {
		bks, err := u.store.buckets(ctx, id, lv, from, to)
		if err != nil {
			return out, err
		}
		ku := keyUsage{Key: display(id), ByStatus: map[string]int64{}, BySource: map[string]int64{}, ByRoute: []routeUsage{}}
		total := sums{}
		routes := map[[2]string]*routeUsage{}
		for _, fields := range bks {
			for f, v := range fields {
				d, name, ok := parseField(f)
				if !ok {
					continue
				}
				total.add(name, v)
				rk := [2]string{d.typ, d.path}
				ru := routes[rk]
				if ru == nil {
					ru = &routeUsage{RequestType: d.typ, RequestPath: d.path}
					routes[rk] = ru
				}
				switch name {
				case "n":
					ru.TotalRequests += v
					ku.ByStatus[d.code] += v
					ku.BySource[d.src] += v
				case "cu":
					ru.APICreditsUsed += v
				}
			}
		}
		if total.n == 0 {
			continue
		}
		ku.TotalRequests, ku.InvalidRequests, ku.APICreditsUsed, ku.APICreditsWasted = total.n, total.inv, total.cu, total.cuw
		ku.SuccessRatePercent = round3(100 * float64(total.ok) / float64(total.n))
		for _, ru := range routes {
			ku.ByRoute = append(ku.ByRoute, *ru)
		}
		sort.Slice(ku.ByRoute, func(i, j int) bool {
			a, b := ku.ByRoute[i], ku.ByRoute[j]
			if a.TotalRequests != b.TotalRequests {
				return a.TotalRequests > b.TotalRequests
			}
			return a.RequestPath < b.RequestPath
		})
		out.Keys = append(out.Keys, ku)
	}
	sort.Slice(out.Keys, func(i, j int) bool { return out.Keys[i].Key < out.Keys[j].Key })
	return out, nil
}

// display shows an identity as the key's id: "acme", "sha256:<16 hex
// digits>", "anonymous".
func display(identity string) string {
	switch {
	case strings.HasPrefix(identity, "key:"):
		return identity[4:]
	case strings.HasPrefix(identity, "hash:") && len(identity) >= 21:
		return "sha256:" + identity[5:21]
	}
	return identity
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
