package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestClientCall(t *testing.T) {
	var got atomic.Value // the last request body
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(string(b))
		var req struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		json.Unmarshal(b, &req)
		if r.URL.Path != "/ext/info" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "wrong path or type", http.StatusBadRequest)
			return
		}
		switch req.Method {
		case "info.getNetworkID":
			io.WriteString(w, `{"jsonrpc":"2.0","result":{"networkID":"12345"},"id":`+string(req.ID)+`}`)
		case "info.fail":
			io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"no such thing","data":null},"id":`+string(req.ID)+`}`)
		case "info.garbage":
			io.WriteString(w, `<html>`)
		case "info.big":
			io.WriteString(w, `{"jsonrpc":"2.0","result":"`+strings.Repeat("x", 2000)+`","id":1}`)
		default:
			http.Error(w, "down", http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	c := NewClient(srv.URL+"/", ClientOptions{MaxAnswerBytes: 1000})
	defer c.Close()
	ctx := context.Background()

	t.Run("result", func(t *testing.T) {
		var r struct {
			NetworkID string `json:"networkID"`
		}
		if err := c.Call(ctx, "/ext/info", "info.getNetworkID", nil, &r); err != nil || r.NetworkID != "12345" {
			t.Fatalf("got %q, %v; want 12345", r.NetworkID, err)
		}
		if body := got.Load().(string); !strings.Contains(body, `"params":{}`) || !strings.Contains(body, `"jsonrpc":"2.0"`) {
			t.Fatalf("request %s; want jsonrpc 2.0 and params {}", body)
		}
	})
	t.Run("error answer", func(t *testing.T) {
		err := c.Call(ctx, "/ext/info", "info.fail", nil, nil)
		var rpcErr *Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != CodeServer || rpcErr.Message != "no such thing" || errors.Is(err, ErrUnreachable) {
			t.Fatalf("got %v; want the node's *Error", err)
		}
	})
	t.Run("not 200", func(t *testing.T) {
		if err := c.Call(ctx, "/ext/info", "info.other", nil, nil); !errors.Is(err, ErrUnreachable) {
			t.Fatalf("got %v; want ErrUnreachable", err)
		}
	})
	t.Run("not JSON-RPC", func(t *testing.T) {
		err := c.Call(ctx, "/ext/info", "info.garbage", nil, nil)
		var rpcErr *Error
		if err == nil || errors.As(err, &rpcErr) || errors.Is(err, ErrUnreachable) {
			t.Fatalf("got %v; want a decoding error", err)
		}
	})
	t.Run("too long", func(t *testing.T) {
		if err := c.Call(ctx, "/ext/info", "info.big", nil, nil); err == nil || !strings.Contains(err.Error(), "over 1000 bytes") {
			t.Fatalf("got %v; want the answer refused as too long", err)
		}
	})
}

// TestClientBounded: a server that never answers holds a call for the
// timeout only, and a canceled context ends it at once.
func TestClientBounded(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := NewClient(srv.URL, ClientOptions{Timeout: 50 * time.Millisecond})
	defer c.Close()
	err := c.Call(context.Background(), "/ext/info", "info.getNetworkID", nil, nil)
	if !errors.Is(err, ErrUnreachable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v; want ErrUnreachable after the timeout", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Call(ctx, "/ext/info", "info.getNetworkID", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v; want context.Canceled", err)
	}
}

// TestClientKeepsConnections: calls in turn share one connection.
func TestClientKeepsConnections(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"jsonrpc":"2.0","result":{},"id":1}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := NewClient(srv.URL, ClientOptions{})
	defer c.Close()
	for range 20 {
		if err := c.Call(context.Background(), "/ext/info", "info.getNodeID", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("20 calls opened %d connections; want 1", n)
	}
}

// TestClientAnswerLimit: an answer over the limit is refused with an error
// that says so, neither read further nor decoded truncated; one of exactly
// the limit is decoded.
func TestClientAnswerLimit(t *testing.T) {
	var body atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, body.Load().(string)) }))
	defer srv.Close()
	c := NewClient(srv.URL, ClientOptions{MaxAnswerBytes: 1024})
	defer c.Close()
	answer := func(n int) string { // an answer of n bytes
		const head, tail = `{"jsonrpc":"2.0","id":1,"result":"`, `"}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	for _, tt := range []struct {
		size int
		err  string
	}{{1024, ""}, {1025, "the answer is over 1024 bytes"}, {10 << 20, "the answer is over 1024 bytes"}} {
		body.Store(answer(tt.size))
		var out json.RawMessage
		err := c.Call(context.Background(), "/", "m", nil, &out)
		if tt.err == "" && (err != nil || len(out) != tt.size-len(`{"jsonrpc":"2.0","id":1,"result":}`)) {
			t.Fatalf("answer of %d bytes: %d bytes of result, %v", tt.size, len(out), err)
		}
		if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Fatalf("answer of %d bytes: %v; want %q", tt.size, err, tt.err)
		}
	}
}

// FuzzDecodeAnswer decodes any JSON-RPC answer into the shapes the callers
// read from it. The seed corpus (testdata/fuzz) is avalanchego v1.14.2's own
// answers: a local node's after the transactions test/avalanchego issues.
func FuzzDecodeAnswer(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","result":{"height":"42"},"id":1}`))
	f.Add([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"not found","data":null},"id":1}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var result json.RawMessage
		if err := decodeAnswer("m", raw, &result); err == nil && len(result) > 0 && !json.Valid(result) {
			t.Fatalf("result %q is not JSON", result)
		}
		var height struct {
			Height string `json:"height"`
		}
		decodeAnswer("m", raw, &height)
		var block struct {
			Block json.RawMessage `json:"block"`
		}
		decodeAnswer("m", raw, &block)
		decodeAnswer("m", raw, nil)
	})
}
