package docs

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/internal/markdown"
	"github.com/avaedge/avaedge/limits"
)

// TestDocsEnvironment: the environment table of docs/configuration.md names
// exactly the variables config.Load reads.
func TestDocsEnvironment(t *testing.T) {
	asked := map[string]bool{}
	if _, err := config.Load("", func(name string) string { asked[name] = true; return "" }); err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, cell := range column(t, "docs/configuration.md", "Variable", "Variable", "Meaning", "Default") {
		for _, name := range markdown.Spans(cell) {
			documented[name] = true
		}
	}
	for name := range asked {
		if !documented[name] {
			t.Errorf("config.Load reads %s; docs/configuration.md's environment table does not name it", name)
		}
	}
	for name := range documented {
		if !asked[name] {
			t.Errorf("docs/configuration.md names %s; config.Load does not read it", name)
		}
	}
}

// TestDocsConfigFields: the config field table of docs/configuration.md has
// a row for every field of config.Config and no row for a field it lacks.
func TestDocsConfigFields(t *testing.T) {
	checkFields(t, "docs/configuration.md", reflect.TypeFor[config.Config](), "field", "meaning", "default")
}

// TestDocsKeysFileFields: likewise for the keys file's fields.
func TestDocsKeysFileFields(t *testing.T) {
	checkFields(t, "docs/configuration.md", reflect.TypeFor[limits.KeysFile](), "field", "meaning", "default")
}

// TestDocsPublishedPlans: the published plans' table is the plans avaedge
// applies without a keys file.
func TestDocsPublishedPlans(t *testing.T) {
	tb := table(t, "docs/configuration.md", "plan", "CU per minute", "CU per day")
	got := map[string][2]int64{}
	for _, row := range tb.Rows {
		got[strings.Trim(row[0], "`")] = [2]int64{number(t, row[1]), number(t, row[2])}
	}
	want := map[string][2]int64{}
	for name, p := range limits.DefaultKeysFile().Plans {
		want[name] = [2]int64{p.CUPerMinute, p.CUPerDay}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("docs/configuration.md's published plans %v; limits.DefaultKeysFile has %v", got, want)
	}
}

// checkFields compares the tables of page with the given header whose
// first row names a field of typ (config.Config's and limits.KeysFile's
// tables share a header) with typ's YAML paths, both ways.
func checkFields(t *testing.T, page string, typ reflect.Type, header ...string) {
	t.Helper()
	paths := yamlPaths(typ, "")
	tops := map[string]bool{}
	for _, p := range paths {
		tops[strings.FieldsFunc(p, func(r rune) bool { return r == '.' || r == '[' })[0]] = true
	}
	p, err := markdown.Read(page)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, tb := range p.Tables() {
		if !slices.Equal(tb.Header, header) {
			continue
		}
		col, _ := tb.Column(header[0])
		var mine []string
		for _, cell := range col {
			spans := markdown.Spans(cell)
			if len(spans) != 1 {
				t.Errorf("%s: row %q names no one field", page, cell)
				continue
			}
			mine = append(mine, spans[0])
		}
		// The table is typ's when its rows name typ's top-level fields.
		if len(mine) > 0 && matchesAny(mine[0], paths) {
			rows = append(rows, mine...)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no table %q of %s's fields", page, header, typ)
	}
	for _, path := range paths {
		if !slices.ContainsFunc(rows, func(row string) bool { return matches(row, path) }) {
			t.Errorf("%s: %s's field %s has no row", page, typ, path)
		}
	}
	for _, row := range rows {
		if !matchesAny(row, paths) {
			t.Errorf("%s: row %s names no field of %s", page, row, typ)
		}
	}
}

func matchesAny(row string, paths []string) bool {
	return slices.ContainsFunc(paths, func(p string) bool { return matches(row, p) })
}

// matches reports whether a documented path ("upstreams.<service>.url")
// names a field's path ("upstreams.data.url"): segment by segment, a
// "<...>" segment standing for any one.
func matches(doc, path string) bool {
	d, p := strings.Split(doc, "."), strings.Split(path, ".")
	if len(d) != len(p) {
		return false
	}
	for i := range d {
		if d[i] != p[i] && !strings.HasPrefix(d[i], "<") {
			return false
		}
	}
	return true
}

// yamlPaths returns the YAML paths of typ's leaves: "server.write_timeout",
// "routes.<name>.cost" for a map of structs, "publish[].path" for a list of
// them.
func yamlPaths(typ reflect.Type, prefix string) []string {
	var out []string
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		path := prefix + name
		switch ft := f.Type; {
		case ft.Kind() == reflect.Struct:
			out = append(out, yamlPaths(ft, path+".")...)
		case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
			out = append(out, yamlPaths(ft.Elem(), path+".<name>.")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, yamlPaths(ft.Elem(), path+"[].")...)
		default:
			out = append(out, path)
		}
	}
	return out
}

// table reads the one table of page with the given header.
func table(t *testing.T, page string, header ...string) markdown.Table {
	t.Helper()
	tb, err := markdown.ReadTable(page, header...)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// column reads one column of the one table of page with the given header.
func column(t *testing.T, page, name string, header ...string) []string {
	t.Helper()
	col, err := table(t, page, header...).Column(name)
	if err != nil {
		t.Fatal(err)
	}
	return col
}

// number reads a figure written with thousands separators ("1,200,000").
func number(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}
