// Package spectest validates answers against the real services' OpenAPI
// files (../shared/spec beside the project's root), for tests.
package spectest

import (
	"bytes"
	"os"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Spec is one OpenAPI file whose #/components/schemas validate answers. It
// is loaded once, on first use, and is safe for concurrent use.
type Spec struct {
	path string
	fix  func(doc any)

	once sync.Once
	err  error
	mu   sync.Mutex // the compiler is not safe for concurrent use
	c    *jsonschema.Compiler
}

// New returns the spec at path. fix, if not nil, may edit the decoded
// document before it is compiled (annotations a draft-2020-12 metaschema
// rejects).
func New(path string, fix func(doc any)) *Spec {
	return &Spec{path: path, fix: fix}
}

func (s *Spec) load() {
	f, err := os.Open(s.path)
	if err != nil {
		s.err = err
		return
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		s.err = err
		return
	}
	if s.fix != nil {
		s.fix(doc)
	}
	s.c = jsonschema.NewCompiler()
	s.c.DefaultDraft(jsonschema.Draft2020)
	s.err = s.c.AddResource("file:///spec.json", doc)
}

// Schema compiles #/components/schemas/name. It skips the test when the
// file is not there and fails it when the file does not compile.
func (s *Spec) Schema(t testing.TB, name string) *jsonschema.Schema {
	t.Helper()
	s.once.Do(s.load)
	if s.err != nil {
		if os.IsNotExist(s.err) {
			t.Skipf("spec not found at %s", s.path)
		}
		t.Fatal(s.err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sch, err := s.c.Compile("file:///spec.json#/components/schemas/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// Validate reports whether body, a JSON document, is a valid name. A body
// that is not JSON fails the test.
func (s *Spec) Validate(t testing.TB, name string, body []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: not JSON: %v\nbody: %.1000s", name, err, body)
	}
	return s.Schema(t, name).Validate(inst)
}
