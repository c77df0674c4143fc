// Package spectest validates answers against the real services' published
// OpenAPI documents, for tests. The documents are copied, unchanged, into
// testdata/: glacier.json is the Data API's (servers: https://data-api.avax.network)
// and popsicle.json the Metrics API's (servers: https://metrics.avax.network);
// both are OpenAPI 3.1, whose schemas are JSON Schema 2020-12. They are
// embedded, so a test that uses them runs wherever the repository is.
package spectest

import (
	"bytes"
	_ "embed"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	//go:embed testdata/glacier.json
	glacierJSON []byte
	//go:embed testdata/popsicle.json
	popsicleJSON []byte
)

// Spec is one OpenAPI document whose #/components/schemas validate answers.
// It is decoded and compiled once, on first use, and is safe for concurrent
// use.
type Spec struct {
	name string
	data []byte
	fix  func(doc any)

	once sync.Once
	err  error
	mu   sync.Mutex // guards c: the compiler is not safe for concurrent use
	c    *jsonschema.Compiler
}

// DataAPI returns the Data API's OpenAPI document (testdata/glacier.json).
// fix, if not nil, may edit the decoded document before it is compiled
// (annotations a draft-2020-12 metaschema rejects).
func DataAPI(fix func(doc any)) *Spec {
	return &Spec{name: "glacier.json", data: glacierJSON, fix: fix}
}

// MetricsAPI returns the Metrics API's OpenAPI document
// (testdata/popsicle.json). fix is as for DataAPI.
func MetricsAPI(fix func(doc any)) *Spec {
	return &Spec{name: "popsicle.json", data: popsicleJSON, fix: fix}
}

func (s *Spec) load() {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.data))
	if err != nil {
		s.err = err
		return
	}
	if s.fix != nil {
		s.fix(doc)
	}
	s.c = jsonschema.NewCompiler()
	s.c.DefaultDraft(jsonschema.Draft2020)
	s.err = s.c.AddResource("file:///"+s.name, doc)
}

// Schema compiles #/components/schemas/name. It fails the test when the
// document or the schema does not compile.
func (s *Spec) Schema(t testing.TB, name string) *jsonschema.Schema {
	t.Helper()
	s.once.Do(s.load)
	if s.err != nil {
		t.Fatalf("%s: %v", s.name, s.err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sch, err := s.c.Compile("file:///" + s.name + "#/components/schemas/" + name)
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

// Raw returns the document's bytes, as published.
func (s *Spec) Raw() []byte { return s.data }

// OpenAPI30 is a fix for DataAPI: glacier.json, though it says OpenAPI 3.1,
// marks nullable fields with OpenAPI 3.0's "nullable", which JSON Schema
// ignores; each becomes "null or the schema", as the SDKs read it
// (geolocation, say). It also drops the "examples" annotations that are
// objects instead of arrays (3.0 style), which the 2020-12 metaschema
// rejects; they have no bearing on validation.
func OpenAPI30(v any) {
	switch x := v.(type) {
	case map[string]any:
		if ex, ok := x["examples"].(map[string]any); ok {
			if _, isProp := ex["type"]; !isProp {
				delete(x, "examples")
			}
		}
		for _, c := range x {
			OpenAPI30(c)
		}
		if x["nullable"] == true {
			inner := map[string]any{}
			for k, c := range x {
				if k != "nullable" && k != "description" {
					inner[k] = c
					delete(x, k)
				}
			}
			delete(x, "nullable")
			x["anyOf"] = []any{map[string]any{"type": "null"}, inner}
		}
	case []any:
		for _, c := range x {
			OpenAPI30(c)
		}
	}
}
