package dataapi

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/internal/pgtest"
	"github.com/avaedge/avaedge/local/source/pindex"
)

// TestMain stops the PostgreSQL server the store tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// TestStoresAnswerAlike: the index a follower fills from the devnet's
// network, kept in SQLite and in PostgreSQL, answers every primary-network
// route the same bytes, and every list route's pages (three items a page,
// each page's token followed to the end) are the same bytes, their tokens
// included.
func TestStoresAnswerAlike(t *testing.T) {
	dw := newDevnet(t)
	st, err := pindex.OpenPostgres(context.Background(), pgtest.Shared(t).Database(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	lite, pg := followedWorld(t, dw), followedWorldIn(t, dw, st)
	pages := 0
	for _, network := range []string{"fuji", "mainnet"} {
		for _, c := range cases(t, lite, network) {
			path := c.path
			if c.list != "" {
				path = pageOf(path, 3)
			}
			for i := 0; ; i++ {
				codeA, a := lite.get(t, path)
				codeB, b := pg.get(t, path)
				if codeA != codeB || string(a) != string(b) {
					t.Fatalf("%s %s page %d:\nSQLite     %d %.600s\nPostgreSQL %d %.600s", network, c.name, i, codeA, a, codeB, b)
				}
				if codeA != 200 {
					t.Fatalf("%s %s page %d: %d %.300s", network, c.name, i, codeA, a)
				}
				pages++
				var m struct {
					Next string `json:"nextPageToken"`
				}
				json.Unmarshal(a, &m)
				if c.list == "" || m.Next == "" || i > 500 {
					break
				}
				path = pageOf(c.path, 3) + "&pageToken=" + url.QueryEscape(m.Next)
			}
		}
	}
	if pages < 200 {
		t.Fatalf("%d pages compared: the world is not what the test means", pages)
	}
	t.Logf("%d pages compared", pages)
}

// pageOf sets path's pageSize to n.
func pageOf(path string, n int) string {
	base, q, _ := strings.Cut(path, "?")
	v, _ := url.ParseQuery(q)
	v.Set("pageSize", strconv.Itoa(n))
	return base + "?" + v.Encode()
}
