package local_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of the repository's root.
const module = "github.com/avaedge/avaedge/"

// layer is a role of a folder of local/. Imports run from a higher layer to
// a lower one; within a layer, only as allowed says.
type layer struct {
	name string
	rank int
}

var (
	vocabulary = layer{"vocabulary", 0}
	source     = layer{"source", 1}
	handler    = layer{"handler", 1}
	worldLayer = layer{"world", 2}
	wiring     = layer{"wiring", 3}
)

// layerOf names the role of a package of local/ by its folder ("local",
// "local/api/dataapi"); ok is false for a folder that names no role.
func layerOf(pkg string) (layer, bool) {
	switch {
	case pkg == "local":
		return wiring, true
	case strings.HasPrefix(pkg, "local/vocab/"):
		return vocabulary, true
	case strings.HasPrefix(pkg, "local/source/"):
		return source, true
	case strings.HasPrefix(pkg, "local/api/"):
		return handler, true
	case pkg == "local/world" || strings.HasPrefix(pkg, "local/world/"):
		return worldLayer, true
	}
	return layer{}, false
}

// allowed reports whether a package of layer from may import one of layer
// to: a lower layer always; within the vocabulary, the sources, the handlers
// or the worlds, one another; a handler a source (the answers it reads),
// never a source a handler.
func allowed(from, to layer) bool {
	switch {
	case to.rank < from.rank, from == to:
		return true
	case from == handler && to == source:
		return true
	}
	return false
}

// TestLayers reads the imports of every package under local/ (tests
// excepted) and finds each folder in a role (vocabulary, sources,
// handlers, worlds, wiring) and no import that runs back up: wiring →
// worlds → handlers and sources → vocabulary, a handler reading a source
// but never the reverse, and no handler importing a world.
func TestLayers(t *testing.T) {
	imports := map[string]map[string]bool{} // package → the local packages it imports
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Join("local", filepath.Dir(path)))
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, is := range f.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			if rest, ok := strings.CutPrefix(p, module); ok && (rest == "local" || strings.HasPrefix(rest, "local/")) {
				imports[pkg][rest] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 10 {
		t.Fatalf("read %d packages under local/; want them all", len(imports))
	}
	for pkg, deps := range imports {
		from, ok := layerOf(pkg)
		if !ok {
			t.Errorf("%s names no role: put it under local/vocab, local/source, local/api or local/world", pkg)
			continue
		}
		for dep := range deps {
			to, ok := layerOf(dep)
			if ok && !allowed(from, to) {
				t.Errorf("%s (%s) imports %s (%s): the import runs back up", pkg, from.name, dep, to.name)
			}
		}
	}
}

// TestLayersCatch: the rule refuses what the layout forbids.
func TestLayersCatch(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"local/source/pindex", "local/api/warp", false},
		{"local/api/dataapi", "local/world/devnet", false},
		{"local/vocab/avax", "local/source/pindex", false},
		{"local/world/devnet", "local", false},
		{"local/api/dataapi", "local/source/pindex", true},
		{"local/world/devnet", "local/api/node", true},
		{"local/vocab/warpmsg", "local/vocab/avax", true},
		{"local", "local/world/followed", true},
	} {
		from, _ := layerOf(c.from)
		to, _ := layerOf(c.to)
		if got := allowed(from, to); got != c.ok {
			t.Errorf("%s importing %s allowed = %v; want %v", c.from, c.to, got, c.ok)
		}
	}
	if _, ok := layerOf("local/cchain"); ok {
		t.Error("a folder outside the roles has a layer")
	}
}
