package acp118

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// protocVersion is the line of a generated file that names the protoc that
// made it; it is left out of the comparison, so that any protoc checks the
// code.
var protocVersion = regexp.MustCompile(`(?m)^// \tprotoc +.*$`)

// TestGenerated regenerates the Go code of proto/ (the go:generate line of
// doc.go: protoc and the protoc-gen-go of go.mod's protobuf module) and
// finds it equal to the committed pb/. Without protoc on PATH it skips,
// unless AVAEDGE_TEST_PROTOC=required (.ci/run installs protobuf-compiler).
func TestGenerated(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		if os.Getenv("AVAEDGE_TEST_PROTOC") == "required" {
			t.Fatal("protoc is not on PATH and AVAEDGE_TEST_PROTOC=required: install protobuf-compiler")
		}
		t.Skip("protoc is not on PATH (apt install protobuf-compiler; AVAEDGE_TEST_PROTOC=required makes this a failure)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	bin := t.TempDir()
	build := exec.Command(goTool, "build", "-o", filepath.Join(bin, "protoc-gen-go"), "google.golang.org/protobuf/cmd/protoc-gen-go")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building protoc-gen-go: %v\n%s", err, out)
	}
	out := t.TempDir()
	gen := exec.Command(protoc, "-I", "proto", "--plugin=protoc-gen-go="+filepath.Join(bin, "protoc-gen-go"),
		"--go_out="+out, "--go_opt=module=github.com/avaedge/avaedge/local/source/acp118", "avaedge/acp118/p2p.proto", "avaedge/acp118/sdk.proto")
	if b, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, b)
	}
	committed := map[string]bool{}
	err = filepath.WalkDir("pb", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("pb", path)
		committed[rel] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(out, "pb"), path)
		want, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join("pb", rel))
		if err != nil {
			t.Errorf("pb/%s is not committed: run go generate in local/source/acp118", rel)
			return nil
		}
		delete(committed, rel)
		if !bytes.Equal(protocVersion.ReplaceAll(got, nil), protocVersion.ReplaceAll(want, nil)) {
			t.Errorf("pb/%s differs from what proto/ generates: run go generate in local/source/acp118", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range committed {
		t.Errorf("pb/%s is generated from nothing in proto/", rel)
	}
}
