package limits

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Plan is what a key may do. Zero limits are unlimited.
type Plan struct {
	// Name is the plan's name in the keys file.
	Name string `yaml:"-"`
	// RPS is the request rate; 0 means unlimited.
	RPS float64 `yaml:"rps"`
	// Burst is how many requests may come at once; 0 means max(1, RPS).
	Burst int `yaml:"burst"`
	// CUPerMinute is a GCRA over compute units with a one-minute period.
	CUPerMinute int64 `yaml:"cu_per_minute"`
	// CUPerDay is counted in fixed windows aligned to the UTC day.
	CUPerDay int64 `yaml:"cu_per_day"`
	// CUPerMonth is counted in fixed windows aligned to the UTC month.
	CUPerMonth int64 `yaml:"cu_per_month"`
	// Routes, when set, is the allow-list of route names.
	Routes []string `yaml:"routes"`
	// CacheBypass lets the plan's clients skip the cache's read with a
	// request's Cache-Control: no-cache (or no-store, or Pragma: no-cache);
	// such a request is charged as any other of its route and goes upstream
	// through the cache's single flight. False (the default) ignores those
	// directives: the cache protects the operator's upstream quota, and a
	// client's directive must not switch it off (nginx's proxy_cache,
	// Varnish and CDNs ignore them by default too).
	CacheBypass bool `yaml:"cache_bypass"`
}

// Key is one API key of the keys file.
type Key struct {
	// ID names the key in logs, metrics and the admin API.
	ID string `yaml:"id"`
	// SHA256 is the hex SHA-256 of the key.
	SHA256 string `yaml:"sha256"`
	// Key is the key in plain text, accepted for development.
	Key string `yaml:"key"`
	// Plan names the key's plan.
	Plan string `yaml:"plan"`
}

// KeysFile is the keys and plans file.
type KeysFile struct {
	Plans map[string]Plan `yaml:"plans"`
	Keys  []Key           `yaml:"keys"`
	// Anonymous is the plan of clients without a key, applied per client IP.
	// Empty means clients must send a key.
	Anonymous string `yaml:"anonymous"`
	// PageTokenSecret, when set, keys the local routes' page tokens, shared
	// by the replicas that read this file (config's page_token_secret).
	// Read at start only, not on reload.
	PageTokenSecret string `yaml:"page_token_secret"`
	// Unmanaged, when set, is the plan of every key that is not in Keys:
	// such a key is accepted and metered on its own, by its SHA-256. It is
	// what DefaultKeysFile does, for an operator who manages no keys; a
	// keys file never sets it, so with one, unknown keys are refused.
	Unmanaged string `yaml:"-"`
}

// DefaultKeysFile returns the real Data API's published plans (its "Rate
// Limits" page; docs/facts.md, section 1), anonymous clients on "unauthenticated" and
// every key on "free", the plan the Data API gives a key of its free tier:
// without a keys file avaedge manages no keys, so a client's own key is
// metered by its hash, never refused.
func DefaultKeysFile() *KeysFile {
	plan := func(min, day int64) Plan { return Plan{CUPerMinute: min, CUPerDay: day} }
	kf := &KeysFile{
		Plans: map[string]Plan{
			"unauthenticated": plan(6000, 1_200_000),
			"free":            plan(8000, 2_000_000),
			"base":            plan(10000, 3_750_000),
			"growth":          plan(14000, 11_200_000),
			"pro":             plan(20000, 25_000_000),
		},
		Anonymous: "unauthenticated",
		Unmanaged: "free",
	}
	kf.normalize()
	return kf
}

// LoadKeysFile reads and validates a keys file. Unknown fields are errors.
func LoadKeysFile(path string) (*KeysFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("keys file: %w", err)
	}
	return ParseKeysFile(b)
}

// ParseKeysFile parses and validates keys file YAML.
func ParseKeysFile(b []byte) (*KeysFile, error) {
	if err := refuseRemoved(b); err != nil {
		return nil, err
	}
	var kf KeysFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&kf); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("keys file: %w", err)
	}
	if err := kf.validate(); err != nil {
		return nil, err
	}
	kf.normalize()
	return &kf, nil
}

// refuseRemoved names the settings avaedge no longer accepts, with the
// reason, instead of yaml's bare "field not found".
func refuseRemoved(b []byte) error {
	var probe struct {
		Plans map[string]struct {
			ChargeCached yaml.Node `yaml:"charge_cached"`
		} `yaml:"plans"`
	}
	if yaml.Unmarshal(b, &probe) != nil {
		return nil // the strict decode reports the syntax error
	}
	var errs []error
	for name, p := range probe.Plans {
		if p.ChargeCached.Kind != 0 {
			errs = append(errs, fmt.Errorf("keys file: plans.%s.charge_cached: is not supported: every answer is charged, "+
				"because a request is admitted before the cache is read, and charging only misses would let "+
				"uncached requests (the expensive ones) through unmetered", name))
		}
	}
	return errors.Join(errs...)
}

func (kf *KeysFile) validate() error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("keys file: %s: %s", field, fmt.Sprintf(format, a...)))
	}
	if len(kf.Plans) == 0 {
		// Also what a half-written file looks like: never swap it in.
		bad("plans", "defines no plans")
	}
	if n := len(kf.PageTokenSecret); n > 0 && n < 16 {
		bad("page_token_secret", "must be at least 16 characters, got %d", n)
	}
	for name, p := range kf.Plans {
		f := "plans." + name
		if p.RPS < 0 || p.Burst < 0 || p.CUPerMinute < 0 || p.CUPerDay < 0 || p.CUPerMonth < 0 {
			bad(f, "limits must not be negative")
		}
	}
	if kf.Anonymous != "" {
		if _, ok := kf.Plans[kf.Anonymous]; !ok {
			bad("anonymous", "no plan %q", kf.Anonymous)
		}
	}
	ids := map[string]bool{}
	hashes := map[string]bool{}
	for i, k := range kf.Keys {
		f := fmt.Sprintf("keys[%d]", i)
		if k.ID == "" {
			bad(f+".id", "is required")
		} else if ids[k.ID] {
			bad(f+".id", "%q is used twice", k.ID)
		}
		ids[k.ID] = true
		if _, ok := kf.Plans[k.Plan]; !ok {
			bad(f+".plan", "no plan %q", k.Plan)
		}
		switch {
		case k.SHA256 == "" && k.Key == "":
			bad(f, "needs sha256 (or key, for development)")
		case k.SHA256 != "":
			if b, err := hex.DecodeString(k.SHA256); err != nil || len(b) != sha256.Size {
				bad(f+".sha256", "is not 64 hex digits")
			}
		}
		h := k.hash()
		if hashes[h] {
			bad(f, "the same key appears twice")
		}
		hashes[h] = true
	}
	return errors.Join(errs...)
}

func (kf *KeysFile) normalize() {
	for name, p := range kf.Plans {
		p.Name = name
		if p.Burst == 0 && p.RPS > 0 {
			p.Burst = max(1, int(p.RPS+0.999))
		}
		kf.Plans[name] = p
	}
}

// hash returns the lower-case hex SHA-256 of the key.
func (k Key) hash() string {
	if k.SHA256 != "" {
		return strings.ToLower(k.SHA256)
	}
	sum := sha256.Sum256([]byte(k.Key))
	return hex.EncodeToString(sum[:])
}

// allows reports whether every route is in the plan's allow-list, or with
// any, one of them (none given: any route). When not, it returns the route
// to name in the refusal ("" with any).
func (p *Plan) allows(routes []string, any bool) (string, bool) {
	if len(p.Routes) == 0 {
		return "", true
	}
	if any {
		for _, r := range routes {
			if slices.Contains(p.Routes, r) {
				return "", true
			}
		}
		return "", len(routes) == 0
	}
	for _, r := range routes {
		if !slices.Contains(p.Routes, r) {
			return r, false
		}
	}
	return "", true
}
