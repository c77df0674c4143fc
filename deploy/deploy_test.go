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

// manifests returns a Kubernetes file's documents by kind, checking that
// the ones every avaedge manifest has are there, that the ConfigMap's
// config loads and validates (with the environment the Deployment sets,
// secrets replaced by placeholders), and that the probes point at the admin
// port's health paths.
func manifests(t *testing.T, path string, extraKinds ...string) map[string]map[string]any {
	t.Helper()
	kinds := map[string]map[string]any{}
	for _, d := range docs(t, path) {
		kind, _ := d["kind"].(string)
		if kind == "" || d["apiVersion"] == nil {
			t.Fatalf("%s: document without kind or apiVersion: %v", path, d)
		}
		kinds[kind] = d
	}
	for _, k := range append([]string{"ConfigMap", "Secret", "Deployment", "Service", "PodDisruptionBudget"}, extraKinds...) {
		if kinds[k] == nil {
			t.Fatalf("%s: no %s", path, k)
		}
	}
	spec := kinds["Deployment"]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	ctr := spec["containers"].([]any)[0].(map[string]any)
	env := map[string]string{}
	for _, e := range ctr["env"].([]any) {
		e := e.(map[string]any)
		v, _ := e["value"].(string)
		if ref, ok := e["valueFrom"].(map[string]any); ok {
			sk := ref["secretKeyRef"].(map[string]any)
			var found bool
			v, found = kinds["Secret"]["stringData"].(map[string]any)[sk["key"].(string)].(string)
			if !found && sk["optional"] != true {
				t.Fatalf("%s: env %s names the Secret's key %q, which it lacks", path, e["name"], sk["key"])
			}
		}
		env[e["name"].(string)] = v
	}
	cfgText := kinds["ConfigMap"]["data"].(map[string]any)["config.yaml"].(string)
	var c config.Config
	if err := config.Parse([]byte(cfgText), &c); err != nil {
		t.Fatalf("%s: ConfigMap config: %v", path, err)
	}
	c.ApplyEnv(func(k string) string { return env[k] })
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatalf("%s: ConfigMap config with the Deployment's environment: %v", path, err)
	}
	for probe, p := range map[string]string{"readinessProbe": "/readyz", "livenessProbe": "/healthz"} {
		g := ctr[probe].(map[string]any)["httpGet"].(map[string]any)
		if g["path"] != p || g["port"] != "admin" {
			t.Fatalf("%s: %s: %v", path, probe, g)
		}
	}
	return kinds
}

func TestKubernetes(t *testing.T) {
	manifests(t, "k8s/avaedge.yaml", "HorizontalPodAutoscaler")
}

// The fleet follows a node with its index in PostgreSQL: the URL (with its
// password) comes from the Secret, never the ConfigMap, and the PostgreSQL
// the replicas reach is the one the manifest runs.
func TestKubernetesFleet(t *testing.T) {
	kinds := manifests(t, "k8s/fleet.yaml", "StatefulSet")
	cfgText := kinds["ConfigMap"]["data"].(map[string]any)["config.yaml"].(string)
	if strings.Contains(cfgText, "index_url") || !strings.Contains(cfgText, "node:") {
		t.Fatalf("the fleet's ConfigMap must name the node and leave the index's URL to the Secret:\n%s", cfgText)
	}
	url := kinds["Secret"]["stringData"].(map[string]any)["index-url"].(string)
	svc := kinds["StatefulSet"]["spec"].(map[string]any)["serviceName"].(string)
	if !strings.HasPrefix(url, "postgres://") || !strings.Contains(url, "@"+svc+":5432/") {
		t.Fatalf("index-url %q does not reach the StatefulSet's service %q", url, svc)
	}
}

func TestCompose(t *testing.T) {
	for file, wants := range map[string][]string{
		"compose.yaml":       {"AVAEDGE_REDIS"},
		"compose-fleet.yaml": {"AVAEDGE_REDIS", "AVAEDGE_INDEX_URL", "AVAEDGE_LOCAL_NODE"},
	} {
		svcs := docs(t, file)[0]["services"].(map[string]any)
		if svcs["redis"] == nil || svcs["avaedge"] == nil {
			t.Fatalf("%s: services: %v", file, svcs)
		}
		env := svcs["avaedge"].(map[string]any)["environment"].(map[string]any)
		for _, w := range wants {
			if env[w] == nil {
				t.Errorf("%s: avaedge does not set %s", file, w)
			}
		}
		if strings.Contains(file, "fleet") && (svcs["postgres"] == nil ||
			!strings.Contains(env["AVAEDGE_INDEX_URL"].(string), "@postgres:5432/")) {
			t.Errorf("%s: the index is not in the compose PostgreSQL", file)
		}
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
