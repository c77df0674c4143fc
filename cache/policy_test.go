package cache

import (
	"net/http"
	"testing"
	"time"
)

func TestDefaultPolicy(t *testing.T) {
	tests := []struct {
		class Class
		want  Policy
	}{
		{Immutable, Policy{24 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}},
		{Short, Policy{2 * time.Second, 2 * time.Second, 10 * time.Minute}},
		{Medium, Policy{30 * time.Second, 30 * time.Second, time.Hour}},
		{Metrics, Policy{5 * time.Minute, 5 * time.Minute, 6 * time.Hour}},
		{Never, Policy{}},
		{"unknown", Policy{}},
	}
	for _, tt := range tests {
		t.Run(string(tt.class), func(t *testing.T) {
			if got := DefaultPolicy(tt.class); got != tt.want {
				t.Fatalf("DefaultPolicy(%s) = %+v; want %+v", tt.class, got, tt.want)
			}
		})
	}
}

func TestWindows(t *testing.T) {
	medium, immutable := DefaultPolicy(Medium), DefaultPolicy(Immutable)
	cc := func(v ...string) http.Header {
		h := http.Header{}
		for i := 0; i+1 < len(v); i += 2 {
			h.Add(v[i], v[i+1])
		}
		return h
	}
	tests := []struct {
		name                   string
		p                      Policy
		status                 int
		h                      http.Header
		token                  bool
		fresh, stale, errorFor time.Duration
		store                  bool
	}{
		{"200", medium, 200, nil, false, 30 * time.Second, 30 * time.Second, time.Hour, true},
		{"500", medium, 500, nil, false, 0, 0, 0, false},
		{"400", medium, 400, nil, false, 0, 0, 0, false},
		{"404 negative", medium, 404, nil, false, NegativeTTL, 0, 0, true},
		{"404 never class", DefaultPolicy(Never), 404, nil, false, 0, 0, 0, false},
		{"404 no-store", medium, 404, cc("Cache-Control", "no-store"), false, 0, 0, 0, false},
		{"404 short class", Policy{Fresh: 2 * time.Second}, 404, nil, false, 2 * time.Second, 0, 0, true},
		{"never", DefaultPolicy(Never), 200, nil, false, 0, 0, 0, false},
		{"no-store", medium, 200, cc("Cache-Control", "no-store"), false, 0, 0, 0, false},
		{"private", medium, 200, cc("Cache-Control", "private, max-age=60"), false, 0, 0, 0, false},
		{"no-cache", medium, 200, cc("Cache-Control", `no-cache="set-cookie"`), false, 0, 0, 0, false},
		{"NO-STORE upper case", medium, 200, cc("Cache-Control", "NO-STORE"), false, 0, 0, 0, false},
		{"second header line", medium, 200, cc("Cache-Control", "public", "Cache-Control", "no-store"), false, 0, 0, 0, false},
		{"max-age caps", medium, 200, cc("Cache-Control", "public, max-age=7"), false, 7 * time.Second, 30 * time.Second, time.Hour, true},
		{"max-age above class", medium, 200, cc("Cache-Control", "max-age=3600"), false, 30 * time.Second, 30 * time.Second, time.Hour, true},
		{"max-age=0", medium, 200, cc("Cache-Control", "max-age=0"), false, 0, 0, 0, false},
		{"max-age minus Age", medium, 200, cc("Cache-Control", "max-age=10", "Age", "4"), false, 6 * time.Second, 30 * time.Second, time.Hour, true},
		{"s-maxage wins", medium, 200, cc("Cache-Control", "max-age=1, s-maxage=9"), false, 9 * time.Second, 30 * time.Second, time.Hour, true},
		{"bad max-age ignored", medium, 200, cc("Cache-Control", "max-age=soon"), false, 30 * time.Second, 30 * time.Second, time.Hour, true},
		{"must-revalidate", medium, 200, cc("Cache-Control", "max-age=5, must-revalidate"), false, 5 * time.Second, 0, 0, true},
		{"page token immutable", immutable, 200, nil, true, 24 * time.Hour, 0, 0, true},
		{"page token medium", medium, 200, nil, true, 30 * time.Second, 30 * time.Second, time.Hour, true},
		{"page token long error", Policy{time.Hour, time.Hour, 48 * time.Hour}, 200, nil, true, time.Hour, time.Hour, 23 * time.Hour, true},
		{"error raised to stale", Policy{time.Minute, time.Hour, time.Second}, 200, nil, false, time.Minute, time.Hour, time.Hour, true},
		{"set-cookie", medium, 200, cc("Set-Cookie", "session=1; HttpOnly"), false, 0, 0, 0, false},
		{"404 set-cookie", medium, 404, cc("Set-Cookie", "a=b"), false, 0, 0, 0, false},
		{"vary accept-language", medium, 200, cc("Vary", "Accept-Language"), false, 0, 0, 0, false},
		{"vary star", medium, 200, cc("Vary", "*"), false, 0, 0, 0, false},
		{"vary list", medium, 200, cc("Vary", "accept-encoding, Accept-Language"), false, 0, 0, 0, false},
		{"vary second line", medium, 200, cc("Vary", "Accept-Encoding", "Vary", "Authorization"), false, 0, 0, 0, false},
		{"vary accept-encoding", medium, 200, cc("Vary", "Accept-Encoding"), false, 30 * time.Second, 30 * time.Second, time.Hour, true},
		{"vary accept-encoding any case", medium, 200, cc("Vary", " accept-encoding ,"), false, 30 * time.Second, 30 * time.Second, time.Hour, true},
		{"vary cors", medium, 200, cc("Vary", "Origin", "Vary", "Access-Control-Request-Method, access-control-request-headers"), false, 30 * time.Second, 30 * time.Second, time.Hour, true},
		{"vary cors and more", medium, 200, cc("Vary", "Origin, Cookie"), false, 0, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh, stale, errorFor, store := Windows(tt.p, tt.status, tt.h, tt.token)
			if fresh != tt.fresh || stale != tt.stale || errorFor != tt.errorFor || store != tt.store {
				t.Fatalf("Windows = %v, %v, %v, %v; want %v, %v, %v, %v",
					fresh, stale, errorFor, store, tt.fresh, tt.stale, tt.errorFor, tt.store)
			}
			if tt.token && fresh+max(stale, errorFor) > PageTokenLifetime {
				t.Fatalf("a page with a token is kept %v; longer than the token lives", fresh+max(stale, errorFor))
			}
		})
	}
}

// TestWindowsSuccessStatuses: a success is stored whatever 2xx the service
// answers with (the signature aggregator's 201), but never a partial 206.
func TestWindowsSuccessStatuses(t *testing.T) {
	p := DefaultPolicy(Short)
	for status, want := range map[int]bool{200: true, 201: true, 203: true, 206: false, 302: false, 400: false, 500: false} {
		if _, _, _, store := Windows(p, status, http.Header{}, false); store != want {
			t.Errorf("status %d: store = %v; want %v", status, store, want)
		}
	}
}
