package usage

import (
	"slices"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/internal/markdown"
)

// TestRoutesDocumented: docs/usage.md's table of the usage routes names
// exactly the routes Routes registers.
func TestRoutesDocumented(t *testing.T) {
	tb, err := markdown.ReadTable("docs/usage.md", "route", "answers")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, row := range tb.Rows {
		for _, span := range markdown.Spans(row[0]) {
			if strings.HasPrefix(span, "/") {
				span = "GET " + span
			}
			documented = append(documented, span)
		}
	}
	var want []string
	for _, rt := range Routes() {
		want = append(want, rt.Pattern())
	}
	slices.Sort(documented)
	slices.Sort(want)
	if !slices.Equal(documented, want) {
		t.Errorf("docs/usage.md's routes %q; usage.Routes() has %q", documented, want)
	}
}
