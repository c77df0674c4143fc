package docs

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/avaedge/avaedge/cache"
	"github.com/avaedge/avaedge/internal/markdown"
)

// TestDocsCacheClasses: docs/edge.md's class table gives each class the
// windows of cache.DefaultPolicy, and names every class.
func TestDocsCacheClasses(t *testing.T) {
	tb := table(t, "docs/edge.md", "class", "fresh", "stale-while-revalidate", "stale-if-error", "routes")
	seen := map[cache.Class]bool{}
	for _, row := range tb.Rows {
		class := cache.Class(row[0])
		seen[class] = true
		p := cache.DefaultPolicy(class)
		for i, want := range []time.Duration{p.Fresh, p.Stale, p.Error} {
			if got := window(t, row[i+1]); got != want {
				t.Errorf("docs/edge.md: class %s's %s is %s; cache.DefaultPolicy says %s", class, tb.Header[i+1], row[i+1], want)
			}
		}
	}
	for _, c := range []cache.Class{cache.Immutable, cache.Medium, cache.Short, cache.Metrics, cache.Never} {
		if !seen[c] {
			t.Errorf("docs/edge.md's class table has no row for %s", c)
		}
	}
}

// window reads a table's duration: "-" (none), "24h", "7d".
func window(t *testing.T, s string) time.Duration {
	t.Helper()
	if s == "-" {
		return 0
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			t.Fatalf("%q is not a duration", s)
		}
		return time.Duration(n) * 24 * time.Hour
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("%q is not a duration", s)
	}
	return d
}

// TestDocsHeaders: every X- header the code sets on an answer is in
// docs/edge.md's table.
func TestDocsHeaders(t *testing.T) {
	documented := map[string]bool{}
	for _, cell := range column(t, "docs/edge.md", "Header", "Header", "Meaning") {
		for _, h := range markdown.Spans(cell) {
			documented[strings.ToLower(h)] = true
		}
	}
	set := regexp.MustCompile(`"(X-(?:Avaedge-[A-Za-z-]+|Cache-Status|Request-Id))"`)
	found := 0
	for _, f := range repoSources(t) {
		if f.test || !strings.HasSuffix(f.path, ".go") {
			continue
		}
		for _, m := range set.FindAllStringSubmatch(f.text, -1) {
			found++
			if !documented[strings.ToLower(m[1])] {
				t.Errorf("%s sets %s; docs/edge.md's header table does not name it", f.path, m[1])
			}
		}
	}
	if found == 0 {
		t.Fatal("found no X- header in the code; the pattern is stale")
	}
}
