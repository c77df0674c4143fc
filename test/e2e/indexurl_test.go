package e2e

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestIndexURLRefused: the built binary started with a bad
// AVAEDGE_INDEX_URL exits at once with an error naming local.index_url: a
// URL of another scheme is refused as such, and a postgres:// URL without a
// followed node (the devnet's chains are each replica's own) is refused
// saying it needs one. The password is in neither.
func TestIndexURLRefused(t *testing.T) {
	tests := []struct{ url, want string }{
		{"mysql://u:hunter2@127.0.0.1:3306/x", `local.index_url: "mysql://u:xxxxx@127.0.0.1:3306/x" is not a postgres:// URL`},
		{"postgres://u:hunter2@127.0.0.1:5432/avaedge", "local.index_url: needs local.node"},
	}
	for _, tt := range tests {
		t.Run(tt.url[:strings.Index(tt.url, ":")], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary)
			cmd.Env = append(os.Environ(), "AVAEDGE_INDEX_URL="+tt.url, "AVAEDGE_LISTEN=127.0.0.1:0", "AVAEDGE_ADMIN_LISTEN=127.0.0.1:0")
			out, err := cmd.CombinedOutput()
			if err == nil || ctx.Err() != nil {
				t.Fatalf("the binary did not refuse AVAEDGE_INDEX_URL=%s (err %v):\n%s", tt.url, err, out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Fatalf("output:\n%s\nwant %q", out, tt.want)
			}
			if strings.Contains(string(out), "hunter2") {
				t.Fatalf("the output repeats the password:\n%s", out)
			}
		})
	}
}
