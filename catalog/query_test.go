package catalog

import (
	"net/url"
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	tests := []struct {
		name, route, raw string
		want             string // the canonical query, or the messages joined by "; "
		bad              bool
	}{
		{"empty", "getLatestBlocks", "", "pageSize=10", false},
		{"known and unknown", "getLatestBlocks", "pageSize=2&x=1&pageToken=a+b", "pageSize=2&pageToken=a+b", false},
		{"empty pairs skipped", "getLatestBlocks", "&pageSize=2&&", "pageSize=2", false},
		{"encoded name", "getLatestBlocks", "page%53ize=3", "pageSize=3", false},
		{"value with '='", "getLatestBlocks", "pageToken=a=b", "pageSize=10&pageToken=a%3Db", false},
		{"repeated", "getLatestBlocks", "pageSize=2&pageSize=1000", "pageSize must not be given more than once", true},
		{"repeated thrice, one message", "getLatestBlocks", "pageSize=2&pageSize=3&pageSize=4", "pageSize must not be given more than once", true},
		{"repeated unknown", "getLatestBlocks", "x=1&x=2", "pageSize=10", false},
		{"bad escape", "getLatestBlocks", "pageSize=1000%zz", "pageSize must be correctly percent-encoded", true},
		{"trailing percent", "listSubnets", "sortOrder=sideways%", "sortOrder must be correctly percent-encoded", true},
		{"bad escape in an unknown value", "getLatestBlocks", "x=%zz", "x must be correctly percent-encoded", true},
		{"bad escape in a name", "getLatestBlocks", "%zz=1", "query parameter names must be correctly percent-encoded", true},
		{"semicolon", "getLatestBlocks", "pageSize=1000;", "query parameters must be separated by '&', not ';'", true},
		{"semicolon separator", "getLatestBlocks", "pageSize=1;pageToken=2", "query parameters must be separated by '&', not ';'", true},
		{"all messages", "getLatestBlocks", "pageSize=1&pageSize=2&pageToken=%&a=1;", "pageSize must not be given more than once; pageToken must be correctly percent-encoded; query parameters must be separated by '&', not ';'", true},
		{"array repeated", "listLatestPrimaryNetworkTransactions", "txTypes=ImportTx&txTypes=ExportTx", "pageSize=10&txTypes=ImportTx&txTypes=ExportTx", false},
		{"array comma", "listLatestPrimaryNetworkTransactions", "txTypes=ImportTx,ExportTx", "pageSize=10&txTypes=ImportTx&txTypes=ExportTx", false},
		{"array mixed", "listLatestPrimaryNetworkTransactions", "txTypes=ImportTx%2C+ExportTx&txTypes=BaseTx", "pageSize=10&txTypes=ImportTx&txTypes=ExportTx&txTypes=BaseTx", false},
		{"string list repeated", "listLatestPrimaryNetworkTransactions", "addresses=a&addresses=b", "addresses must not be given more than once", true},
		{"body field in the query", "aggregateSignatures", "message=00", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := route(t, tt.route)
			q, msgs := rt.ParseQuery(tt.raw)
			if tt.bad {
				if q != nil || strings.Join(msgs, "; ") != tt.want {
					t.Fatalf("ParseQuery(%q) = %v, %q; want messages %q", tt.raw, q, msgs, tt.want)
				}
				return
			}
			if msgs != nil {
				t.Fatalf("ParseQuery(%q): %q", tt.raw, msgs)
			}
			if got := rt.CanonicalQuery(q); got != tt.want {
				t.Fatalf("canonical query of %q = %q; want %q", tt.raw, got, tt.want)
			}
		})
	}
}

// TestParseQueryValues: an array parameter's values reach Validate (and the
// local world) joined with commas, and its items are checked one by one.
func TestParseQueryValues(t *testing.T) {
	rt := route(t, "listLatestPrimaryNetworkTransactions")
	pv := PathFunc(func(n string) string { return map[string]string{"network": "fuji", "blockchainId": "p-chain"}[n] })
	q, msgs := rt.ParseQuery("txTypes=ImportTx&txTypes=ExportTx")
	v, vmsgs := rt.Validate(pv, q, nil)
	if msgs != nil || vmsgs != nil || v["txTypes"] != "ImportTx,ExportTx" {
		t.Fatalf("values %v, %q %q", v, msgs, vmsgs)
	}
	q, _ = rt.ParseQuery("txTypes=ImportTx&txTypes=Nope")
	if _, vmsgs = rt.Validate(pv, q, nil); len(vmsgs) != 1 || !strings.HasPrefix(vmsgs[0], "each value in txTypes must be one of") {
		t.Fatalf("bad item: %q", vmsgs)
	}
}

// FuzzParseQuery: whatever the raw query, an accepted one canonicalises to
// a query that ParseQuery accepts again with the same values (the upstream,
// parsing what the edge sends, sees what the edge validated), and that Go's
// url.ParseQuery reads as the same pairs.
func FuzzParseQuery(f *testing.F) {
	routes := Catalogue()
	f.Fuzz(func(t *testing.T, raw string) {
		for i := range routes {
			rt := &routes[i]
			if rt.IsRPC() {
				continue
			}
			q, msgs := rt.ParseQuery(raw)
			if msgs != nil {
				if q != nil {
					t.Fatalf("%s: values and messages for %q", rt.Name, raw)
				}
				continue
			}
			canon := rt.CanonicalQuery(q)
			q2, msgs := rt.ParseQuery(canon)
			if msgs != nil {
				t.Fatalf("%s: canonical query %q of %q refused: %q", rt.Name, canon, raw, msgs)
			}
			if again := rt.CanonicalQuery(q2); again != canon {
				t.Fatalf("%s: canonical query not stable: %q -> %q", rt.Name, canon, again)
			}
			std, err := url.ParseQuery(canon)
			if err != nil {
				t.Fatalf("%s: url.ParseQuery(%q): %v", rt.Name, canon, err)
			}
			for k, vs := range q2 {
				p := rt.param(k)
				if p.Format == Array {
					continue
				}
				if len(std[k]) != 1 || std[k][0] != vs[0] {
					t.Fatalf("%s: %s is %q to ParseQuery and %q to url.ParseQuery in %q", rt.Name, k, vs, std[k], canon)
				}
			}
		}
	})
}
