package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/avaedge/avaedge/internal/markdown"
)

// sourceFile is one file of the repository's code, scripts or config.
type sourceFile struct {
	path string // from the root, with forward slashes
	text string
	test bool // a Go test file
}

var (
	sourcesOnce sync.Once
	sources     []sourceFile
	sourcesErr  error
)

// repoSources reads every Go file, script, SQL, Solidity, YAML and JSON
// file of the repository (the test modules included, node_modules and
// testdata left out), once per test binary.
func repoSources(t *testing.T) []sourceFile {
	t.Helper()
	sourcesOnce.Do(func() {
		root, err := markdown.Root()
		if err != nil {
			sourcesErr = err
			return
		}
		sourcesErr = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				switch d.Name() {
				case "node_modules", "testdata", ".git":
					return filepath.SkipDir
				}
				return nil
			}
			switch filepath.Ext(path) {
			case ".go", ".sh", ".mjs", ".js", ".sql", ".sol", ".yaml", ".yml", ".json":
			default:
				if d.Name() != "run" && d.Name() != "Dockerfile" {
					return nil
				}
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			sources = append(sources, sourceFile{path: filepath.ToSlash(rel), text: string(b), test: strings.HasSuffix(path, "_test.go")})
			return nil
		})
	})
	if sourcesErr != nil {
		t.Fatal(sourcesErr)
	}
	return sources
}
