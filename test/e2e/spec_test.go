package e2e

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// spec is one of the real services' OpenAPI files in testdata, compiled
// once. Answers are validated against the response schema the file gives
// for the operation and status.
type spec struct {
	file string
	once sync.Once
	err  error
	doc  map[string]any
	mu   sync.Mutex
	c    *jsonschema.Compiler
}

var (
	glacierSpec  = &spec{file: "testdata/glacier.json"}
	popsicleSpec = &spec{file: "testdata/popsicle.json"}
)

func (s *spec) load() {
	f, err := os.Open(s.file)
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
	dropObjectExamples(doc)
	s.doc, _ = doc.(map[string]any)
	discriminateBalances(s.doc)
	s.c = jsonschema.NewCompiler()
	s.c.DefaultDraft(jsonschema.Draft2020)
	s.err = s.c.AddResource("file:///spec.json", doc)
}

// operation finds the path and method of the operation with id op.
func (s *spec) operation(op string) (path, method string, ok bool) {
	paths, _ := s.doc["paths"].(map[string]any)
	for p, v := range paths {
		ops, _ := v.(map[string]any)
		for m, o := range ops {
			if om, _ := o.(map[string]any); om != nil && om["operationId"] == op {
				return p, m, true
			}
		}
	}
	return "", "", false
}

// successStatus returns the 2xx status the spec gives for op.
func (s *spec) successStatus(t testing.TB, op string) int {
	t.Helper()
	s.once.Do(s.load)
	if s.err != nil {
		t.Fatal(s.err)
	}
	p, m, ok := s.operation(op)
	if !ok {
		return 0
	}
	resp := s.doc["paths"].(map[string]any)[p].(map[string]any)[m].(map[string]any)["responses"].(map[string]any)
	for code := range resp {
		if strings.HasPrefix(code, "2") {
			var n int
			fmt.Sscan(code, &n)
			return n
		}
	}
	return 0
}

// validate checks body against the schema of op's answer with status.
// It reports false when the spec has no such operation.
func (s *spec) validate(t testing.TB, op string, status int, body []byte) (bool, error) {
	t.Helper()
	s.once.Do(s.load)
	if s.err != nil {
		t.Fatal(s.err)
	}
	p, m, ok := s.operation(op)
	if !ok {
		return false, nil
	}
	esc := strings.NewReplacer("~", "~0", "/", "~1").Replace
	ptr := fmt.Sprintf("file:///spec.json#/paths/%s/%s/responses/%d/content/application~1json/schema", esc(p), m, status)
	s.mu.Lock()
	sch, err := s.c.Compile(ptr)
	s.mu.Unlock()
	if err != nil {
		return true, fmt.Errorf("%s: no schema for status %d: %v", op, status, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return true, fmt.Errorf("%s: not JSON: %v", op, err)
	}
	return true, sch.Validate(inst)
}

// specFor returns the OpenAPI file of a service.
func specFor(service string) *spec {
	if service == "metrics" {
		return popsicleSpec
	}
	return glacierSpec
}

// dropObjectExamples drops the few "examples" annotations that are objects
// instead of arrays (OpenAPI 3.0 style), which the draft 2020-12 metaschema
// rejects; they have no bearing on validation.
func dropObjectExamples(v any) {
	switch x := v.(type) {
	case map[string]any:
		if ex, ok := x["examples"].(map[string]any); ok {
			if _, isProp := ex["type"]; !isProp {
				delete(x, "examples")
			}
		}
		for _, c := range x {
			dropObjectExamples(c)
		}
	case []any:
		for _, c := range x {
			dropObjectExamples(c)
		}
	}
}

// discriminateBalances fixes glacier.json's getBalancesByAddresses answer,
// a oneOf of the P-, X- and C-Chain balances that no P- or X-Chain answer
// can pass: the C-Chain's schema requires only the two atomic lists both
// others have, so every P or X answer matches two branches. The real
// service's answers fail it alike; the SDKs read it as a union. The answer
// must instead match the branch its chainInfo.chainName names.
func discriminateBalances(doc map[string]any) {
	paths, _ := doc["paths"].(map[string]any)
	op, _ := paths["/v1/networks/{network}/blockchains/{blockchainId}/balances"].(map[string]any)
	get, _ := op["get"].(map[string]any)
	resp, _ := get["responses"].(map[string]any)
	ok, _ := resp["200"].(map[string]any)
	content, _ := ok["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	if media == nil {
		return
	}
	branch := func(chain, name string) any {
		return map[string]any{
			"if":   map[string]any{"properties": map[string]any{"chainInfo": map[string]any{"properties": map[string]any{"chainName": map[string]any{"const": chain}}}}},
			"then": map[string]any{"$ref": "#/components/schemas/" + name},
		}
	}
	media["schema"] = map[string]any{
		"required":   []any{"chainInfo"},
		"properties": map[string]any{"chainInfo": map[string]any{"$ref": "#/components/schemas/PrimaryNetworkChainInfo"}},
		"allOf": []any{branch("p-chain", "ListPChainBalancesResponse"), branch("x-chain", "ListXChainBalancesResponse"),
			branch("c-chain", "ListCChainAtomicBalancesResponse")},
	}
}
