package apireq

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/avaedge/avaedge/catalog"
)

// TestService checks the one writer of the local REST APIs: each kind of
// answer and of error, written in the service's format.
func TestService(t *testing.T) {
	errSource := errors.New("the source failed")
	var nilErr *Error
	classify := func(err error) *Error {
		if errors.Is(err, errSource) {
			return &Error{Status: http.StatusServiceUnavailable, Msgs: []string{"try later"}}
		}
		return nil
	}
	tests := []struct {
		name       string
		svc        Service
		fn         Func
		wantStatus int
		wantBody   string
		wantHeader string
	}{
		{"body", Service{}, func(*Req) (any, error) { return map[string]int{"n": 1}, nil }, 200, `{"n":1}`, ""},
		{"raw", Service{}, func(*Req) (any, error) { return json.RawMessage(`{"raw":true}`), nil }, 200, `{"raw":true}`, ""},
		{"answer", Service{}, func(*Req) (any, error) {
			return &Answer{Status: http.StatusCreated, Header: http.Header{"X-Test": {"1"}}, Body: []int{1}}, nil
		}, 201, `[1]`, "1"},
		{"typed nil error", Service{}, func(*Req) (any, error) { return "ok", nilErr }, 200, `"ok"`, ""},
		{"bad request", Service{}, func(*Req) (any, error) { return nil, BadRequest("a", "b") }, 400,
			`{"message":["a","b"],"statusCode":400,"error":"Bad Request"}`, ""},
		{"not found", Service{}, func(*Req) (any, error) { return nil, NotFound("gone") }, 404,
			`{"message":"gone","statusCode":404,"error":"Not Found"}`, ""},
		{"not found, lists", Service{Lists: true}, func(*Req) (any, error) { return nil, NotFound("gone") }, 404,
			`{"message":["gone"],"statusCode":404,"error":"Not Found"}`, ""},
		{"classified", Service{Classify: classify}, func(*Req) (any, error) { return nil, errSource }, 503,
			`{"message":"try later","statusCode":503,"error":"Service Unavailable"}`, ""},
		{"internal", Service{}, func(*Req) (any, error) { return nil, errSource }, 500,
			`{"message":"the local index could not be read","statusCode":500,"error":"Internal Server Error"}`, ""},
		{"failures collected", Service{}, func(q *Req) (any, error) { q.Fail("x is bad"); return "ignored", nil }, 400,
			`{"message":["x is bad"],"statusCode":400,"error":"Bad Request"}`, ""},
		{"network name", Service{NetworkNames: true}, func(*Req) (any, error) { return "ignored", nil }, 400,
			`{"message":["network must be one of the following values: mainnet, fuji, testnet"],"statusCode":400,"error":"Bad Request"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			tt.svc.Handle("op", tt.fn)(rec, httptest.NewRequest(http.MethodGet, "/", nil), catalog.Values{"network": "devnet"})
			if rec.Code != tt.wantStatus || rec.Body.String() != tt.wantBody {
				t.Errorf("got %d %s; want %d %s", rec.Code, rec.Body, tt.wantStatus, tt.wantBody)
			}
			if got := rec.Header().Get("X-Test"); got != tt.wantHeader {
				t.Errorf("X-Test = %q; want %q", got, tt.wantHeader)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}
