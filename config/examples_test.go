package config

import (
	"path/filepath"
	"testing"
)

// TestExamples loads every example config of deploy/examples, so they cannot
// rot.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../deploy/examples/*.yaml")
	if err != nil || len(files) < 3 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := Load(f, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			if c.Listen == "" {
				t.Fatal("defaults not filled")
			}
		})
	}
}
