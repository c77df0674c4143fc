// Package deploy holds the deployment artifacts; its test parses each of
// them so they cannot rot.
package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/avaedge/avaedge/config"
)

func docs(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []map[string]any
	for {
		var d map[string]any
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, d)
	}
}

func TestKubernetes(t *testing.T) {
	kinds := map[string]map[string]any{}
	for _, d := range docs(t, "k8s/avaedge.yaml") {
		kind, _ := d["kind"].(string)
		if kind == "" || d["apiVersion"] == nil {
			t.Fatalf("document without kind or apiVersion: %v", d)
		}
		kinds[kind] = d
	}
	for _, k := range []string{"ConfigMap", "Secret", "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"} {
		if kinds[k] == nil {
			t.Fatalf("no %s", k)
		}
	}
	// The ConfigMap's config must load.
	cfgText := kinds["ConfigMap"]["data"].(map[string]any)["config.yaml"].(string)
	var c config.Config
	if err := config.Parse([]byte(cfgText), &c); err != nil {
		t.Fatalf("ConfigMap config: %v", err)
	}
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatalf("ConfigMap config: %v", err)
	}
	// Probes point at the admin port's health paths.
	spec := kinds["Deployment"]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	ctr := spec["containers"].([]any)[0].(map[string]any)
	for probe, path := range map[string]string{"readinessProbe": "/readyz", "livenessProbe": "/healthz"} {
		g := ctr[probe].(map[string]any)["httpGet"].(map[string]any)
		if g["path"] != path || g["port"] != "admin" {
			t.Fatalf("%s: %v", probe, g)
		}
	}
}

func TestCompose(t *testing.T) {
	d := docs(t, "compose.yaml")[0]
	svcs := d["services"].(map[string]any)
	if svcs["redis"] == nil || svcs["avaedge"] == nil {
		t.Fatalf("services: %v", svcs)
	}
	env := svcs["avaedge"].(map[string]any)["environment"].(map[string]any)
	if env["AVAEDGE_REDIS"] == nil {
		t.Fatal("avaedge does not use the compose Redis")
	}
}

func TestFiles(t *testing.T) {
	for file, wants := range map[string][]string{
		"Dockerfile":              {"CGO_ENABLED=1", "nonroot", "ENTRYPOINT"},
		"systemd/avaedge.service": {"ExecStart=", "DynamicUser=yes", "NoNewPrivileges=yes", "ProtectSystem=strict", "StateDirectory=", "ExecReload=/bin/kill -HUP"},
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wants {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s lacks %q", file, w)
			}
		}
	}
	// Every example config loads.
	files, _ := filepath.Glob("examples/*.yaml")
	for _, f := range files {
		if _, err := config.Load(f, func(string) string { return "" }); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
