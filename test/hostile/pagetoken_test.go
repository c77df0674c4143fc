package hostile

import (
	"crypto/hmac"
	"crypto/sha256"
	be "encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/redistest"
)

// forgedToken is a page token as the local routes made them before issue
// 35: its MAC keyed with a constant that was in the source, so anyone could
// make one for any cursor (an offset, then).
func forgedToken(scope string, cursor uint64, now time.Time) string {
	mac := func(cursor uint64, hour uint32) []byte {
		h := hmac.New(sha256.New, []byte("avaedge page token v1"))
		var b [12]byte
		be.BigEndian.PutUint64(b[:8], cursor)
		be.BigEndian.PutUint32(b[8:], hour)
		h.Write(b[:])
		h.Write([]byte(scope))
		return h.Sum(nil)
	}
	hour := uint32(now.Unix() / 3600)
	var raw [16]byte
	be.BigEndian.PutUint64(raw[:8], cursor^be.BigEndian.Uint64(mac(0, hour)[8:16]))
	be.BigEndian.PutUint16(raw[8:10], uint16(hour))
	copy(raw[10:], mac(cursor, hour)[:6])
	h := hex.EncodeToString(raw[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// pageLists are local lists whose pages the tests follow, with the scope
// their tokens are bound to (the route, the network, the path values and
// the validated parameters but pageToken and pageSize).
var pageLists = []struct{ path, scope, items string }{
	{"/v1/networks/fuji/subnets?pageSize=1", "listSubnets|fuji||network=fuji", "subnets"},
	{"/v1/networks/fuji/blockchains/p-chain/transactions?pageSize=1", "listLatestPrimaryNetworkTransactions|fuji|P|blockchainId=p-chain&network=fuji", "transactions"},
}

// page gets path (with token, when set) and returns the status, the items
// of list and the next page's token.
func page(t *testing.T, e *Edge, path, token, list string) (int, []json.RawMessage, string) {
	t.Helper()
	if token != "" {
		path += "&pageToken=" + url.QueryEscape(token)
	}
	resp, body := getWithKey(t, e.URL+path, "")
	var v map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("GET %s: %d %.200s: not JSON", path, resp.StatusCode, body)
	}
	var items []json.RawMessage
	json.Unmarshal(v[list], &items)
	var next string
	json.Unmarshal(v["nextPageToken"], &next)
	if resp.StatusCode == http.StatusBadRequest {
		// The Data API's error: the message alone, or in a list as its
		// validation errors are.
		var msg struct {
			StatusCode int             `json:"statusCode"`
			Message    json.RawMessage `json:"message"`
			Error      string          `json:"error"`
		}
		m := ""
		if json.Unmarshal([]byte(body), &msg) == nil {
			var list []string
			if json.Unmarshal(msg.Message, &list) == nil && len(list) == 1 {
				m = list[0]
			} else {
				json.Unmarshal(msg.Message, &m)
			}
		}
		if msg.StatusCode != 400 || m != "Invalid page token" || msg.Error != "Bad Request" {
			t.Fatalf("GET %s: 400 %s; want the Data API's error for an invalid page token", path, body)
		}
	}
	return resp.StatusCode, items, next
}

// TestPageTokensForged (issue 35 finding 7): page tokens forged with the
// MAC key that was in the source (offsets 5, 1000 and 2^31-1 answered 200)
// and tokens another deployment made are refused with 400 in the Data
// API's format; the deployment's own tokens page on.
func TestPageTokensForged(t *testing.T) {
	a := StartEdge(t, EdgeOptions{Keys: keysFile(0, true), Env: map[string]string{"AVAEDGE_PAGE_TOKEN_SECRET": "deployment-a-page-token-secret"}})
	b := StartEdge(t, EdgeOptions{Keys: keysFile(0, true), Env: map[string]string{"AVAEDGE_PAGE_TOKEN_SECRET": "deployment-b-page-token-secret"}})
	for _, l := range pageLists {
		status, _, own := page(t, a, l.path, "", l.items)
		if status != http.StatusOK || own == "" {
			t.Fatalf("GET %s: %d, next %q; want a first page and a token", l.path, status, own)
		}
		if status, items, _ := page(t, a, l.path, own, l.items); status != http.StatusOK || len(items) != 1 {
			t.Fatalf("%s with its own token: %d, %d items; want the second page", l.path, status, len(items))
		}
		_, _, foreign := page(t, b, l.path, "", l.items)
		tokens := map[string]string{"another deployment's": foreign}
		for _, c := range []uint64{5, 1000, 1<<31 - 1} {
			tokens["forged "+strconv.FormatUint(c, 10)] = forgedToken(l.scope, c, time.Now())
		}
		for name, tok := range tokens {
			if status, items, _ := page(t, a, l.path, tok, l.items); status != http.StatusBadRequest {
				t.Errorf("%s with %s token: %d with %d items; want 400", l.path, name, status, len(items))
			}
		}
	}
}

// TestPageTokensAcrossReplicas (issue 35 finding 7): replicas that share a
// secret continue each other's listings: two edges on one Redis (the first
// stores the secret, the second reads it), two edges reading one keys file
// that names it; and one edge restarted on its data directory keeps the
// secret it made at first start.
func TestPageTokensAcrossReplicas(t *testing.T) {
	rs := redistest.Start(t)
	keys := keysFile(0, true) + "page_token_secret: shared-through-the-keys-file\n"
	for _, tc := range []struct {
		name string
		opts EdgeOptions
	}{
		{"one Redis", EdgeOptions{Keys: keysFile(0, true), Env: map[string]string{"AVAEDGE_REDIS": rs.URL()}}},
		{"one keys file", EdgeOptions{Keys: keys}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, second := StartEdge(t, tc.opts), StartEdge(t, tc.opts)
			checkReplicaPaging(t, first, second)
		})
	}
	t.Run("restart on one data directory", func(t *testing.T) {
		dir := t.TempDir()
		opts := EdgeOptions{Keys: keysFile(0, true), Env: map[string]string{"AVAEDGE_DATA_DIR": dir}}
		first := StartEdge(t, opts)
		l := pageLists[0]
		_, _, tok := page(t, first, l.path, "", l.items)
		_, want, _ := page(t, first, l.path, tok, l.items)
		first.Stop(t)
		if fi, err := os.Stat(filepath.Join(dir, "pagetoken.secret")); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("the data directory's pagetoken.secret: %v, %v; want a file only its user reads", fi, err)
		}
		again := StartEdge(t, opts)
		if status, got, _ := page(t, again, l.path, tok, l.items); status != http.StatusOK || len(got) != 1 || string(got[0]) != string(want[0]) {
			t.Fatalf("the token after a restart: %d %s; want the same second page", status, got)
		}
	})
}

// checkReplicaPaging walks every pageLists list taking turns between two
// replicas and finds the same items as on one.
func checkReplicaPaging(t *testing.T, first, second *Edge) {
	t.Helper()
	for _, l := range pageLists {
		walk := func(edges ...*Edge) []string {
			var out []string
			tok := ""
			for i := 0; i < 1000; i++ {
				status, items, next := page(t, edges[i%len(edges)], l.path, tok, l.items)
				if status != http.StatusOK {
					t.Fatalf("%s page %d on replica %d: %d", l.path, i, i%len(edges), status)
				}
				for _, it := range items {
					out = append(out, string(it))
				}
				if next == "" {
					return out
				}
				tok = next
			}
			t.Fatalf("%s: no last page after 1000", l.path)
			return nil
		}
		one, both := walk(first), walk(first, second)
		if len(one) < 2 || len(both) != len(one) {
			t.Fatalf("%s: %d items on one replica, %d taking turns; want the same, at least 2", l.path, len(one), len(both))
		}
		for i := range one {
			if one[i] != both[i] {
				t.Fatalf("%s: item %d differs taking turns between replicas", l.path, i)
			}
		}
	}
}
