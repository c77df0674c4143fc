package warp

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	blst "github.com/supranational/blst/bindings/go"
	"golang.org/x/sync/singleflight"

	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// DefaultQuorumPercentage is the quorum of a request that names none.
const DefaultQuorumPercentage = 67

// Source is the local world the aggregator signs from. Implementations must be
// safe for concurrent use.
type Source interface {
	// Network resolves a request's network name (mainnet, fuji, testnet) to
	// the network id its messages must carry; ok false answers 404.
	Network(name string) (networkID uint32, ok bool)
	// SubnetOf returns the subnet that validates chainID; the P-chain (and
	// every primary-network chain) maps to the primary network, the empty id.
	// ok false answers 404.
	SubnetOf(chainID [warpmsg.IDLen]byte) (subnetID [warpmsg.IDLen]byte, ok bool)
	// Validators returns the subnet's validator set at a P-chain height, 0
	// meaning the current one. An error wrapping ErrUnknownSubnet answers 404,
	// one wrapping ErrUnknownHeight answers 400, any other 500.
	Validators(ctx context.Context, subnetID [warpmsg.IDLen]byte, pChainHeight uint64) ([]warpmsg.Validator, error)
	// Sign asks one validator to sign msg, the UnsignedMessage bytes, and
	// returns its 96-byte compressed signature. It may fail (the validator is
	// offline) or take time; it must return when ctx is done.
	Sign(ctx context.Context, nodeID [warpmsg.ShortIDLen]byte, msg []byte) ([]byte, error)
	// L1Message returns the UnsignedMessage bytes of the P-chain L1 message
	// (SubnetToL1Conversion, RegisterL1Validator, ...) that a primary-network
	// transaction hash or a justification stands for; ok false answers 404.
	// NewL1Unsigned builds such bytes.
	L1Message(networkID uint32, txHashOrJustification []byte) (unsigned []byte, ok bool)
}

// MessageNetworks is an optional ability of a Source: under a network name
// it also signs messages that carry network ids other than the name's own.
// The devnet answers for every network name as its one network, and tools
// build their messages with the network id its node reports
// (info.getNetworkID), so it signs messages carrying that id under every
// name.
type MessageNetworks interface {
	// AcceptsNetwork reports whether a message carrying networkID is signed
	// under the network name, besides the messages carrying the id Network
	// resolves the name to.
	AcceptsNetwork(name string, networkID uint32) bool
}

// Options configures an Aggregator. Zero values mean the documented defaults.
type Options struct {
	// SignerTimeout bounds the Sign calls for one public key. Zero means 2s.
	SignerTimeout time.Duration
	// Concurrency bounds the Sign calls in flight for one aggregation. Zero
	// means 16.
	Concurrency int
	// CacheSize bounds the verified signatures kept, one per (message id,
	// public key). Zero means 16384.
	CacheSize int
	// Registerer receives the avaedge_warp_ metrics. Nil registers none.
	Registerer prometheus.Registerer
	// Logger receives per-validator failures (debug) and internal errors
	// (warn). Nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock of the latency histogram. Nil means time.Now.
	Now func() time.Time
}

// Request asks for one signed Warp message.
type Request struct {
	// Network is the request's network name, resolved by Source.Network.
	Network string
	// Message is the UnsignedMessage to sign. Nil means the P-chain L1
	// message that Justification stands for (Source.L1Message).
	Message []byte
	// Justification stands for the message when Message is nil. With a
	// Message it is not used: local validators need none.
	Justification []byte
	// SigningSubnetID is the subnet whose validators sign. The zero id means
	// the subnet of the message's source chain, as in icm-services.
	SigningSubnetID [warpmsg.IDLen]byte
	// QuorumPercentage is the share of the subnet's weight that must sign,
	// 0..100. Zero means DefaultQuorumPercentage, as in icm-services.
	QuorumPercentage uint64
	// QuorumPercentageBuffer is extra weight to try for, 0..100 -
	// QuorumPercentage. If it cannot be reached the plain quorum is enough.
	QuorumPercentageBuffer uint64
	// PChainHeight selects the validator set; 0 means the current one.
	PChainHeight uint64
}

// Aggregator collects validator signatures from a Source and aggregates them.
// It is safe for concurrent use.
//
// A Sign call that an aggregation stops needing (its target was reached, or
// its client left) still runs to completion, at most SignerTimeout, so that
// its signature lands in the cache for the next request; concurrent requests
// for the same (message, key) share one Sign call.
type Aggregator struct {
	src         Source
	timeout     time.Duration
	concurrency int
	log         *slog.Logger
	now         func() time.Time
	m           *metrics
	cache       *sigCache
	flight      singleflight.Group
}

// NewAggregator returns an Aggregator over src.
func NewAggregator(src Source, opts Options) *Aggregator {
	a := &Aggregator{
		src:         src,
		timeout:     cmp.Or(opts.SignerTimeout, 2*time.Second),
		concurrency: cmp.Or(opts.Concurrency, 16),
		log:         opts.Logger,
		now:         opts.Now,
		m:           newMetrics(opts.Registerer),
		cache:       newSigCache(cmp.Or(opts.CacheSize, 16384)),
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.now == nil {
		a.now = time.Now
	}
	return a
}

// Aggregate returns the signed Warp message (Message bytes) for req. Errors
// wrap the Err* sentinels of this package; a quorum shortfall is a
// *QuorumError.
func (a *Aggregator) Aggregate(ctx context.Context, req Request) ([]byte, error) {
	start := a.now()
	signed, err := a.aggregate(ctx, req)
	result := "ok"
	if err != nil {
		status := answerOf(err).Status
		result = strconv.Itoa(status)
		if status == http.StatusInternalServerError {
			a.log.Warn("warp: aggregation failed", "network", req.Network, "err", err)
		}
	}
	a.m.latency.WithLabelValues(result).Observe(a.now().Sub(start).Seconds())
	return signed, err
}

func (a *Aggregator) aggregate(ctx context.Context, req Request) ([]byte, error) {
	quorum := cmp.Or(req.QuorumPercentage, DefaultQuorumPercentage)
	if msgs := checkPercentages(quorum, req.QuorumPercentageBuffer); msgs != nil {
		return nil, &requestError{kind: ErrInvalidRequest, msgs: msgs}
	}
	networkID, ok := a.src.Network(req.Network)
	if !ok {
		return nil, reqErr(ErrUnknownNetwork, "Network %s not found", req.Network)
	}
	u, err := a.unsigned(networkID, req)
	if err != nil {
		return nil, err
	}
	if u.NetworkID != networkID && !a.accepts(req.Network, u.NetworkID) {
		return nil, reqErr(ErrNetworkMismatch, "Message network ID %d does not match network %s (network ID %d)",
			u.NetworkID, req.Network, networkID)
	}
	subnetID := req.SigningSubnetID
	if subnetID == ([warpmsg.IDLen]byte{}) {
		if subnetID, ok = a.src.SubnetOf(u.SourceChainID); !ok {
			return nil, reqErr(ErrUnknownChain, "Source blockchain %s not found", avax.CB58Encode(u.SourceChainID[:]))
		}
	}
	vdrs, err := a.src.Validators(ctx, subnetID, req.PChainHeight)
	switch {
	case errors.Is(err, ErrUnknownSubnet):
		return nil, reqErr(ErrUnknownSubnet, "Subnet %s not found", avax.CB58Encode(subnetID[:]))
	case errors.Is(err, ErrUnknownHeight):
		return nil, reqErr(ErrUnknownHeight, "P-Chain height %d has not been reached", req.PChainHeight)
	case err != nil:
		return nil, fmt.Errorf("validators of subnet %s: %w", avax.CB58Encode(subnetID[:]), err)
	}
	set, err := NewValidatorSet(vdrs)
	if err != nil {
		return nil, fmt.Errorf("validator set of subnet %s: %w", avax.CB58Encode(subnetID[:]), err)
	}

	msg := u.Bytes()
	indices, sigs, weight := a.collect(ctx, set, msg, quorum+req.QuorumPercentageBuffer)
	if weight == 0 || !quorumMet(weight, set.TotalWeight, quorum, 100) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, &QuorumError{SubnetID: subnetID, SignedWeight: weight, TotalWeight: set.TotalWeight, QuorumPercentage: quorum}
	}

	var agg blst.P2Aggregate
	if !agg.Aggregate(sigs, false) {
		return nil, errors.New("aggregate signatures: blst refused")
	}
	out := &warpmsg.Message{UnsignedMessage: *u, Signature: warpmsg.BitSetSignature{Signers: warpmsg.NewSigners(indices...)}}
	copy(out.Signature.Signature[:], agg.ToAffine().Compress())
	if err := set.Verify(out, u.NetworkID, quorum, 100); err != nil {
		return nil, fmt.Errorf("verify aggregate: %w", err)
	}
	return out.Bytes(), nil
}

// accepts reports whether the source also signs messages carrying
// networkID under the network name (MessageNetworks).
func (a *Aggregator) accepts(name string, networkID uint32) bool {
	mn, ok := a.src.(MessageNetworks)
	return ok && mn.AcceptsNetwork(name, networkID)
}

// checkPercentages returns the validation messages for a quorum and buffer,
// nil if both are fine.
func checkPercentages(quorum, buffer uint64) []string {
	var msgs []string
	if quorum > 100 {
		msgs = append(msgs, "quorumPercentage must not be greater than 100")
	}
	if buffer > 100 {
		msgs = append(msgs, "quorumPercentageBuffer must not be greater than 100")
	}
	if msgs == nil && quorum+buffer > 100 {
		msgs = append(msgs, "quorumPercentage + quorumPercentageBuffer must not be greater than 100")
	}
	return msgs
}

// unsigned returns the message to sign: req.Message, or the P-chain L1
// message of req.Justification.
func (a *Aggregator) unsigned(networkID uint32, req Request) (*warpmsg.UnsignedMessage, error) {
	if req.Message != nil {
		u, err := warpmsg.ParseUnsignedMessage(req.Message)
		if err != nil {
			return nil, reqErr(ErrInvalidRequest, "message must be an Avalanche Warp unsigned message: %v", err)
		}
		return u, nil
	}
	if len(req.Justification) == 0 {
		return nil, reqErr(ErrInvalidRequest, "Must provide either message or justification")
	}
	raw, ok := a.src.L1Message(networkID, req.Justification)
	if !ok {
		return nil, reqErr(ErrL1MessageNotFound, "No P-Chain L1 message found for %s", shortHex(req.Justification))
	}
	u, err := warpmsg.ParseUnsignedMessage(raw)
	if err != nil {
		return nil, fmt.Errorf("L1 message of the source: %w", err)
	}
	return u, nil
}

func shortHex(b []byte) string {
	if len(b) > 64 {
		return fmt.Sprintf("0x%x...", b[:64])
	}
	return fmt.Sprintf("0x%x", b)
}

// collect gathers verified signatures of set's validators over msg, cached
// ones first, then by descending weight with bounded concurrency, until the
// signed weight reaches targetPct of the total or no validator is left. It
// returns the canonical indices in increasing order, their signatures in the
// same order and their weight.
func (a *Aggregator) collect(ctx context.Context, set *ValidatorSet, msg []byte, targetPct uint64) ([]int, []*blst.P2Affine, uint64) {
	msgID := sha256.Sum256(msg)
	order := make([]int, len(set.Validators))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Compare(set.Validators[y].Weight, set.Validators[x].Weight)
	})

	got := make(map[int]*blst.P2Affine)
	var weight uint64
	done := func() bool { return quorumMet(weight, set.TotalWeight, targetPct, 100) }
	var pending []int
	for _, i := range order {
		if done() {
			break
		}
		if sig, ok := a.cache.get(newSigKey(msgID, set.Validators[i].PublicKey)); ok {
			a.m.cacheHits.Inc()
			got[i] = sig
			weight += set.Validators[i].Weight
			continue
		}
		pending = append(pending, i)
	}

	if !done() && len(pending) > 0 {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // stops the waits of signers still in flight
		type result struct {
			i   int
			sig *blst.P2Affine
		}
		// Buffered for every signer, so one still in flight after we stop
		// never blocks.
		results := make(chan result, len(pending))
		next, inflight := 0, 0
		launch := func() {
			i := pending[next]
			next++
			inflight++
			go func() { results <- result{i, a.signature(ctx, &set.Validators[i], msgID, msg)} }()
		}
		for inflight < a.concurrency && next < len(pending) {
			launch()
		}
		for inflight > 0 && !done() {
			r := <-results
			inflight--
			if r.sig != nil {
				got[r.i] = r.sig
				weight += set.Validators[r.i].Weight
			}
			if next < len(pending) && !done() && ctx.Err() == nil {
				launch()
			}
		}
	}

	indices := make([]int, 0, len(got))
	for i := range got {
		indices = append(indices, i)
	}
	slices.Sort(indices)
	sigs := make([]*blst.P2Affine, len(indices))
	for k, i := range indices {
		sigs[k] = got[i]
	}
	return indices, sigs, weight
}

// signature returns v's verified signature of msg, from the cache or one
// shared Sign call, or nil when v gives none or ctx is done first.
func (a *Aggregator) signature(ctx context.Context, v *CanonicalValidator, msgID [32]byte, msg []byte) *blst.P2Affine {
	key := newSigKey(msgID, v.PublicKey)
	ch := a.flight.DoChan(string(key[:]), func() (any, error) {
		if sig, ok := a.cache.get(key); ok { // filled while we queued
			return sig, nil
		}
		// Detached from ctx: the call finishes for the cache even if this
		// aggregation stops waiting; fetch bounds it with SignerTimeout.
		sig, err := a.fetch(context.WithoutCancel(ctx), v, msg)
		if err != nil {
			return nil, err
		}
		a.cache.add(key, sig)
		return sig, nil
	})
	select {
	case <-ctx.Done():
		return nil
	case r := <-ch:
		if r.Err != nil {
			return nil
		}
		return r.Val.(*blst.P2Affine)
	}
}

// fetch asks v's node ids in turn until one returns a signature that verifies
// under v's key.
func (a *Aggregator) fetch(ctx context.Context, v *CanonicalValidator, msg []byte) (*blst.P2Affine, error) {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	var errs []error
	for _, node := range v.NodeIDs {
		a.m.requested.Inc()
		raw, err := a.src.Sign(ctx, node, msg)
		if err != nil {
			a.m.failures.WithLabelValues("error").Inc()
			a.log.Debug("warp: validator did not sign", "nodeID", nodeIDString(node), "err", err)
			errs = append(errs, err)
			continue
		}
		sig, err := parseSignature(raw)
		if err == nil && !verify(v.key, sig, msg) {
			err = ErrInvalidSignature
		}
		if err != nil {
			a.m.failures.WithLabelValues("invalid").Inc()
			a.log.Debug("warp: validator signature rejected", "nodeID", nodeIDString(node), "err", err)
			errs = append(errs, err)
			continue
		}
		return sig, nil
	}
	return nil, errors.Join(errs...)
}

func nodeIDString(id [warpmsg.ShortIDLen]byte) string { return avax.NodeID(id).String() }
