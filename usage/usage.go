// Package usage meters every request the edge answers, by key, and answers
// the Data API's own usage routes (/v1/apiUsageMetrics, /v1/apiLogs,
// /v1/subnetRpcUsageMetrics, /v1/rpcUsageMetrics,
// /v1/primaryNetworkRpcUsageMetrics) for the calling key only, from what it
// metered, as well as the operator's fleet view (/admin/usage).
//
// A request costs the edge one copy of its Record into one of several
// sharded buffers (record.go): no I/O, no allocation, no lock shared by
// every request. A flusher drains the buffers, aggregates the records per
// key and minute in process (aggregate.go) and writes them in batches every
// FlushInterval and at Close: to Redis when the edge has one, shared by
// every replica (redis.go); else to SQLite in the data directory
// (sqlite.go); else to a bounded in-memory store (memory.go).
package usage

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"

	"github.com/avaedge/avaedge/catalog"
)

// Record is what the edge knows of one answered request. The edge fills it
// from strings it already holds, so building one allocates nothing.
type Record struct {
	// Start is when the request arrived; Duration how long its answer took
	// (0 for an answer from the in-process cache tier, answered at once:
	// the edge does not read the clock again for it).
	Start    time.Time
	Duration time.Duration
	// Identity is who the request was counted for, as the limiter names it:
	// "key:<id>" for a key of the keys file, "hash:<hex sha256>" for a key
	// avaedge does not manage, "ip:<addr>" for an anonymous client, "" when
	// the request was never identified (refused for its key). Only keyed
	// requests are kept per key; anonymous ones are counted together as
	// Anonymous, without logs.
	Identity string
	// KeyID is how the key is shown (Decision.KeyID): "acme",
	// "sha256:<16 hex digits>"; never the key itself.
	KeyID string
	// Route is the catalogue's operation name ("getLatestBlocks",
	// "info.getNetworkID", "evm.rpc", "passthrough").
	Route string
	// Path is the route's path template as the service reports it
	// ("/v1/chains/{chainId}/blocks"), the node endpoint's path for JSON-RPC,
	// or the request's path when no route matched.
	Path string
	// Values are the route's validated parameters, if any: their chainId
	// (else blockchainId) is the request's chain. Read when drained.
	Values catalog.Values
	// Method is the JSON-RPC method of a node call ("avm.getUTXOs",
	// "eth_blockNumber", "batch" for an EVM batch).
	Method string
	// Shape, when set, stands for Route, Path, Values and Method: the edge
	// passes the request's plan when it shares it between requests (a
	// remembered GET), so a repeated request is counted by a pointer
	// instead of by its strings. Nil means they are read from the fields.
	Shape any
	// RequestID is the answer's X-Request-Id: the log's id.
	RequestID string
	// RemoteAddr, Host and Header are the request's, read only when the
	// record is drained (the client's address, user agent and host of its
	// log line): the request path copies no header.
	RemoteAddr string
	Host       string
	Header     http.Header
	// Status is the answer's HTTP status; Source where it came from
	// (upstream, cache, local, edge).
	Status int
	Source string
	// CU is what the request was charged (0 when it was refused).
	CU int64
	// RPC says the request was a node JSON-RPC call (requestType "rpc").
	RPC bool
}

// Anonymous is the identity every anonymous client's requests are counted
// under, together (for the operator's view; they have no logs).
const Anonymous = "anonymous"

// Caller is the client of a usage route: its identity and how its key is
// shown, from the limiter.
type Caller struct {
	Identity string
	KeyID    string
}

// Options configures a Meter. Zero values mean the documented defaults.
type Options struct {
	// Redis shares the usage of every replica. Nil means DataDir, else
	// memory.
	Redis redis.UniversalClient
	// Prefix starts every Redis key. "" means "avaedge".
	Prefix string
	// DataDir, without Redis, holds usage.db (SQLite), which survives
	// restarts. "" keeps usage in memory (bounded by MaxMemoryFields).
	DataDir string
	// FlushInterval is how often the aggregated usage is written. Zero means
	// 10s.
	FlushInterval time.Duration
	// LogsPerKey bounds the request logs kept per key (newest kept). Zero
	// means 10,000.
	LogsPerKey int
	// LogBytesPerKey bounds the bytes of the request logs kept per key in
	// Redis (newest kept). Zero means 1 KiB per line of LogsPerKey (a line
	// is 0.4-1 KiB: its client-chosen values are clipped).
	LogBytesPerKey int64
	// LogMaxAge bounds how long a request log is kept. Zero means 7 days.
	LogMaxAge time.Duration
	// RetryFor is how long a batch that could not be written is kept and
	// retried (oldest dropped first, each drop counted and logged). Zero
	// means 15 minutes.
	RetryFor time.Duration
	// MaxMemoryFields bounds the in-memory store's counters (the oldest
	// minutes are forgotten first). Zero means 500,000.
	MaxMemoryFields int
	// ClientIP names a request's client in its log line. Nil uses the
	// connection's address.
	ClientIP func(r *http.Request) string
	// EVMChainID is the EVM chain id of the node endpoint's C-Chain
	// ("43114"), the chain of EVM JSON-RPC calls. "" means "c-chain".
	EVMChainID string
	// HostRegion is the region the log lines name. "" means "local".
	HostRegion string
	// Registerer receives the meter's metrics. Nil registers none.
	Registerer prometheus.Registerer
	// Logger logs write failures and losses. Nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}

// Meter meters requests and answers the usage routes. It is safe for
// concurrent use; Close flushes what it holds.
type Meter struct {
	opts   Options
	shards [shardCount]shard
	wake   chan struct{} // a shard is filling up: drain early
	store  store
	m      *metrics
	log    *slog.Logger
	// pages collapses concurrent reads of one apiLogs page (logsPage).
	pages singleflight.Group
	// replica names this process's batches in Redis, so a retried batch is
	// applied once.
	replica string

	// The flusher's own state (only its goroutine touches it).
	pending *pending
	queue   []*batch
	seq     uint64
	spare   [shardCount][]Record // drained log buffers, for reuse
	failing bool                 // the last write failed (logged once per outage)

	flushMu sync.Mutex // serialises drains and flushes (the flusher and Flush)
	stop    chan struct{}
	done    chan struct{}
	closed  atomic.Bool
}

// New returns a Meter writing to the store the options name, and starts its
// flusher.
func New(opts Options) (*Meter, error) {
	if opts.Prefix == "" {
		opts.Prefix = "avaedge"
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = 10 * time.Second
	}
	if opts.LogsPerKey <= 0 {
		opts.LogsPerKey = 10_000
	}
	if opts.LogBytesPerKey <= 0 {
		opts.LogBytesPerKey = int64(opts.LogsPerKey) << 10
	}
	if opts.LogMaxAge <= 0 {
		opts.LogMaxAge = 7 * 24 * time.Hour
	}
	if opts.RetryFor <= 0 {
		opts.RetryFor = 15 * time.Minute
	}
	if opts.MaxMemoryFields <= 0 {
		opts.MaxMemoryFields = 500_000
	}
	if opts.EVMChainID == "" {
		opts.EVMChainID = "c-chain"
	}
	if opts.HostRegion == "" {
		opts.HostRegion = "local"
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	u := &Meter{opts: opts, wake: make(chan struct{}, 1), m: m, log: opts.Logger,
		replica: randomID(), pending: newPending(), stop: make(chan struct{}), done: make(chan struct{})}
	for i := range u.shards {
		u.shards[i].cells = map[cellKey]*cell{}
	}
	switch {
	case opts.Redis != nil:
		u.store = &redisStore{rdb: opts.Redis, prefix: opts.Prefix + ":usage:", replica: u.replica,
			logsPerKey: opts.LogsPerKey, logBytesPerKey: opts.LogBytesPerKey, logMaxAge: opts.LogMaxAge}
	case opts.DataDir != "":
		s, err := openSQLite(opts.DataDir, opts.LogsPerKey, opts.LogMaxAge)
		if err != nil {
			return nil, err
		}
		u.store = s
	default:
		u.store = newMemStore(opts.MaxMemoryFields, opts.LogsPerKey, opts.LogMaxAge)
	}
	go u.run()
	return u, nil
}

// run drains the shards when one fills up and flushes every FlushInterval,
// until Close.
func (u *Meter) run() {
	defer close(u.done)
	t := time.NewTicker(u.opts.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-u.stop:
			return
		case <-u.wake:
			u.flushMu.Lock()
			u.drain()
			u.flushMu.Unlock()
		case <-t.C:
			// A large batch is written in many short round trips: it may
			// take longer than a short interval (a hung Redis fails at once
			// through the guard).
			ctx, cancel := context.WithTimeout(context.Background(), max(u.opts.FlushInterval, 10*time.Second))
			u.Flush(ctx)
			cancel()
		}
	}
}

// Flush drains the buffers and writes everything aggregated so far (and any
// batch an earlier flush could not write). It returns the first write error.
func (u *Meter) Flush(ctx context.Context) error {
	u.flushMu.Lock()
	defer u.flushMu.Unlock()
	u.drain()
	return u.flush(ctx, u.opts.Now())
}

// Close stops the flusher and writes what the meter holds, within 5s.
func (u *Meter) Close() error {
	if u.closed.Swap(true) {
		return nil
	}
	close(u.stop)
	<-u.done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := u.Flush(ctx)
	if n := u.queuedRequests(); n > 0 {
		u.m.lost.Add(float64(n))
		u.log.Error("usage: requests not written at shutdown are lost", "requests", n, "err", err)
	}
	if c, ok := u.store.(interface{ close() error }); ok {
		c.close()
	}
	return err
}
