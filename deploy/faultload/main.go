// Command faultload drives load through avaedge on loopback while its upstream
// dies and comes back, and checks that warmed cacheable routes and routes with
// a local handler never fail meanwhile. It is bounded in requests and time and
// stops by itself; run it with deploy/faultload.sh.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	bin := flag.String("avaedge", "./avaedge", "avaedge binary")
	dur := flag.Duration("duration", 12*time.Second, "length of the run")
	workers := flag.Int("workers", 8, "concurrent clients")
	maxReq := flag.Int64("max-requests", 300000, "stop after this many requests")
	flag.Parse()
	if err := run(*bin, *dur, *workers, *maxReq); err != nil {
		fmt.Fprintln(os.Stderr, "faultload:", err)
		os.Exit(1)
	}
}

// origin is a fake Data API that can be killed and restarted on its port.
type origin struct {
	addr string
	mu   sync.Mutex // guards srv
	srv  *http.Server
}

func (o *origin) start() error {
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	o.addr = ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.URL.Path, "/fuji/") {
			// fuji answers are not cacheable, so during the outage they can
			// only come from the local devnet (fuji is mapped to it).
			w.Header().Set("Cache-Control", "no-store")
		}
		fmt.Fprintf(w, `{"path":%q,"subnets":[]}`, r.URL.Path)
	})}
	o.mu.Lock()
	o.srv = srv
	o.mu.Unlock()
	go srv.Serve(ln)
	return nil
}

func (o *origin) kill() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.srv.Close()
}

func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

type tally struct {
	mu        sync.Mutex // guards the maps
	total     atomic.Int64
	ok        atomic.Int64
	bad       atomic.Int64
	bySource  map[string]int64
	badDuring map[string]int64
}

// run starts the origin and the edge, warms the cacheable routes, drives
// load for dur while the origin is killed and restarted, and checks that no
// request failed.
func run(bin string, dur time.Duration, workers int, maxReq int64) error {
	o := &origin{addr: "127.0.0.1:0"}
	if err := o.start(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), dur+30*time.Second)
	defer cancel()
	edge := freeAddr()
	stop, err := startEdge(ctx, bin, edge, o.addr)
	if err != nil {
		return err
	}
	defer stop()
	base := "http://" + edge
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	if err := waitUp(client, base+"/healthz"); err != nil {
		return err
	}
	// Warmed cacheable routes (answered from stale copies while the origin is
	// down) and routes a local handler serves (fuji is mapped to the devnet).
	warmed := []string{
		"/v1/networks/mainnet/subnets",
		"/v1/networks/mainnet/validators?pageSize=5",
		"/v1/networks/mainnet/delegators",
	}
	locals := []string{
		"/v1/networks/fuji/subnets",
		"/v1/networks/fuji/validators?pageSize=5",
	}
	for _, p := range warmed {
		if _, _, err := hit(client, base+p); err != nil {
			return fmt.Errorf("warm %s: %w", p, err)
		}
	}
	paths := append(append([]string{}, warmed...), locals...)
	t := &tally{bySource: map[string]int64{}, badDuring: map[string]int64{}}
	var down atomic.Bool
	go outage(o, dur, &down)
	load(client, base, paths, t, &down, time.Now().Add(dur), workers, maxReq)
	return t.report()
}

// startEdge starts the edge at edge in front of originAddr, fuji mapped to the
// devnet, its one anonymous client on a plan that never refuses (so every
// answer shows the fallback chain, not the limiter). stop ends it.
func startEdge(ctx context.Context, bin, edge, originAddr string) (stop func(), err error) {
	keys, err := os.CreateTemp("", "faultload-keys-*.yaml")
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(keys, "plans:\n  load: {cu_per_minute: 1000000000000}\nanonymous: load")
	keys.Close()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(),
		"AVAEDGE_LISTEN="+edge,
		"AVAEDGE_ADMIN_LISTEN=127.0.0.1:0",
		"AVAEDGE_DATA_UPSTREAM=http://"+originAddr,
		"AVAEDGE_LOCAL_NETWORKS=fuji",
		"AVAEDGE_KEYS_FILE="+keys.Name(),
	)
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		os.Remove(keys.Name())
		return nil, err
	}
	return func() { cmd.Process.Kill(); cmd.Wait(); os.Remove(keys.Name()) }, nil
}

// outage kills the origin a third of dur in, and restarts it a third
// later; down says when it is down.
func outage(o *origin, dur time.Duration, down *atomic.Bool) {
	time.Sleep(dur / 3)
	o.kill()
	down.Store(true)
	fmt.Println("origin killed")
	time.Sleep(dur / 3)
	if err := o.start(); err != nil {
		fmt.Println("origin restart failed:", err)
		return
	}
	down.Store(false)
	fmt.Println("origin restarted")
}

// load runs workers that ask paths in turn until deadline or maxReq
// requests, counting the answers in t.
func load(client *http.Client, base string, paths []string, t *tally, down *atomic.Bool, deadline time.Time, workers int, maxReq int64) {
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for n := i; time.Now().Before(deadline) && t.total.Load() < maxReq; n++ {
				p := paths[n%len(paths)]
				status, src, err := hit(client, base+p)
				t.total.Add(1)
				t.mu.Lock()
				if err == nil && status/100 == 2 {
					t.ok.Add(1)
					t.bySource[src]++
				} else {
					t.bad.Add(1)
					key := fmt.Sprintf("%s -> %d %v", p, status, err)
					if down.Load() {
						t.badDuring[key]++
					}
					t.bySource["failed"]++
				}
				t.mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
}

// report prints the tally and fails when a request failed.
func (t *tally) report() error {
	fmt.Printf("requests sent %d, answered 2xx %d, non-2xx %d\n", t.total.Load(), t.ok.Load(), t.bad.Load())
	var srcs []string
	for s := range t.bySource {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	for _, s := range srcs {
		fmt.Printf("  source %-10s %d\n", s, t.bySource[s])
	}
	if len(t.badDuring) > 0 {
		for k, n := range t.badDuring {
			fmt.Printf("  failed during outage: %s (%d)\n", k, n)
		}
		return errors.New("requests failed during the outage")
	}
	if t.bad.Load() > 0 {
		return errors.New("requests failed")
	}
	return nil
}

func hit(c *http.Client, url string) (int, string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, strings.ToLower(resp.Header.Get("X-Avaedge-Source")), nil
}

func waitUp(c *http.Client, url string) error {
	for i := 0; i < 600; i++ {
		if resp, err := c.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("avaedge did not come up")
}
