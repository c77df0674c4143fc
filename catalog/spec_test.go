package catalog

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/internal/markdown"
	"github.com/avaedge/avaedge/internal/spectest"
)

// unpublished are the operations of glacier.json and popsicle.json that the
// catalogue leaves out on purpose, by "METHOD path", with the reason: they
// belong to the operator's account (its webhooks, usage, logs, exports) or
// write, and the operator's key must never serve them to a client.
// docs/routes.md lists the same. An operator shares one
// with named keys through publish:.
var unpublished = map[string]string{
	"POST /v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex": "write: makes the service fetch a token's metadata again",
	"GET /v1/operations/{operationId}":                                              "account: the operator's export jobs",
	"POST /v1/operations/transactions:export":                                       "account and write: starts an export job",
	"GET /v1/apiUsageMetrics":                                                       "the edge's own: each key's usage (usage.Routes), never forwarded",
	"GET /v1/apiLogs":                                                               "the edge's own: each key's request logs (usage.Routes), never forwarded",
	"GET /v1/subnetRpcUsageMetrics":                                                 "the edge's own: each key's RPC usage (usage.Routes), never forwarded",
	"GET /v1/primaryNetworkRpcUsageMetrics":                                         "the edge's own: each key's RPC usage (usage.Routes), never forwarded",
	"POST /v1/webhooks":                                                             "account and write: webhooks",
	"GET /v1/webhooks":                                                              "account: webhooks",
	"GET /v1/webhooks/{id}":                                                         "account: webhooks",
	"DELETE /v1/webhooks/{id}":                                                      "account and write: webhooks",
	"PATCH /v1/webhooks/{id}":                                                       "account and write: webhooks",
	"POST /v1/webhooks:generateOrRotateSharedSecret":                                "account and write: the webhooks' signing secret",
	"GET /v1/webhooks:getSharedSecret":                                              "account: the webhooks' signing secret",
	"PATCH /v1/webhooks/{id}/addresses":                                             "account and write: webhooks",
	"DELETE /v1/webhooks/{id}/addresses":                                            "account and write: webhooks",
	"GET /v1/webhooks/{id}/addresses":                                               "account: webhooks",
	"POST /v2/lookingGlass/compositeQuery":                                          "an open-ended query over the Metrics API's data (3,000 CU a call), not a public read",
}

// narrowed are the parameters whose rules the catalogue takes from their
// description where the schema says less (an integer where the schema says
// number, bounds where it gives none), by "route in name".
var narrowed = map[string]string{
	"aggregateSignatures body quorumPercentage":       "Integer from 0 to 100",
	"aggregateSignatures body quorumPercentageBuffer": "Integer from 0 to 100",
	"aggregateSignatures body pChainHeight":           "a P-Chain height: a whole number, 0 by default",
}

// TestCatalogueIsTheSpec walks both OpenAPI files: every operation is a
// catalogued route (named by its operationId, with its method, path and
// parameters) or one of the unpublished, and every catalogued REST route in
// neither file is a named legacy read.
func TestCatalogueIsTheSpec(t *testing.T) {
	byName := map[string]*Route{}
	routes := Catalogue()
	for i := range routes {
		byName[routes[i].Name] = &routes[i]
	}
	inSpec := map[string]bool{} // "METHOD path" of every operation
	for _, spec := range []*spectest.Spec{spectest.DataAPI(nil), spectest.MetricsAPI(nil)} {
		ops, err := spec.Operations()
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			key := op.Method + " " + op.Path
			inSpec[key] = true
			rt := byName[op.ID]
			if _, skip := unpublished[key]; skip {
				if rt != nil {
					t.Errorf("%s (%s) is both catalogued and unpublished", op.ID, key)
				}
				continue
			}
			if rt == nil {
				t.Errorf("%s (%s) is a public read of the spec but not catalogued (or list it as unpublished, with its reason)", op.ID, key)
				continue
			}
			if rt.Method != op.Method || rt.Path != op.Path || rt.Legacy != "" {
				t.Errorf("%s: catalogued as %s %s (legacy %q); the spec has %s", op.ID, rt.Method, rt.Path, rt.Legacy, key)
			}
			for _, msg := range compareParams(rt, op) {
				t.Errorf("%s: %s", op.ID, msg)
			}
		}
	}
	for key := range unpublished {
		if !inSpec[key] {
			t.Errorf("unpublished %s is in neither spec", key)
		}
	}
	for i := range routes {
		rt := &routes[i]
		if rt.IsRPC() || inSpec[rt.Method+" "+rt.Path] {
			continue
		}
		if rt.Legacy == "" {
			t.Errorf("%s (%s) is in neither spec and names no SDK that needs it (Legacy)", rt.Name, rt.Pattern())
		}
		if rt.Successor == "" {
			continue
		}
		succ := byName[rt.Successor]
		if succ == nil || succ.Legacy != "" {
			t.Errorf("%s: successor %q is not a route of the specs", rt.Name, rt.Successor)
			continue
		}
		if a, b := paramNames(rt), paramNames(succ); !slices.Equal(a, b) {
			t.Errorf("%s takes %v, its successor %s %v: one handler cannot answer both", rt.Name, a, succ.Name, b)
		}
	}
}

// compareParams lists how rt's parameters differ from op's: names and
// places, required, type, enum, bounds (narrowed ones excepted), and
// defaults where the spec gives one (avaedge fills some the spec only
// describes, see rules.go).
func compareParams(rt *Route, op spectest.Operation) []string {
	var msgs []string
	seen := map[string]bool{}
	for _, sp := range op.Params {
		key := sp.In + " " + sp.Name
		seen[key] = true
		var p *Param
		for i := range rt.Params {
			if rt.Params[i].Name == sp.Name && inName(rt.Params[i].In) == sp.In {
				p = &rt.Params[i]
			}
		}
		if p == nil {
			msgs = append(msgs, "no parameter "+key)
			continue
		}
		if p.Required != (sp.Required || sp.In == "path") {
			msgs = append(msgs, fmt.Sprintf("%s: required %v; the spec says %v", key, p.Required, sp.Required))
		}
		_, narrow := narrowed[rt.Name+" "+key]
		got, want := kindName(p), sp.Type
		if got != want && !(got == "string" && want == "") && !(narrow && got == "integer" && want == "number") {
			msgs = append(msgs, fmt.Sprintf("%s: type %s; the spec says %q", key, got, want))
		}
		if !slices.Equal(p.Enum, sp.Enum) {
			msgs = append(msgs, fmt.Sprintf("%s: enum %v; the spec says %v", key, p.Enum, sp.Enum))
		}
		if sp.Minimum != nil && (!p.HasMin || *sp.Minimum != p.Min) || sp.Minimum == nil && p.HasMin && !narrow {
			msgs = append(msgs, fmt.Sprintf("%s: minimum %v (%v); the spec says %v", key, p.Min, p.HasMin, deref(sp.Minimum)))
		}
		if sp.Maximum != nil && (!p.HasMax || *sp.Maximum != p.Max) || sp.Maximum == nil && p.HasMax && !narrow {
			msgs = append(msgs, fmt.Sprintf("%s: maximum %v (%v); the spec says %v", key, p.Max, p.HasMax, deref(sp.Maximum)))
		}
		if sp.Default != "" {
			var def any
			json.Unmarshal([]byte(sp.Default), &def)
			if want := fmt.Sprint(def); p.Default != want {
				msgs = append(msgs, fmt.Sprintf("%s: default %q; the spec says %s", key, p.Default, sp.Default))
			}
		}
	}
	for _, p := range rt.Params {
		if key := inName(p.In) + " " + p.Name; !seen[key] {
			msgs = append(msgs, "parameter "+key+" is not in the spec")
		}
	}
	return msgs
}

func inName(in In) string {
	switch in {
	case Path:
		return "path"
	case Body:
		return "body"
	}
	return "query"
}

func kindName(p *Param) string {
	if p.Format == Array {
		return "array"
	}
	switch p.Kind {
	case Integer:
		return "integer"
	case Number:
		return "number"
	case Boolean:
		return "boolean"
	}
	return "string"
}

func deref(f *float64) any {
	if f == nil {
		return "none"
	}
	return *f
}

func paramNames(rt *Route) []string {
	var names []string
	for _, p := range rt.Params {
		names = append(names, inName(p.In)+" "+p.Name)
	}
	slices.Sort(names)
	return names
}

// TestUnpublishedNamed: docs/routes.md names every operation of the specs
// that the catalogue leaves out (by its operationId), so a reader learns
// what the edge refuses.
func TestUnpublishedNamed(t *testing.T) {
	p, err := markdown.Read("docs/routes.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, l := range p.Lines {
		for _, span := range markdown.Spans(l) {
			named[span] = true
		}
	}
	for _, spec := range []*spectest.Spec{spectest.DataAPI(nil), spectest.MetricsAPI(nil)} {
		ops, err := spec.Operations()
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			if _, ok := unpublished[op.Method+" "+op.Path]; ok && !named[op.ID] {
				t.Errorf("%s (%s %s) is unpublished; docs/routes.md does not name it", op.ID, op.Method, op.Path)
			}
		}
	}
}

// TestLegacyNamed: the legacy reads are exactly the ones docs/routes.md's
// table names, with their paths and successors, and each names the SDKs (or
// the seed) that call it.
func TestLegacyNamed(t *testing.T) {
	tb, err := markdown.ReadTable("docs/routes.md", "route", "path", "called by", "successor")
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, row := range tb.Rows {
		want = append(want, strings.Join([]string{row[0], row[1], row[3]}, " "))
	}
	for _, rt := range Catalogue() {
		if rt.Legacy == "" {
			continue
		}
		successor := "none"
		if rt.Successor != "" {
			successor = "`" + rt.Successor + "`"
		}
		got = append(got, fmt.Sprintf("`%s` `%s` %s", rt.Name, rt.Pattern(), successor))
		if !strings.Contains(rt.Legacy, "sdk") && !strings.Contains(rt.Legacy, "seed") {
			t.Errorf("%s: Legacy %q names no SDK or seed", rt.Name, rt.Legacy)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("legacy routes %q; docs/routes.md names %q", got, want)
	}
}

// TestPublishedCosts: every route the services' "Rate Limits" pages price
// (copied into testdata/) costs that in the catalogue, and every priced read
// is catalogued or unpublished.
func TestPublishedCosts(t *testing.T) {
	byPattern := map[string]*Route{}
	routes := Catalogue()
	for i := range routes {
		if !routes[i].IsRPC() {
			byPattern[routes[i].Pattern()] = &routes[i]
		}
	}
	priced := 0
	for _, file := range []string{"testdata/data-api-rate-limits.mdx", "testdata/metrics-api-rate-limits.mdx"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// | `/v1/chains` | GET | Free | 1 |
		for _, m := range regexp.MustCompile("(?m)^\\| `(/v[12]/[^`]*)`\\s*\\| (GET|POST)\\s*\\| \\w+\\s*\\| ([0-9]+)").FindAllStringSubmatch(string(b), -1) {
			priced++
			pattern, cost := m[2]+" "+m[1], m[3]
			rt := byPattern[pattern]
			if rt == nil {
				if _, ok := unpublished[pattern]; !ok && pattern != "GET /v1/rpcUsageMetrics" {
					t.Errorf("%s is priced (%s CU) but neither catalogued nor unpublished", pattern, cost)
				}
				continue
			}
			if strconv.FormatInt(rt.Cost, 10) != cost {
				t.Errorf("%s costs %d; the published cost is %s", rt.Name, rt.Cost, cost)
			}
		}
	}
	if priced < 80 {
		t.Fatalf("read %d priced routes from testdata; the pages changed shape", priced)
	}
}
