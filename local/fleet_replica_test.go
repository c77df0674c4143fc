package local

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/pgtest"
)

// TestFleetReadReplica: two replicas share the index in PostgreSQL and
// read it from a streaming hot standby (BuildOptions.IndexReadURL): the
// writer indexes through the primary (the standby refuses writes), and
// once the standby replayed it the reader answers the Data API and
// Metrics routes as the writer does. /readyz's status names the standby
// as where the reads go; with the standby stopped the reader's route reads
// fail and its status says why, while the primary still holds the lease.
func TestFleetReadReplica(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.Database(t)
	standby := srv.Standby(t)
	c, build := fleetChain(t, url, standby.SameDatabase(url))
	a, b := build(), build()
	writer, reader := roles(t, a, b)
	for _, h := range []*Handler{writer, reader} {
		if st, _ := h.IndexLease(); st.Reads != standby.Addr || !st.Replica {
			t.Fatalf("IndexLease = %+v; want the reads on the standby %s", st, standby.Addr)
		}
	}
	get := func(h *Handler, path string) string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return strconv.Itoa(rec.Code) + " " + rec.Body.String()
	}
	head := c.Seed().Head
	waitFor(t, 30*time.Second, "the writer to index the seed's head", func() bool {
		n, ok := writer.wired.engine.Head(99998)
		return ok && n >= head
	})
	standby.CatchUp(t)
	routes := []string{
		"/v1/chains/99998/blocks?pageSize=5",
		"/v1/chains/99998/transactions?pageSize=5",
		"/v2/chains/99998/metrics/txCount?timeInterval=hour&pageSize=5",
	}
	for _, path := range routes {
		waitFor(t, 10*time.Second, "the reader to answer "+path+" as the writer", func() bool {
			w := get(writer, path)
			return strings.HasPrefix(w, "200 ") && w == get(reader, path)
		})
	}
	if w := get(writer, routes[0]); !strings.Contains(w, `"blockNumber":"`+strconv.FormatUint(head, 10)+`"`) {
		t.Fatalf("the writer's latest blocks %s do not hold the seed's head %d", w, head)
	}

	standby.Stop()
	if r := get(reader, routes[0]); strings.HasPrefix(r, "200 ") {
		t.Fatalf("the reader answered %s with its read replica stopped: its route reads do not go there", r)
	}
	waitFor(t, 10*time.Second, "the reader's status to report the failed reads", func() bool {
		st, _ := reader.IndexLease()
		return st.ReadError != ""
	})
	if st, _ := writer.IndexLease(); st.Role != "writer" {
		t.Fatalf("the writer's role %q with the read replica stopped; the lease is on the primary", st.Role)
	}
}
