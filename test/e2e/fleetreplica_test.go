package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/pgtest"
)

// TestFleetReadReplica: a fleet's reader takes its route reads from a
// read replica (AVAEDGE_INDEX_READ_URL: a streaming hot standby of the
// shared index's database) while the writer, on the primary alone,
// follows the real node. Once the standby replayed what the writer
// stored, the reader answers the Data API, Metrics API and node reads
// with the writer's bytes, and its /readyz names the standby as where its
// reads go.
func TestFleetReadReplica(t *testing.T) {
	n := startNode(t)
	pg := pgtest.Start(t)
	shared := pg.Database(t)
	standby := pg.Standby(t)
	act := makeEVMActivity(t, n.URI+"/ext/bc/C/rpc")
	keys := bulkKeysFile(t)
	writer := startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": n.URI, "AVAEDGE_INDEX_URL": shared,
		"AVAEDGE_DATA_DIR": t.TempDir(), "AVAEDGE_KEYS_FILE": keys})
	waitWriter(t, []*edge{writer}, 30*time.Second)
	reader := startEdge(t, map[string]string{"AVAEDGE_LOCAL_NODE": n.URI, "AVAEDGE_INDEX_URL": shared,
		"AVAEDGE_INDEX_READ_URL": standby.SameDatabase(shared), "AVAEDGE_DATA_DIR": t.TempDir(), "AVAEDGE_KEYS_FILE": keys})
	if got := waitWriter(t, []*edge{writer, reader}, 10*time.Second); got != 0 {
		t.Fatalf("replica %d is the writer; want the first (on the primary alone)", got)
	}
	head := cHead(t, n.URI)
	waitStored(t, head, writer)
	waitIndexed(t, writer.URL, act)
	standby.CatchUp(t)
	waitStored(t, head, reader) // its next refresh reads the replayed heads
	waitIndexed(t, reader.URL, act)
	checkSameAnswers(t, n.URI, fleetReads(act), writer, reader)

	for _, c := range []struct {
		e       *edge
		reads   string
		replica bool
	}{{writer, hostOf(t, shared), false}, {reader, standby.Addr, true}} {
		st := indexStatus(t, c.e)
		if st.Reads != c.reads || st.Replica != c.replica || st.ReadError != "" {
			t.Errorf("%s /readyz detail.index %+v; want reads %s, replica %v, no read error", c.e.URL, st, c.reads, c.replica)
		}
	}
}

// indexStatus is /readyz's detail.index of e: where its route reads go.
func indexStatus(t *testing.T, e *edge) (st struct {
	Role      string `json:"role"`
	Reads     string `json:"reads"`
	Replica   bool   `json:"replica"`
	ReadError string `json:"read_error"`
}) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.Admin+"/readyz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		Detail struct {
			Index json.RawMessage `json:"index"`
		} `json:"detail"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(v.Detail.Index, &st); err != nil {
		t.Fatalf("/readyz detail.index %s: %v", v.Detail.Index, err)
	}
	return st
}

// hostOf is dbURL's host:port.
func hostOf(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
