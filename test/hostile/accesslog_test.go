package hostile

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestAccessLogStalled: while nothing reads the edge's stderr (a full pipe:
// a stopped log shipper, a hung journald), requests are still answered; the
// access log lines that do not fit in its queue are dropped, counted in
// avaedge_access_log_dropped_total and said in the next line written; and
// on SIGTERM every line queued is written before the process exits.
func TestAccessLogStalled(t *testing.T) {
	up := NewUpstream(t, nil)
	edge := StartEdge(t, EdgeOptions{Env: map[string]string{"AVAEDGE_DATA_UPSTREAM": up.URL}, Keys: keysFile(0, true)})
	url := edge.URL + "/v1/chains/43114/blocks?pageSize=10"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 10 * time.Second}
	ctx := context.Background()
	var sent atomic.Int64
	get := func() bool {
		st, _, err := timedGet(ctx, client, url, "")
		sent.Add(1)
		if err != nil || st != http.StatusOK {
			t.Errorf("request %d: %d %v", sent.Load(), st, err)
			return false
		}
		return true
	}

	release := edge.HoldLog(t)
	// About 2 MB of lines fill the pipe, the line being written and the
	// queue; send up to 40,000 requests, 8 at a time, until some are dropped.
	for batch := 0; edge.Metric(t, "avaedge_access_log_dropped_total") == 0; batch++ {
		if batch == 40 {
			t.Fatalf("no line dropped after %d requests with stderr unread", sent.Load())
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 125 && get(); i++ {
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d requests answered with stderr unread; %v lines dropped", sent.Load(), edge.Metric(t, "avaedge_access_log_dropped_total"))

	release()
	// The first line queued once the writer is through says the drops.
	for {
		before := edge.Metric(t, "avaedge_access_log_dropped_total")
		if !get() {
			t.FailNow()
		}
		if edge.Metric(t, "avaedge_access_log_dropped_total") == before {
			break
		}
	}
	dropped := edge.Metric(t, "avaedge_access_log_dropped_total")
	edge.Stop(t)

	lines, said := 0, 0.0
	sc := bufio.NewScanner(strings.NewReader(edge.Log()))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var m struct {
			Msg     string
			Path    string
			Dropped float64
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Msg != "request" {
			continue
		}
		if m.Path != "/v1/chains/43114/blocks" {
			t.Fatalf("line %s", sc.Text())
		}
		lines++
		said += m.Dropped
	}
	if int64(lines)+int64(dropped) != sent.Load() || said != dropped {
		t.Fatalf("%d requests: %d lines written, %v dropped, %v said dropped; want every request written or counted, and the drops said",
			sent.Load(), lines, dropped, said)
	}
}
