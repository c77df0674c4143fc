package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/markdown"
	"github.com/avaedge/avaedge/usage"
)

const (
	routesBegin = "<!-- routes: generated from catalog.Catalogue() and usage.Routes() by TestDocsRouteTable -->"
	routesEnd   = "<!-- end routes -->"
)

// TestDocsRouteTable: the table of every route in docs/routes.md is the
// catalogue's and the usage routes', row for row. AVAEDGE_UPDATE=1
// rewrites it.
func TestDocsRouteTable(t *testing.T) {
	want := routeTable()
	p, err := markdown.Read("docs/routes.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(p.Lines, "\n") + "\n"
	before, rest, ok1 := strings.Cut(text, routesBegin+"\n")
	got, after, ok2 := strings.Cut(rest, routesEnd)
	if !ok1 || !ok2 {
		t.Fatalf("docs/routes.md lacks the lines %q and %q around the route table", routesBegin, routesEnd)
	}
	if got == want {
		return
	}
	if os.Getenv("AVAEDGE_UPDATE") != "" {
		root, err := markdown.Root()
		if err != nil {
			t.Fatal(err)
		}
		out := before + routesBegin + "\n" + want + routesEnd + after
		if err := os.WriteFile(filepath.Join(root, "docs", "routes.md"), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for _, l := range w {
		if !slices.Contains(g, l) {
			t.Errorf("docs/routes.md lacks the row %s", l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			t.Errorf("docs/routes.md has the row %s; the catalogue has no such route", l)
		}
	}
	t.Errorf("docs/routes.md's route table is stale: rerun with AVAEDGE_UPDATE=1")
}

// routeTable renders the catalogue and the usage routes as the table's
// lines.
func routeTable() string {
	var b strings.Builder
	b.WriteString("| service | route | request | CU | cache | note |\n|---|---|---|---:|---|---|\n")
	row := func(rt catalog.Route, note string) {
		fmt.Fprintf(&b, "| %s | `%s` | `%s %s` | %d | %s | %s |\n", rt.Service, rt.Name, rt.Method, rt.Path, rt.Cost, rt.Cache, note)
	}
	for _, rt := range catalog.Catalogue() {
		note := ""
		switch {
		case rt.Legacy != "" && rt.Successor != "":
			note = fmt.Sprintf("legacy; successor `%s`", rt.Successor)
		case rt.Legacy != "":
			note = "legacy"
		case rt.Name == catalog.EVMRoute:
			note = "every `eth_`, `net_` and `web3_` method without a row of its own"
		}
		row(rt, note)
	}
	for _, rt := range usage.Routes() {
		row(rt, "answered by the edge")
	}
	return b.String()
}
