package proxy

import (
	"net/http/httptest"
	"testing"
)

// TestAdminAuth: probes are open; profiles and the admin API need the token;
// metrics need it when one is set.
func TestAdminAuth(t *testing.T) {
	for _, tc := range []struct {
		token, path, auth string
		want              int
	}{
		{"", "/healthz", "", 200},
		{"", "/readyz", "", 200},
		{"", "/metrics", "", 200},
		{"", "/debug/pprof/", "", 403},
		{"", "/debug/pprof/heap", "Bearer x", 403},
		{"", "/admin/usage", "", 403},
		{"s3cret", "/healthz", "", 200},
		{"s3cret", "/metrics", "", 401},
		{"s3cret", "/metrics", "Bearer wrong", 401},
		{"s3cret", "/metrics", "Bearer s3cret", 200},
		{"s3cret", "/debug/pprof/", "", 401},
		{"s3cret", "/debug/pprof/", "Bearer s3cret", 200},
		{"s3cret", "/admin/usage", "Bearer s3cret", 501},
	} {
		h := AdminHandler(AdminOptions{Token: tc.token})
		r := httptest.NewRequest("GET", tc.path, nil)
		if tc.auth != "" {
			r.Header.Set("Authorization", tc.auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("token %q, GET %s with %q: %d; want %d", tc.token, tc.path, tc.auth, w.Code, tc.want)
		}
	}
}
