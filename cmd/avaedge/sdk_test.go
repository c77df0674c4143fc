package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSDKConformance drives every catalogued Data and Metrics route of the
// local world through the official AvaCloud SDK, whose zod schemas reject
// nulls, missing fields, wrong number types and unknown enum values. It needs
// node and test/sdk/node_modules (`npm ci` in test/sdk, done by .ci/run);
// without them it is skipped unless AVAEDGE_TEST_SDK=required.
func TestSDKConformance(t *testing.T) {
	dir, _ := filepath.Abs("../../test/sdk")
	node, err := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "@avalabs", "avacloud-sdk"))
	if err != nil || modErr != nil {
		if os.Getenv("AVAEDGE_TEST_SDK") == "required" {
			t.Fatalf("node or the SDK is missing (node: %v, sdk: %v): run npm ci in test/sdk", err, modErr)
		}
		t.Skip("node or test/sdk/node_modules missing: run npm ci in test/sdk")
	}
	// One edge answers three runs: more than the anonymous plan's 6,000 CU
	// a minute (the Metrics API's looking-glass routes cost 500 and 1,000).
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(keys, []byte("plans:\n  bulk: {cu_per_minute: 1000000000}\nanonymous: bulk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pub, _, _ := startEdge(t, map[string]string{"AVAEDGE_KEYS_FILE": keys})
	for _, network := range []string{"fuji", "mainnet", "testnet"} {
		t.Run(network, func(t *testing.T) {
			cmd := exec.Command(node, filepath.Join(dir, "conformance.mjs"), pub, network)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("SDK conformance failed: %v\n%s", err, out)
			}
			t.Logf("%s", out)
		})
	}
}
