package markdown

import (
	"slices"
	"strings"
	"testing"
)

const sample = "# Title\n" +
	"\n" +
	"This page is a sample. See [the routes](docs/routes.md#every-route) and `[not](a-link.md)`.\n" +
	"\n" +
	"## The dev chain's limits (`local.evm`)\n" +
	"\n" +
	"| setting | default |\n" +
	"|---|---:|\n" +
	"| `call_gas_cap` | 25,000,000 |\n" +
	"| `a|b` and a\\|b | x |\n" +
	"\n" +
	"```sh\n" +
	"# not a heading\n" +
	"| not | a table |\n" +
	"|---|---|\n" +
	"go run ./cmd/avaedge\n" +
	"```\n" +
	"![picture](deploy/grafana/dashboard.png)\n"

func TestPage(t *testing.T) {
	p := Parse("x.md", sample)
	hs := p.Headings()
	if len(hs) != 2 || hs[0].Text != "Title" || hs[1].Level != 2 || hs[1].Line != 5 {
		t.Errorf("headings %+v; want Title and the limits at line 5", hs)
	}
	if !p.Anchors()["the-dev-chains-limits-localevm"] {
		t.Errorf("anchors %v; want the-dev-chains-limits-localevm", p.Anchors())
	}
	var links []string
	for _, l := range p.Links() {
		links = append(links, l.Target)
	}
	if want := []string{"docs/routes.md#every-route", "deploy/grafana/dashboard.png"}; !slices.Equal(links, want) {
		t.Errorf("links %q; want %q", links, want)
	}
	if blocks := p.CodeBlocks(); len(blocks) != 1 || !strings.HasSuffix(blocks[0], "go run ./cmd/avaedge") {
		t.Errorf("code blocks %q; want the one block", blocks)
	}
	tables := p.Tables()
	if len(tables) != 1 {
		t.Fatalf("%d tables; want 1 (the one in the code block is not)", len(tables))
	}
	tb, err := p.Table("setting", "default")
	if err != nil {
		t.Fatal(err)
	}
	col, err := tb.Column("setting")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"`call_gas_cap`", "`a|b` and a|b"}; !slices.Equal(col, want) {
		t.Errorf("column %q; want %q", col, want)
	}
	if _, err := tb.Column("nope"); err == nil {
		t.Error("Column(nope): no error")
	}
	if _, err := p.Table("route"); err == nil {
		t.Error("Table(route): no error for a missing table")
	}
}

func TestAnchor(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Following a real node (`AVAEDGE_LOCAL_NODE`)", "following-a-real-node-avaedge_local_node"},
		{"How limits are enforced across replicas", "how-limits-are-enforced-across-replicas"},
		{"1. Data API and Metrics API: common rules", "1-data-api-and-metrics-api-common-rules"},
	} {
		if got := Anchor(tc.in); got != tc.want {
			t.Errorf("Anchor(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestSpans(t *testing.T) {
	if got, want := Spans("`a` b `c d` `"), []string{"a", "c d"}; !slices.Equal(got, want) {
		t.Errorf("Spans = %q; want %q", got, want)
	}
}

func TestRead(t *testing.T) {
	p, err := Read("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Lines) == 0 || p.Path != "README.md" {
		t.Fatalf("Read(README.md) = %d lines, path %q", len(p.Lines), p.Path)
	}
}

// FuzzParse: no page makes the readers panic, and a table's rows never
// have fewer cells than a row's pipes allow.
func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("|a|\n|-|\n|`|`|\n")
	f.Fuzz(func(t *testing.T, text string) {
		p := Parse("f.md", text)
		p.Headings()
		p.Links()
		p.CodeBlocks()
		for _, tb := range p.Tables() {
			if len(tb.Header) == 0 {
				t.Fatalf("table at line %d without a header", tb.Line)
			}
		}
	})
}
