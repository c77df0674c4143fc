package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// nodeProxy stands between one replica and the followed node: it counts
// the requests the replica sends the node (the node's request log, per
// replica), and can hold them or slow them down.
type nodeProxy struct {
	URL string

	// mu guards counts, hold and delay.
	mu     sync.Mutex
	counts map[string]int // requests by path
	hold   chan struct{}  // requests wait until it is closed; nil: none wait
	delay  time.Duration  // added to each request once it may pass
}

// newNodeProxy starts a reverse proxy to the node at uri, stopped when the
// test ends.
func newNodeProxy(t *testing.T, uri string) *nodeProxy {
	t.Helper()
	target, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	p := &nodeProxy{counts: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = log.New(io.Discard, "", 0) // a killed replica's requests end in errors, expected
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.counts[r.URL.Path]++
		hold, delay := p.hold, p.delay
		p.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		p.release(0)
		srv.CloseClientConnections()
		srv.Close()
	})
	p.URL = srv.URL
	return p
}

// take returns the requests counted since the last take, by path, and
// starts counting afresh.
func (p *nodeProxy) take() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counts
	p.counts = map[string]int{}
	return c
}

// peek returns the requests counted since the last take.
func (p *nodeProxy) peek() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.counts)
}

// stall makes the replica's requests wait until release.
func (p *nodeProxy) stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hold == nil {
		p.hold = make(chan struct{})
	}
}

// release lets the waiting requests and the next ones through, each after
// delay.
func (p *nodeProxy) release(delay time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hold != nil {
		close(p.hold)
		p.hold = nil
	}
	p.delay = delay
}

// sum counts the requests of counts whose path keep accepts.
func sum(counts map[string]int, keep func(path string) bool) int {
	n := 0
	for p, c := range counts {
		if keep(p) {
			n += c
		}
	}
	return n
}

// readiness is what /readyz says of a replica's part in the fleet.
type readiness struct {
	Status string `json:"status"`
	Detail struct {
		Index struct {
			Role   string `json:"role"`
			Holder string `json:"holder"`
		} `json:"index"`
	} `json:"detail"`
}

// fleetRole reads e's role in the fleet from /readyz ("" when e does not
// answer).
func fleetRole(e *edge) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.Admin+"/readyz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var r readiness
	if json.NewDecoder(resp.Body).Decode(&r) != nil {
		return ""
	}
	return r.Detail.Index.Role
}

// waitWriter waits until exactly one of replicas (nil ones skipped) says
// it is the writer and returns its index.
func waitWriter(t *testing.T, replicas []*edge, within time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var writers []int
		var roles []string
		for i, e := range replicas {
			if e == nil {
				roles = append(roles, "-")
				continue
			}
			r := fleetRole(e)
			roles = append(roles, r)
			if r == "writer" {
				writers = append(writers, i)
			}
		}
		if len(writers) == 1 {
			return writers[0]
		}
		if len(writers) > 1 {
			t.Fatalf("replicas %v all say they are the writer (roles %v)", writers, roles)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no replica became the writer within %s (roles %v)", within, roles)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cHead returns the C-Chain's height on the node at uri.
func cHead(t *testing.T, uri string) uint64 {
	t.Helper()
	var h string
	if err := rawResult(uri+"/ext/bc/C/rpc", "eth_blockNumber", "[]", &h); err != nil {
		t.Fatal(err)
	}
	var n uint64
	if _, err := fmt.Sscanf(h, "0x%x", &n); err != nil {
		t.Fatalf("eth_blockNumber %q: %v", h, err)
	}
	return n
}

// storedHead returns the C-Chain's newest block in the index e reads, -1
// when it holds none.
func storedHead(t *testing.T, e *edge) int64 {
	t.Helper()
	r := do(t, "GET", e.URL+"/v1/chains/43112/blocks?pageSize=1", nil, nil)
	var v struct {
		Blocks []struct {
			BlockNumber string `json:"blockNumber"`
		} `json:"blocks"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &v) != nil {
		t.Fatalf("the newest block: %s", r)
	}
	if len(v.Blocks) == 0 {
		return -1
	}
	var n int64
	fmt.Sscan(v.Blocks[0].BlockNumber, &n)
	return n
}

// waitStored waits until each replica's index holds the C-Chain up to
// head.
func waitStored(t *testing.T, head uint64, replicas ...*edge) {
	t.Helper()
	for _, e := range replicas {
		if e != nil {
			waitFor(t, e.URL+"/v1/chains/43112/blocks?pageSize=1", fmt.Sprintf(`"blockNumber":"%d"`, head))
		}
	}
}

// isCChain keeps the C-Chain's paths: those the EVM index's follower
// reads.
func isCChain(path string) bool { return strings.HasPrefix(path, "/ext/bc/C/") }
