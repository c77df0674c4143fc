package limits

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// keySet is an immutable view of a keys file.
type keySet struct {
	file   *KeysFile
	byHash map[string]*Key // hex sha256 -> key
	byID   map[string]*Key
	plans  map[string]*planInfo
	// unissued is the day and month budgets shared by the unissued keys
	// of one address: perAddress times the Unmanaged plan's; nil when
	// there are none.
	unissued *planInfo
}

// planInfo is what a decision needs of a plan, computed once per keys file.
type planInfo struct {
	plan    Plan
	rule    rule // the plan's limits
	divided rule // the limits while Redis fails (divided by replicas)
	policy  string
	// allowed, limited and forbidden count the plan's decisions.
	allowed, limited, forbidden prometheus.Counter
}

func newKeySet(kf *KeysFile, replicas, perAddress int, m *metrics) *keySet {
	ks := &keySet{file: kf, byHash: map[string]*Key{}, byID: map[string]*Key{}, plans: map[string]*planInfo{}}
	for i := range kf.Keys {
		k := &kf.Keys[i]
		ks.byHash[k.hash()] = k
		ks.byID[k.ID] = k
	}
	for name, p := range kf.Plans {
		ks.plans[name] = newPlanInfo(p, replicas, m)
	}
	if p, ok := kf.Plans[kf.Unmanaged]; ok && perAddress > 0 && (p.CUPerDay > 0 || p.CUPerMonth > 0) {
		n := int64(perAddress)
		ks.unissued = newPlanInfo(Plan{Name: "unissued", CUPerDay: n * p.CUPerDay, CUPerMonth: n * p.CUPerMonth}, replicas, m)
	}
	return ks
}

func newPlanInfo(p Plan, replicas int, m *metrics) *planInfo {
	pi := &planInfo{plan: p,
		allowed:   m.decisions.WithLabelValues(p.Name, "allowed"),
		limited:   m.decisions.WithLabelValues(p.Name, "limited"),
		forbidden: m.decisions.WithLabelValues(p.Name, "forbidden")}
	pi.rule = ruleOf(&pi.plan, 1)
	pi.divided = ruleOf(&pi.plan, replicas)
	pi.policy = policyOf(&pi.plan)
	return pi
}

// policyOf is the ratelimit-policy of a plan: each limit as
// "<quota>;w=<window seconds>" (IETF RateLimit header fields draft), the
// month counted as 30 days.
func policyOf(p *Plan) string {
	var parts []string
	if p.CUPerMinute > 0 {
		parts = append(parts, strconv.FormatInt(p.CUPerMinute, 10)+";w=60")
	}
	if p.CUPerDay > 0 {
		parts = append(parts, strconv.FormatInt(p.CUPerDay, 10)+";w=86400")
	}
	if p.CUPerMonth > 0 {
		parts = append(parts, strconv.FormatInt(p.CUPerMonth, 10)+";w=2592000")
	}
	if p.RPS > 0 {
		parts = append(parts, strconv.Itoa(p.Burst)+";w=1")
	}
	return strings.Join(parts, ", ")
}

// Reload re-reads KeysPath. Counters are kept: they belong to key ids.
func (l *Limiter) Reload() error {
	if l.opts.KeysPath == "" {
		return nil
	}
	kf, err := LoadKeysFile(l.opts.KeysPath)
	if err != nil {
		l.log.Error("keys file not reloaded", "err", err)
		return err
	}
	l.keys.Store(newKeySet(kf, l.opts.Replicas, l.opts.UnissuedKeys.PerAddress, l.m))
	l.fileSig.Store(fileSig(l.opts.KeysPath))
	l.log.Info("keys file reloaded", "keys", len(kf.Keys), "plans", len(kf.Plans))
	return nil
}

func fileSig(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(st.Size(), 10) + "@" + strconv.FormatInt(st.ModTime().UnixNano(), 10)
}

// watch reloads KeysPath when its size or modification time changes, until
// Close.
func (l *Limiter) watch() {
	defer l.wg.Done()
	t := time.NewTicker(l.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			if sig := fileSig(l.opts.KeysPath); sig != "" && sig != l.fileSig.Load() {
				l.Reload()
			}
		}
	}
}
