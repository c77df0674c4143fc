package local

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/catalog"
)

func route(t *testing.T, name string) *catalog.Route {
	t.Helper()
	for _, r := range catalog.Catalogue() {
		if r.Name == name {
			return &r
		}
	}
	t.Fatalf("no route %s", name)
	return nil
}

// TestAnswerUsesValues checks the edge's entry: a REST handler gets the
// values the edge validated and never the request's body, which the edge
// has consumed.
func TestAnswerUsesValues(t *testing.T) {
	var got catalog.Values
	h := New(Options{Handlers: map[string]catalog.Handler{
		"aggregateSignatures": func(w http.ResponseWriter, r *http.Request, v catalog.Values) {
			got = v
			w.WriteHeader(http.StatusCreated)
		},
	}})
	r := httptest.NewRequest(http.MethodPost, "/v1/signatureAggregator/fuji/aggregateSignatures", http.NoBody)
	v := catalog.Values{"network": "fuji", "message": "0x00", "quorumPercentage": "67"}
	w := httptest.NewRecorder()
	h.Answer(w, r, route(t, "aggregateSignatures"), v)
	if w.Code != http.StatusCreated || got["message"] != "0x00" || got["network"] != "fuji" {
		t.Fatalf("status %d, values %v", w.Code, got)
	}
}

// TestServeHTTPValidates checks the entry without the edge: the same
// catalogue rules and messages as the edge, then the handler with the
// validated values, defaults filled.
func TestServeHTTPValidates(t *testing.T) {
	var got catalog.Values
	h := New(Options{Handlers: map[string]catalog.Handler{
		"aggregateSignatures": func(w http.ResponseWriter, r *http.Request, v catalog.Values) {
			got = v
			w.WriteHeader(http.StatusCreated)
		},
	}})
	post := func(body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/v1/signatureAggregator/fuji/aggregateSignatures", strings.NewReader(body))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := post(`{"message":"00","quorumPercentage":0,"quorumPercentageBuffer":50}`)
	want := `{"message":["quorumPercentage + quorumPercentageBuffer must not be greater than 100"],"statusCode":400,"error":"Bad Request"}`
	if w.Code != http.StatusBadRequest || w.Body.String() != want {
		t.Fatalf("got %d %s; want 400 %s", w.Code, w.Body, want)
	}
	if got != nil {
		t.Fatal("handler ran for an invalid request")
	}
	if w := post(`{"message":"00"}`); w.Code != http.StatusCreated || got["quorumPercentage"] != "67" || got["quorumPercentageBuffer"] != "0" {
		t.Fatalf("got %d, values %v", w.Code, got)
	}
}
