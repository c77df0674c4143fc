package limits

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
)

// Client is who a request comes from, as Identify found it: the identity its
// counters belong to and its plan. The zero Client is not valid; get one from
// Identify.
type Client struct {
	id    string // the counters' identity: "key:<id>", "hash:<hex sha256 of an unmanaged key>" or "ip:<addr>"
	keyID string // what Decision.KeyID says
	keyed bool   // a key was presented and accepted
	plan  *planInfo
	// group is, for a key nobody issued, the client's address group (its
	// anonymous id), for the bound on such keys (unissued.go); "" otherwise.
	group string
}

// KeyID names the client as Decision.KeyID does.
func (c Client) KeyID() string { return c.keyID }

// Identity is who the client's requests are counted for: "key:<id>" for a
// key of the keys file, "hash:<hex sha256>" for a key avaedge does not
// manage, "ip:<addr>" for an anonymous client.
func (c Client) Identity() string { return c.id }

// Keyed reports whether the client presented a key that was accepted.
func (c Client) Keyed() bool { return c.keyed }

// Owner names who the client's share of what the edge holds for clients
// belongs to (the dev chains' call slots and filters): its key for a key of
// the keys file, else its address's anonymous id ("ip:<addr>", IPv6 by
// /64), so keys nobody issued buy no extra share; with UnissuedKeys off
// (PerAddress negative), an unissued key's hash.
func (c Client) Owner() string {
	if c.group != "" {
		return c.group
	}
	return c.id
}

type clientKey struct{}

// NewContext returns a copy of ctx that carries c, for the parts of the
// edge that keep bounds per client (FromContext).
func NewContext(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// FromContext returns the Client ctx carries, if NewContext put one there.
func FromContext(ctx context.Context) (Client, bool) {
	c, ok := ctx.Value(clientKey{}).(Client)
	return c, ok
}

// Identify finds the client of r: its key (X-Glacier-Api-Key, else
// X-Data-Api-Key) or, without one, its address. It does no I/O, so a
// request can be identified, and refused, before its body is read. A
// Decision with a non-zero Status is a refusal (401) to answer instead.
func (l *Limiter) Identify(r *http.Request) (Client, Decision) {
	c, msg := l.identify(r)
	if msg != "" {
		return l.unauthorized(msg)
	}
	return c, Decision{}
}

// Lookup is Identify without counting a refusal: it names the client of a
// request answered before it was identified (a parameter error), for its
// usage. ok is false when Identify would refuse it.
func (l *Limiter) Lookup(r *http.Request) (c Client, ok bool) {
	c, msg := l.identify(r)
	return c, msg == ""
}

// identify finds r's client, or the 401 message that refuses it.
func (l *Limiter) identify(r *http.Request) (Client, string) {
	ks := l.keys.Load()
	if presented := presentedKey(r.Header); presented != "" {
		sum := sha256.Sum256([]byte(presented))
		want := hex.EncodeToString(sum[:])
		k, ok := ks.byHash[want]
		// The map finds the key by its hash; compare again in constant time
		// so the answer's timing does not depend on how much of it matched.
		if !ok || subtle.ConstantTimeCompare([]byte(k.hash()), []byte(want)) != 1 {
			if ks.file.Unmanaged != "" {
				// Counted by the key's hash: the key itself is never kept.
				c := Client{id: "hash:" + want, keyID: "sha256:" + want[:16], keyed: true, plan: ks.plans[ks.file.Unmanaged]}
				if l.keyCap != nil {
					c.group = l.anonIDs.get(ClientIP(r, l.opts.TrustedProxies))
				}
				return c, ""
			}
			return Client{}, "Invalid API key"
		}
		return Client{id: "key:" + k.ID, keyID: k.ID, keyed: true, plan: ks.plans[k.Plan]}, ""
	}
	if ks.file.Anonymous == "" {
		return Client{}, "An API key is required"
	}
	return Client{id: l.anonIDs.get(ClientIP(r, l.opts.TrustedProxies)), keyID: "anonymous", plan: ks.plans[ks.file.Anonymous]}, ""
}

func (l *Limiter) unauthorized(msg string) (Client, Decision) {
	l.m.unauthorized.Inc()
	return Client{}, Decision{Status: http.StatusUnauthorized, Message: msg, KeyID: "unknown"}
}

// header is h.Get(key) for a key already in canonical form (as servers
// store received names), without canonicalising it again.
// presentedKey returns the API key a request presents: X-Glacier-Api-Key,
// else X-Data-Api-Key; "" when none.
func presentedKey(h http.Header) string {
	if k := header(h, "X-Glacier-Api-Key"); k != "" {
		return k
	}
	return header(h, "X-Data-Api-Key")
}

// RequestIDs names the identities r counts against outside the limiter (the
// dev chain's write allowance): its address, as AddressID names it, and,
// when it presents an API key, "key:" and the key's sha256 (never the key
// itself). Each identity has an allowance of its own, so fresh keys do not
// buy fresh allowances.
func RequestIDs(r *http.Request, trusted []netip.Prefix) []string {
	ids := []string{AddressID(r, trusted)}
	if key := presentedKey(r.Header); key != "" {
		sum := sha256.Sum256([]byte(key))
		ids = append(ids, "key:"+hex.EncodeToString(sum[:]))
	}
	return ids
}

func header(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// anonIDs remembers the anonymous ids of recent client addresses in a
// direct-mapped table, so a returning client's request builds no string.
// Slots are replaced whole, so readers never see a torn pair.
type anonIDs struct {
	slots [anonSlots]atomic.Pointer[anonID]
}

const anonSlots = 4096 // a power of two

type anonID struct {
	addr netip.Addr
	id   string
}

func (t *anonIDs) get(a netip.Addr) string {
	b := a.As16()
	h := (binary.LittleEndian.Uint64(b[:8])*0x9e3779b97f4a7c15 ^ binary.LittleEndian.Uint64(b[8:])) * 0xff51afd7ed558ccd
	slot := &t.slots[h>>32&(anonSlots-1)]
	if e := slot.Load(); e != nil && e.addr == a {
		return e.id
	}
	id := anonymousID(a)
	slot.Store(&anonID{addr: a, id: id})
	return id
}

// anonymousID groups IPv6 clients by /64, as one host usually owns one.
func anonymousID(a netip.Addr) string {
	var buf [64]byte
	b := append(buf[:0], "ip:"...)
	if a.Is6() && !a.Is4In6() {
		p, _ := a.Prefix(64)
		return string(p.AppendTo(b))
	}
	return string(a.Unmap().AppendTo(b))
}

// AddressID names r's client as the anonymous plan counts it: "ip:" and its
// IPv4 address, or its IPv6 /64 (after trusted proxies).
func AddressID(r *http.Request, trusted []netip.Prefix) string {
	return anonymousID(ClientIP(r, trusted))
}

// ClientIP returns the client's address: the connection's peer, or, when
// that peer is a trusted proxy, the right-most X-Forwarded-For address that
// is not itself a trusted proxy.
func ClientIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := peers.addr(r.RemoteAddr)
	if !isTrusted(peer, trusted) {
		return peer
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return peer
		}
		a = a.Unmap()
		if !isTrusted(a, trusted) {
			return a
		}
		peer = a
	}
	return peer
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
