package usage

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Levels of aggregation: every request counts in its minute, hour and day.
type level uint8

const (
	minuteLevel level = iota
	hourLevel
	dayLevel
)

var levels = [...]struct {
	name      string
	seconds   int64
	retention time.Duration // how long the level's buckets are kept
}{
	minuteLevel: {"m", 60, 48 * time.Hour},
	hourLevel:   {"h", 3600, 35 * 24 * time.Hour},
	dayLevel:    {"d", 86400, 400 * 24 * time.Hour},
}

// dims are the dimensions a request is counted under within its key and
// minute: what the usage routes filter and group by.
type dims struct {
	typ    string // "data" or "rpc"
	path   string // requestPath
	code   string // responseCode
	chain  string // chainId
	method string // rpcMethod (node calls)
	ua     string // userAgent (node calls)
	src    string // where the answer came from: upstream, cache, local, edge
}

const sep = "\x1f"

// encode is dims as a counter field's prefix.
func (d dims) encode() string {
	return d.typ + sep + d.path + sep + d.code + sep + d.chain + sep + d.method + sep + d.ua + sep + d.src
}

// parseField splits a counter field into its dims and counter name.
func parseField(f string) (dims, string, bool) {
	p := strings.Split(f, sep)
	if len(p) != 8 {
		return dims{}, "", false
	}
	return dims{p[0], p[1], p[2], p[3], p[4], p[5], p[6]}, p[7], true
}

// maxDims bounds the distinct dims one key has in one minute: past it the
// values a client chooses (path, chain, method, user agent) are counted as
// "(other)", so no client can grow its counters without bound.
const maxDims = 256

const other = "(other)"

// maxText bounds the free text kept of a path, method or user agent.
const maxText = 128

// Duration buckets, upper bounds in milliseconds: the median is read off
// them (medianResponseTimeMsecs), interpolated within its bucket.
var durBounds = [...]float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000}

const nDur = len(durBounds) + 1

// counters are one dims' counts in one bucket.
type counters struct {
	n, ok, inv, cu, cuw int64
	dur                 [nDur]int64
}

func (c *counters) add(rec *Record) { c.count(rec.Status, rec.CU, rec.Duration) }

// count counts one request of status, charged cu, answered in d.
func (c *counters) count(status int, cu int64, d time.Duration) {
	c.n++
	switch {
	case status < 400:
		c.ok++
	case status < 500:
		c.inv++
		c.cuw += cu
	}
	c.cu += cu
	ms := float64(d) / float64(time.Millisecond)
	i := 0
	for i < len(durBounds) && ms > durBounds[i] {
		i++
	}
	c.dur[i]++
}

// merge adds o to c.
func (c *counters) merge(o *counters) {
	c.n += o.n
	c.ok += o.ok
	c.inv += o.inv
	c.cu += o.cu
	c.cuw += o.cuw
	for i, v := range o.dur {
		c.dur[i] += v
	}
}

// fields appends c as named counter increments.
func (c *counters) fields(prefix string, out map[string]int64) {
	add := func(name string, v int64) {
		if v != 0 {
			out[prefix+sep+name] += v
		}
	}
	add("n", c.n)
	add("ok", c.ok)
	add("inv", c.inv)
	add("cu", c.cu)
	add("cuw", c.cuw)
	for i, v := range c.dur {
		if v != 0 {
			add("d"+strconv.Itoa(i), v)
		}
	}
}

// minuteKey names one key's minute.
type minuteKey struct {
	identity string
	minute   int64 // unix seconds
}

// pending is what the flusher aggregated since the last flush.
type pending struct {
	minutes  map[minuteKey]map[dims]*counters
	cu       map[cuKey]int64     // charged since the last drain, for the metric
	logs     map[string]*keyLogs // by identity
	nLogs    int
	requests int64
}

func newPending() *pending {
	return &pending{minutes: map[minuteKey]map[dims]*counters{}, logs: map[string]*keyLogs{}, cu: map[cuKey]int64{}}
}

// keyLogs are one key's log lines held until the next flush, in arrival
// order: those of the requests it was charged for and those of its refused
// ones (an error status and no CU), apart, so that a flood of refusals pushes none of its real
// traffic out, and is itself bounded (keptLines).
type keyLogs struct {
	charged, refused []logRec
}

func (k *keyLogs) len() int { return len(k.charged) + len(k.refused) }

// cuKey names the compute-unit counter a record adds to.
type cuKey struct{ typ, route, source string }

// publish adds the compute units counted since the last call to the
// metric.
func (p *pending) publish(m *metrics) {
	for k, v := range p.cu {
		m.cu.WithLabelValues(k.typ, k.route, k.source).Add(float64(v))
		delete(p.cu, k)
	}
}

// maxPendingLogs bounds the log lines held between two flushes; past it
// the oldest of the key holding the most are dropped (counted).
const maxPendingLogs = 200_000

// addCell adds a shard's cell to what is pending.
func (p *pending) addCell(c *cell) {
	p.requests += c.c.n
	if c.c.cu != 0 {
		p.cu[cuKey{c.d.typ, c.route, c.d.src}] += c.c.cu
	}
	mk := minuteKey{c.identity, c.minute}
	m := p.minutes[mk]
	if m == nil {
		m = map[dims]*counters{}
		p.minutes[mk] = m
	}
	d := c.d
	dst := m[d]
	if dst == nil {
		if len(m) >= maxDims {
			d.path, d.chain, d.method, d.ua = other, other, other, other
			dst = m[d]
		}
		if dst == nil {
			dst = &counters{}
			m[d] = dst
		}
	}
	dst.merge(&c.c)
}

// addLog adds a keyed request's log line to what is pending.
func (p *pending) addLog(rec *Record, u *Meter) {
	k := p.logs[rec.Identity]
	if k == nil {
		k = &keyLogs{}
		p.logs[rec.Identity] = k
	}
	l := &k.charged
	if rec.CU == 0 && rec.Status >= 400 {
		l = &k.refused
	}
	*l = append(*l, u.logRec(rec, u.dimsOf(rec)))
	p.nLogs++
	if keep := u.opts.LogsPerKey; len(*l) >= 2*keep {
		// Only the newest LogsPerKey lines of a key are ever kept.
		p.nLogs -= len(*l) - keep
		*l = append((*l)[:0], (*l)[len(*l)-keep:]...)
	}
	if p.nLogs > maxPendingLogs {
		p.dropOldestLog(u)
	}
}

// dropOldestLog drops the oldest line of the key holding the most: a
// refused request's if it has one.
func (p *pending) dropOldestLog(u *Meter) {
	var worst *keyLogs
	for _, k := range p.logs {
		if worst == nil || k.len() > worst.len() {
			worst = k
		}
	}
	if len(worst.refused) > 0 {
		worst.refused = worst.refused[1:]
	} else {
		worst.charged = worst.charged[1:]
	}
	p.nLogs--
	u.m.logsDropped.Inc()
}

// longest returns the key of m's longest list.
func longest[T any](m map[string][]T) string {
	var worst string
	for id, l := range m {
		if worst == "" || len(l) > len(m[worst]) {
			worst = id
		}
	}
	return worst
}

// statusTexts are the decimal statuses, made once.
var statusTexts = func() (out [600]string) {
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}()

func statusText(s int) string {
	if s >= 0 && s < len(statusTexts) {
		return statusTexts[s]
	}
	return strconv.Itoa(s)
}

func clip(s string) string {
	if len(s) > maxText {
		s = s[:maxText]
	}
	if strings.Contains(s, sep) {
		s = strings.ReplaceAll(s, sep, " ")
	}
	return s
}

func headerValue(rec *Record, name string) string {
	if v := rec.Header[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// logRec is a log line held until it is written: encoded to JSON only
// then, and only when it is among the key's newest.
type logRec struct {
	f   logFormat
	dur time.Duration
}

// logLine is one request's log line as the stores keep it: its time and
// id, which order it, and the rest of its glacier.json LogsFormat object
// (appendLog writes the whole object).
type logLine struct {
	At   int64 // unix milliseconds
	ID   string
	JSON string // the LogsFormat object from hostRegion on (logFormat's JSON)
}

// logFormat is glacier.json's LogsFormat. Its first five fields are not
// stored with each line: the time and id are the line's own, the key's id
// that of the key whose log it is; appendLog writes them.
type logFormat struct {
	OrgID                string      `json:"-"`
	LogID                string      `json:"-"`
	EventTimestamp       int64       `json:"-"`
	APIKeyID             string      `json:"-"`
	APIKeyAlias          string      `json:"-"`
	HostRegion           string      `json:"hostRegion"`
	RequestType          string      `json:"requestType"`
	RequestPath          string      `json:"requestPath"`
	APICreditsConsumed   int64       `json:"apiCreditsConsumed"`
	RequestDurationMsecs float64     `json:"requestDurationMsecs"`
	ResponseCode         int         `json:"responseCode"`
	ChainID              string      `json:"chainId,omitempty"`
	RPCMethod            string      `json:"rpcMethod,omitempty"`
	Metadata             logMetadata `json:"metadata"`
}

type logMetadata struct {
	IPAddress string `json:"ipAddress"`
	Host      string `json:"host"`
	UserAgent string `json:"userAgent"`
}

func (u *Meter) logRec(rec *Record, d dims) logRec {
	ip := ""
	if u.opts.ClientIP != nil {
		ip = u.opts.ClientIP(&http.Request{RemoteAddr: rec.RemoteAddr, Header: rec.Header})
	} else if host, _, err := net.SplitHostPort(rec.RemoteAddr); err == nil {
		ip = host
	}
	return logRec{f: logFormat{OrgID: rec.KeyID, LogID: rec.RequestID, EventTimestamp: rec.Start.UnixMilli(), APIKeyID: rec.KeyID,
		APIKeyAlias: rec.KeyID, HostRegion: u.opts.HostRegion, RequestType: d.typ, RequestPath: d.path, APICreditsConsumed: rec.CU,
		ResponseCode: rec.Status, ChainID: d.chain, RPCMethod: d.method,
		Metadata: logMetadata{IPAddress: ip, Host: clip(rec.Host), UserAgent: clip(headerValue(rec, "User-Agent"))}}, dur: rec.Duration}
}

// line encodes r.
func (r *logRec) line() logLine {
	r.f.RequestDurationMsecs = float64(r.dur.Microseconds()) / 1000
	b, _ := json.Marshal(&r.f) // strings and numbers only
	return logLine{At: r.f.EventTimestamp, ID: r.f.LogID, JSON: string(b)}
}

// bucketKey names one key's bucket of one level.
type bucketKey struct {
	identity string
	level    level
	start    int64 // unix seconds
}

// batch is one flush: counter increments per bucket and log lines per key.
type batch struct {
	seq      uint64
	made     time.Time
	counts   map[bucketKey]map[string]int64
	logs     map[string][]logLine
	requests int64 // requests it counts, for loss accounting
}

// take turns what is pending into a batch and starts afresh.
func (u *Meter) take(now time.Time) *batch {
	p := u.pending
	if p.requests == 0 {
		return nil
	}
	u.pending = newPending()
	u.seq++
	b := &batch{seq: u.seq, made: now, counts: map[bucketKey]map[string]int64{}, logs: map[string][]logLine{}, requests: p.requests}
	for mk, m := range p.minutes {
		for lv := range levels {
			k := bucketKey{mk.identity, level(lv), mk.minute / levels[lv].seconds * levels[lv].seconds}
			f := b.counts[k]
			if f == nil {
				f = map[string]int64{}
				b.counts[k] = f
			}
			for d, c := range m {
				c.fields(d.encode(), f)
			}
		}
	}
	for id, k := range p.logs {
		b.logs[id] = u.keptLines(k)
	}
	return b
}

// keptLines are the lines a key's batch writes, newest first: its newest
// LogsPerKey, of which its refused requests' at most as many as its charged
// ones plus one a second of the flush interval (at least one). So a key's log
// grows no faster than its plan lets it make requests, however fast it is
// refused; the refused lines left out are counted in logs_dropped_total.
func (u *Meter) keptLines(k *keyLogs) []logLine {
	refused := min(len(k.refused), len(k.charged)+max(1, int(u.opts.FlushInterval/time.Second)))
	if n := len(k.refused) - refused; n > 0 {
		u.m.logsDropped.Add(float64(n))
	}
	recs := make([]*logRec, 0, len(k.charged)+refused)
	for i := range k.charged {
		recs = append(recs, &k.charged[i])
	}
	for i := len(k.refused) - refused; i < len(k.refused); i++ {
		recs = append(recs, &k.refused[i])
	}
	sort.Slice(recs, func(i, j int) bool {
		a, b := &recs[i].f, &recs[j].f
		return a.EventTimestamp > b.EventTimestamp || a.EventTimestamp == b.EventTimestamp && a.LogID > b.LogID
	})
	recs = recs[:min(len(recs), u.opts.LogsPerKey)]
	lines := make([]logLine, len(recs))
	for i, r := range recs {
		lines[i] = r.line()
	}
	return lines
}

// flush queues what is pending and writes the queue oldest first, stopping
// at the first failure (the rest is retried next time). Batches older than
// RetryFor are dropped, counted as lost and logged. Callers hold flushMu.
func (u *Meter) flush(ctx context.Context, now time.Time) error {
	if b := u.take(now); b != nil {
		u.queue = append(u.queue, b)
	}
	for len(u.queue) > 0 && now.Sub(u.queue[0].made) > u.opts.RetryFor {
		b := u.queue[0]
		u.queue = u.queue[1:]
		u.m.lost.Add(float64(b.requests))
		u.log.Error("usage: a batch could not be written in time and is lost", "requests", b.requests,
			"age", now.Sub(b.made).Round(time.Second).String(), "retry_for", u.opts.RetryFor.String())
	}
	for len(u.queue) > 0 {
		b := u.queue[0]
		start := time.Now()
		err := u.store.write(ctx, b, now)
		u.m.flushSeconds.Observe(time.Since(start).Seconds())
		if err != nil {
			u.m.flushErrors.Inc()
			if len(u.queue) == 1 || !u.failing {
				u.log.Warn("usage: writing a batch failed; it is kept and retried", "err", err,
					"queued_batches", len(u.queue), "queued_requests", u.queuedRequests())
			}
			u.failing = true
			u.m.queued.Set(float64(u.queuedRequests()))
			return err
		}
		if u.failing && len(u.queue) == 1 {
			u.log.Info("usage: writing works again; every kept batch is written")
			u.failing = false
		}
		u.m.flushed.Add(float64(b.requests))
		u.queue = u.queue[1:]
	}
	u.m.queued.Set(0)
	return nil
}

func (u *Meter) queuedRequests() int64 {
	var n int64
	for _, b := range u.queue {
		n += b.requests
	}
	return n + u.pending.requests
}
