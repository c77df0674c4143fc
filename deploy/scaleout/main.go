// Command scaleout starts three avaedge replicas on loopback sharing a
// 3-node Redis Cluster, drives load through all three, and checks: cache
// entries fetched by one replica are hits on the others; one key's quota is
// enforced once across the cluster; no request fails while a Redis node
// restarts. Bounded in time and requests; run it with deploy/scaleout.sh.
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
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	bin := flag.String("avaedge", "./avaedge", "avaedge binary")
	flag.Parse()
	if err := run(*bin); err != nil {
		fmt.Fprintln(os.Stderr, "scaleout:", err)
		os.Exit(1)
	}
	fmt.Println("scaleout: ok")
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

type procs struct {
	mu   sync.Mutex // guards list
	list []*exec.Cmd
}

func (p *procs) start(ctx context.Context, name string, args []string, env []string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.list = append(p.list, cmd)
	p.mu.Unlock()
	return cmd, nil
}

func (p *procs) stopAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.list {
		c.Process.Kill()
		c.Wait()
	}
}

func redisArgs(dir string, port int) []string {
	return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
		"--cluster-config-file", filepath.Join(dir, "nodes-"+strconv.Itoa(port)+".conf"), "--dir", dir,
		"--save", "", "--appendonly", "yes", "--appendfilename", "aof-" + strconv.Itoa(port)}
}

func waitTCP(addr string) error {
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s did not come up", addr)
}

// run starts the cluster, the origin and the replicas, then checks the
// shared cache, the cluster-wide quota and a Redis node's restart.
func run(bin string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ps := &procs{}
	defer ps.stopAll()
	dir, err := os.MkdirTemp("", "scaleout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	rc, err := startCluster(ctx, ps, dir)
	if err != nil {
		return err
	}
	o, err := startOrigin()
	if err != nil {
		return err
	}
	defer o.srv.Close()
	edges, err := startReplicas(ctx, ps, bin, dir, o.addr, rc.nodes)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for _, e := range edges {
		if err := waitHTTP(client, e+"/healthz"); err != nil {
			return err
		}
	}
	fmt.Println("replicas up:", strings.Join(edges, " "))
	if err := checkSharedCache(client, edges, &o.calls); err != nil {
		return err
	}
	if err := checkQuota(client, edges); err != nil {
		return err
	}
	return checkRestart(ctx, ps, dir, client, edges, rc)
}

// redisCluster is the 3-node Redis Cluster: its nodes' ports, addresses and
// processes.
type redisCluster struct {
	ports []int
	nodes []string
	cmds  map[int]*exec.Cmd
}

// startCluster starts a 3-node Redis Cluster in dir and waits until it is
// ok.
func startCluster(ctx context.Context, ps *procs, dir string) (*redisCluster, error) {
	rc := &redisCluster{cmds: map[int]*exec.Cmd{}}
	for i := 0; i < 3; i++ {
		p := freePort()
		c, err := ps.start(ctx, "redis-server", redisArgs(dir, p), nil)
		if err != nil {
			return nil, fmt.Errorf("redis-server: %w", err)
		}
		rc.cmds[p] = c
		rc.ports = append(rc.ports, p)
		rc.nodes = append(rc.nodes, "127.0.0.1:"+strconv.Itoa(p))
		if err := waitTCP(rc.nodes[i]); err != nil {
			return nil, err
		}
	}
	create := exec.CommandContext(ctx, "redis-cli", append(append([]string{"--cluster", "create"}, rc.nodes...), "--cluster-replicas", "0", "--cluster-yes")...)
	if out, err := create.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("cluster create: %v: %s", err, out)
	}
	for i := 0; ; i++ {
		out, _ := exec.Command("redis-cli", "-p", strconv.Itoa(rc.ports[0]), "cluster", "info").Output()
		if strings.Contains(string(out), "cluster_state:ok") {
			break
		}
		if i > 100 {
			return nil, errors.New("cluster did not become ok")
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Println("redis cluster up:", strings.Join(rc.nodes, ","))
	return rc, nil
}

// origin is an upstream that counts its calls.
type origin struct {
	srv   *http.Server
	addr  string
	calls atomic.Int64
}

func startOrigin() (*origin, error) {
	o := &origin{}
	o.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q}`, r.URL.Path)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	o.addr = ln.Addr().String()
	go o.srv.Serve(ln)
	return o, nil
}

// startReplicas starts three replicas in front of origin, sharing the
// cluster's nodes, with a keys file whose "quota-key" may spend 2,000 CU a
// day; it returns their base URLs.
func startReplicas(ctx context.Context, ps *procs, bin, dir, originAddr string, nodes []string) ([]string, error) {
	keys := filepath.Join(dir, "keys.yaml")
	os.WriteFile(keys, []byte("plans:\n  load: {cu_per_minute: 1000000000000}\n  quota: {cu_per_day: 2000}\nkeys:\n  - {id: q, key: quota-key, plan: quota}\nanonymous: load\n"), 0o600)
	var edges []string
	for i := 0; i < 3; i++ {
		addr := "127.0.0.1:" + strconv.Itoa(freePort())
		_, err := ps.start(ctx, bin, nil, []string{
			"AVAEDGE_LISTEN=" + addr, "AVAEDGE_ADMIN_LISTEN=127.0.0.1:0",
			"AVAEDGE_DATA_UPSTREAM=http://" + originAddr,
			"AVAEDGE_METRICS_UPSTREAM=http://" + originAddr,
			"AVAEDGE_NODE_UPSTREAM=http://" + originAddr,
			"AVAEDGE_REDIS=" + strings.Join(nodes, ","), "AVAEDGE_KEYS_FILE=" + keys,
		})
		if err != nil {
			return nil, err
		}
		edges = append(edges, "http://"+addr)
	}
	return edges, nil
}

// checkSharedCache: replica 0 fetches 30 pages; replicas 1 and 2 hit them.
func checkSharedCache(client *http.Client, edges []string, originCalls *atomic.Int64) error {
	hits := 0
	for i := 0; i < 30; i++ {
		p := fmt.Sprintf("/v1/networks/mainnet/validators?pageToken=p%d", i)
		if _, st, err := get(client, edges[0]+p, ""); err != nil || st != 200 {
			return fmt.Errorf("warm %s: %d %v", p, st, err)
		}
		for _, e := range edges[1:] {
			cs, _, _ := get(client, e+p, "")
			if cs == "HIT" {
				hits++
			}
		}
	}
	fmt.Printf("shared cache: %d of 60 requests on replicas 1-2 were hits; origin calls %d\n", hits, originCalls.Load())
	if hits != 60 {
		return errors.New("replicas did not share cache entries")
	}
	return nil
}

// checkQuota: one cluster-wide quota of 2,000 CU/day at 20 CU per request
// is 100 requests, spread over the three replicas.
func checkQuota(client *http.Client, edges []string) error {
	var allowed, limited atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 12; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				_, st, err := get(client, edges[(w+i)%3]+"/v1/networks/mainnet/subnets?pageToken=q", "quota-key")
				switch {
				case err == nil && st == 200:
					allowed.Add(1)
				case err == nil && st == 429:
					limited.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	fmt.Printf("cluster-wide quota: %d allowed, %d limited of 300 (plan allows 100)\n", allowed.Load(), limited.Load())
	if allowed.Load() != 100 || limited.Load() != 200 {
		return errors.New("the quota was not enforced once across replicas")
	}
	return nil
}

// checkRestart restarts one Redis node under load: no request may fail.
func checkRestart(ctx context.Context, ps *procs, dir string, client *http.Client, edges []string, rc *redisCluster) error {
	var sent, failed atomic.Int64
	stop := make(chan struct{})
	var lw sync.WaitGroup
	for w := 0; w < 6; w++ {
		lw.Add(1)
		go func(w int) {
			defer lw.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if sent.Load() > 200000 {
					return
				}
				_, st, err := get(client, fmt.Sprintf("%s/v1/networks/mainnet/delegators?pageToken=r%d", edges[(w+i)%3], i%50), "")
				sent.Add(1)
				if err != nil || st != 200 {
					failed.Add(1)
				}
			}
		}(w)
	}
	time.Sleep(2 * time.Second)
	victim := rc.ports[1]
	rc.cmds[victim].Process.Kill()
	rc.cmds[victim].Wait()
	fmt.Println("redis node", victim, "stopped")
	time.Sleep(3 * time.Second)
	if _, err := ps.start(ctx, "redis-server", redisArgs(dir, victim), nil); err != nil {
		close(stop)
		lw.Wait()
		return err
	}
	waitTCP("127.0.0.1:" + strconv.Itoa(victim))
	fmt.Println("redis node", victim, "restarted")
	time.Sleep(3 * time.Second)
	close(stop)
	lw.Wait()
	fmt.Printf("during the restart: %d requests, %d failed\n", sent.Load(), failed.Load())
	if failed.Load() != 0 {
		return errors.New("requests failed while a Redis node restarted")
	}
	return nil
}

func get(c *http.Client, url, key string) (cacheStatus string, status int, err error) {
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("X-Glacier-Api-Key", key)
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.Header.Get("X-Cache-Status"), resp.StatusCode, nil
}

func waitHTTP(c *http.Client, url string) error {
	for i := 0; i < 600; i++ {
		if resp, err := c.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not come up", url)
}
