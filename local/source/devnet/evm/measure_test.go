package evm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMeasureDirReopen measures what opening a chain kept in a directory
// costs once it holds many blocks: it fills a directory with
// AVAEDGE_MEASURE_DEVCHAIN_BLOCKS blocks (AVAEDGE_MEASURE_DEVCHAIN_DIR keeps
// it between runs), then opens it in a fresh process, three times, and
// logs the time New took and the process's resident memory (VmRSS, and its
// peak VmHWM), beside a chain seeded in memory. It is a measurement, not a
// check: without the variable it does not run (docs/measured.md).
func TestMeasureDirReopen(t *testing.T) {
	if mode := os.Getenv("AVAEDGE_MEASURE_CHILD"); mode != "" {
		measureChild(mode)
		return
	}
	want, _ := strconv.ParseUint(os.Getenv("AVAEDGE_MEASURE_DEVCHAIN_BLOCKS"), 10, 64)
	if want == 0 {
		t.Skip("a measurement: set AVAEDGE_MEASURE_DEVCHAIN_BLOCKS (e.g. 100000)")
	}
	dir := os.Getenv("AVAEDGE_MEASURE_DEVCHAIN_DIR")
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "43112")
	}
	fillStart := time.Now()
	c, err := New(context.Background(), Options{Dir: dir, NoAutoMine: true, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	c.noSync = true // the fill is not what is measured
	for c.Head().NumberU64() < want {
		if _, err := c.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("filled %s to block %d in %s", dir, want, time.Since(fillStart).Round(time.Second))
	for _, mode := range []string{"memory", dir, dir, dir} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMeasureDirReopen$", "-test.count=1")
		cmd.Env = append(os.Environ(), "AVAEDGE_MEASURE_CHILD="+mode)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		line, _, _ := strings.Cut(string(out), "\n")
		t.Logf("load %s; %s", loadavg(), line)
	}
}

// measureChild opens the chain (mode "memory": seeded in memory; else the
// directory) and prints the time it took and the process's memory.
func measureChild(mode string) {
	opts := Options{NoAutoMine: true}
	if mode != "memory" {
		opts.Dir = mode
	}
	start := time.Now()
	c, err := New(context.Background(), opts)
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	took := time.Since(start)
	runtime.GC()
	fmt.Printf("open %s: block %d in %s, VmRSS %s, VmHWM %s\n", mode, c.Head().NumberU64(), took.Round(time.Millisecond), procStatus("VmRSS"), procStatus("VmHWM"))
	c.Close()
}

// procStatus is a field of /proc/self/status.
func procStatus(field string) string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// loadavg is the machine's 1-minute load average.
func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
