package hostile

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowConfig gives the public listener short, known timeouts.
const slowConfig = `
server:
  body_read_timeout: 2s
  min_body_rate: 100
  write_timeout: 3s
`

const (
	bodyReadTimeout = 2 * time.Second
	writeTimeout    = 3 * time.Second
)

// TestSlowBodies (finding 7): a client that opens 200 connections, sends
// headers, then a body at 1 byte/s on each, is cut off when
// server.body_read_timeout ends, none of its requests reaches the upstream,
// and other clients' p99 latency stays within 2x of the idle p99 meanwhile.
func TestSlowBodies(t *testing.T) {
	const (
		conns    = 200
		bodySize = 1000
		samples  = 400
	)
	up := NewUpstream(t, nil)
	edge := StartEdge(t, EdgeOptions{Env: proxyEnv(up), Config: slowConfig, Keys: keysFile(0, true)})
	client := &http.Client{Timeout: 5 * time.Second}
	ctx := context.Background()
	hit := edge.URL + "/v1/chains/43114/blocks/1"
	if st, _, err := timedGet(ctx, client, hit, ""); err != nil || st != 200 {
		t.Fatalf("warm-up GET: %d %v", st, err)
	}
	// Samples are paced (one every 3ms, 1.2s in all) so the one taken
	// during the attack spans its bytes and ends before the cut-off.
	measure := func() []time.Duration {
		t.Helper()
		var took []time.Duration
		pace := time.NewTicker(3 * time.Millisecond)
		defer pace.Stop()
		for i := 0; i < samples; i++ {
			<-pace.C
			st, d, err := timedGet(ctx, client, hit, "")
			if err != nil || st != 200 {
				t.Fatalf("GET during the measurement: %d %v", st, err)
			}
			took = append(took, d)
		}
		return took
	}
	measure()                                 // settle
	infoCalls := up.CallsTo("POST /ext/info") // the edge's own info.getNetworkID at start

	// This machine is shared, so one p99 can be another process's doing:
	// an attack round compares its p99 with the idle p99 just before and
	// just after it, and up to three rounds are run for one within 2x. The
	// cut-off is checked in every round.
	const rounds = 3
	for round := 1; ; round++ {
		idleBefore := measure()
		during, latest, statuses := slowAttack(t, edge.URL, conns, bodySize, func() []time.Duration { return measure() })
		idleAfter := measure()
		idle := max(quantile(idleBefore, .99), quantile(idleAfter, .99))
		p99 := quantile(during, .99)
		t.Logf("round %d: %d slow bodies at 1 byte/s closed by the edge, the last %v after its headers; answers: %v", round, conns, latest.Round(time.Millisecond), statuses)
		t.Logf("round %d: other clients (%d paced cache hits): idle p50 %s p99 %s before, %s after; during the attack p50 %s p99 %s",
			round, samples, ms(quantile(idleBefore, .5)), ms(quantile(idleBefore, .99)), ms(quantile(idleAfter, .99)), ms(quantile(during, .5)), ms(p99))
		if p99 <= 2*idle {
			break
		}
		if round == rounds {
			t.Errorf("p99 during the attack %s; want at most 2x the idle p99 %s (%d rounds)", ms(p99), ms(idle), rounds)
			break
		}
	}
	if n := up.CallsTo("POST /ext/info") - infoCalls; n != 0 {
		t.Errorf("upstream saw %d of the slow requests; want 0", n)
	}
}

// slowAttack opens conns connections to base, sends a POST's headers on
// each, then its body at 1 byte/s, runs measure once all are open, and
// fails the test unless the edge closes every connection within
// bodyReadTimeout (+1s) of its headers. It returns what measure returned,
// the latest close and the answers' status lines.
func slowAttack(t *testing.T, base string, conns, size int, measure func() []time.Duration) ([]time.Duration, time.Duration, map[string]int) {
	t.Helper()
	type result struct {
		status string
		took   time.Duration // from the end of the headers to the close
		err    error
	}
	results := make([]result, conns)
	var wg sync.WaitGroup
	ready := make(chan struct{}, conns)
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each connection sends its bytes at its own offset within the
			// second, as independent attackers would.
			offset := time.Duration(i) * time.Second / time.Duration(conns)
			results[i].status, results[i].took, results[i].err = slowPost(base, size, offset, time.Second, 2*bodyReadTimeout+2*time.Second, ready)
		}()
	}
	for i := 0; i < conns; i++ {
		<-ready
	}
	during := measure()
	wg.Wait()
	statuses := map[string]int{}
	var latest time.Duration
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("slow connection %d: %v", i, r.err)
		}
		statuses[r.status]++
		latest = max(latest, r.took)
		if r.took < bodyReadTimeout-100*time.Millisecond || r.took > bodyReadTimeout+time.Second {
			t.Errorf("slow connection %d closed %v after its headers; want within [%v, %v]", i, r.took, bodyReadTimeout-100*time.Millisecond, bodyReadTimeout+time.Second)
		}
	}
	return during, latest, statuses
}

// slowPost opens a connection, sends a POST's headers announcing size
// bytes, then one byte after offset and every gap after that until the edge
// closes the connection (or limit passes). It returns the status line it got ("" when none) and the
// time from the end of the headers to the close. ready is told once the
// headers are sent.
func slowPost(base string, size int, offset, gap, limit time.Duration, ready chan<- struct{}) (string, time.Duration, error) {
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		ready <- struct{}{}
		return "", 0, err
	}
	defer c.Close()
	_, err = fmt.Fprintf(c, "POST /ext/info HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", size)
	start := time.Now()
	ready <- struct{}{}
	if err != nil {
		return "", 0, err
	}
	closed := make(chan error, 1)
	var status string
	go func() {
		c.SetReadDeadline(start.Add(limit))
		br := bufio.NewReader(c)
		line, err := br.ReadString('\n')
		status = strings.TrimSpace(line)
		if err == nil {
			_, err = io.Copy(io.Discard, br) // nil at the edge's close
		}
		if err == io.EOF || err != nil && isReset(err) {
			err = nil // closed by the edge (reset when a byte it never read was pending)
		}
		closed <- err
	}()
	next := time.NewTimer(offset)
	defer next.Stop()
	for sent := 0; ; {
		select {
		case err := <-closed:
			if err != nil {
				return status, time.Since(start), fmt.Errorf("waiting for the edge to close: %w", err)
			}
			return status, time.Since(start), nil
		case <-next.C:
			if sent < size {
				c.Write([]byte{' '}) // an error here shows as the close
				sent++
			}
			next.Reset(gap)
		}
	}
}

// TestStalledReader (finding 7): a client that asks for a large answer and
// never reads it loses the connection when server.write_timeout ends,
// instead of holding it (and a goroutine of the edge) forever.
func TestStalledReader(t *testing.T) {
	const size = 24 << 20 // more than loopback's socket buffers hold
	big := []byte(`{"blob":"` + strings.Repeat("a", size-11) + `"}`)
	up := NewUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(big)
	}))
	// An in-process tier large enough to keep the answer, so the stalled
	// request is a hit and its timing does not depend on the upstream's.
	edge := StartEdge(t, EdgeOptions{Env: proxyEnv(up), Config: slowConfig + "cache:\n  max_bytes: 268435456\n", Keys: keysFile(0, true)})
	url := edge.URL + "/v1/chains/43114/blocks/2"

	// A client that reads gets the whole answer.
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != size {
		t.Fatalf("reading client: %d of %d bytes, %v", n, size, err)
	}

	c, err := net.Dial("tcp", strings.TrimPrefix(edge.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "GET /v1/chains/43114/blocks/2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	time.Sleep(writeTimeout + time.Second) // read nothing
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	start := time.Now()
	n, err = io.Copy(io.Discard, c)
	if err != nil && !isReset(err) {
		t.Fatalf("reading after the stall: %v after %d bytes", err, n)
	}
	if n >= size {
		t.Fatalf("read %d bytes after stalling for longer than write_timeout; want the answer cut off", n)
	}
	resp, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Cache-Status"); got != "HIT" {
		t.Fatalf("X-Cache-Status %q; want HIT (the stalled request must have been a hit)", got)
	}
	if up.CallsTo("GET /v1/chains/43114/blocks/2") != 1 {
		t.Fatalf("upstream calls for the block: %d; want 1", up.CallsTo("GET /v1/chains/43114/blocks/2"))
	}
	t.Logf("stalled reader: connection closed by the edge; %d of %d bytes had been sent (drained in %v)", n, size, time.Since(start).Round(time.Millisecond))
}

func isReset(err error) bool { return strings.Contains(err.Error(), "connection reset") }
