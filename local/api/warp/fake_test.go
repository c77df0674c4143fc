package warp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"testing"
	"time"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// fakeValidator is one validator of the fake world, with a real blst key.
type fakeValidator struct {
	nodeID  [warpmsg.ShortIDLen]byte
	weight  uint64
	sk      *blst.SecretKey // nil: no BLS key
	pk      []byte          // compressed; nil without key
	offline bool            // Sign fails
	wrong   bool            // Sign returns a signature of another message
	delay   time.Duration   // Sign waits this long (or until ctx is done)
}

// keyFor derives a deterministic key from seed.
func keyFor(seed int) (*blst.SecretKey, []byte) {
	ikm := sha256.Sum256(fmt.Appendf(nil, "avaedge-warp-test-%d", seed))
	sk := blst.KeyGen(ikm[:])
	return sk, new(blst.P1Affine).From(sk).Compress()
}

// newFakeValidators returns n online validators with the given weights
// (cycled), keys seeded from seedBase.
func newFakeValidators(seedBase int, weights ...uint64) []*fakeValidator {
	out := make([]*fakeValidator, len(weights))
	for i, w := range weights {
		sk, pk := keyFor(seedBase + i)
		v := &fakeValidator{weight: w, sk: sk, pk: pk}
		binary.BigEndian.PutUint32(v.nodeID[:], uint32(seedBase+i))
		v.nodeID[19] = 0xee
		out[i] = v
	}
	return out
}

func equalWeights(n int, w uint64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = w
	}
	return out
}

// fakeSource implements Source over fixed maps. It is safe for concurrent use.
type fakeSource struct {
	networks map[string]uint32
	chains   map[[warpmsg.IDLen]byte][warpmsg.IDLen]byte         // chain -> subnet
	subnets  map[[warpmsg.IDLen]byte][]*fakeValidator            // current sets
	history  map[uint64]map[[warpmsg.IDLen]byte][]*fakeValidator // sets at past heights
	height   uint64                                              // current height
	l1       map[string][]byte                                   // justification or tx hash -> unsigned bytes

	mu    sync.Mutex // guards calls
	calls map[[warpmsg.ShortIDLen]byte]int
}

var _ Source = (*fakeSource)(nil)

var (
	cChainID     = idOf("c-chain")
	l1ChainID    = idOf("l1-chain")
	l1SubnetID   = idOf("l1-subnet")
	primaryID    [warpmsg.IDLen]byte
	localNetwork = uint32(12345)
)

func idOf(s string) [warpmsg.IDLen]byte { return sha256.Sum256([]byte(s)) }

func newFakeSource(primary []*fakeValidator) *fakeSource {
	return &fakeSource{
		networks: map[string]uint32{"mainnet": 1, "fuji": 5, "testnet": 5, "local": localNetwork},
		chains:   map[[warpmsg.IDLen]byte][warpmsg.IDLen]byte{warpmsg.PChainID: primaryID, cChainID: primaryID},
		subnets:  map[[warpmsg.IDLen]byte][]*fakeValidator{primaryID: primary},
		history:  map[uint64]map[[warpmsg.IDLen]byte][]*fakeValidator{},
		height:   100,
		l1:       map[string][]byte{},
		calls:    map[[warpmsg.ShortIDLen]byte]int{},
	}
}

func (f *fakeSource) Network(name string) (uint32, bool) {
	id, ok := f.networks[name]
	return id, ok
}

func (f *fakeSource) SubnetOf(chainID [warpmsg.IDLen]byte) ([warpmsg.IDLen]byte, bool) {
	s, ok := f.chains[chainID]
	return s, ok
}

func (f *fakeSource) set(subnetID [warpmsg.IDLen]byte, height uint64) ([]*fakeValidator, error) {
	if height > f.height {
		return nil, fmt.Errorf("height %d: %w", height, ErrUnknownHeight)
	}
	if height != 0 && height != f.height {
		if vs, ok := f.history[height][subnetID]; ok {
			return vs, nil
		}
	}
	vs, ok := f.subnets[subnetID]
	if !ok {
		return nil, fmt.Errorf("subnet %x: %w", subnetID, ErrUnknownSubnet)
	}
	return vs, nil
}

func (f *fakeSource) Validators(_ context.Context, subnetID [warpmsg.IDLen]byte, height uint64) ([]warpmsg.Validator, error) {
	vs, err := f.set(subnetID, height)
	if err != nil {
		return nil, err
	}
	out := make([]warpmsg.Validator, len(vs))
	for i, v := range vs {
		out[i] = warpmsg.Validator{NodeID: v.nodeID, Weight: v.weight, PublicKey: v.pk}
	}
	return out, nil
}

func (f *fakeSource) find(nodeID [warpmsg.ShortIDLen]byte) *fakeValidator {
	for _, vs := range f.subnets {
		for _, v := range vs {
			if v.nodeID == nodeID {
				return v
			}
		}
	}
	for _, h := range f.history {
		for _, vs := range h {
			for _, v := range vs {
				if v.nodeID == nodeID {
					return v
				}
			}
		}
	}
	return nil
}

func (f *fakeSource) Sign(ctx context.Context, nodeID [warpmsg.ShortIDLen]byte, msg []byte) ([]byte, error) {
	f.mu.Lock()
	f.calls[nodeID]++
	f.mu.Unlock()
	v := f.find(nodeID)
	if v == nil || v.sk == nil {
		return nil, errors.New("unknown signer")
	}
	if v.delay > 0 {
		t := time.NewTimer(v.delay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	if v.offline {
		return nil, errors.New("validator offline")
	}
	if v.wrong {
		msg = append(bytes.Clone(msg), 0)
	}
	return new(blst.P2Affine).Sign(v.sk, msg, []byte(SignatureDST)).Compress(), nil
}

func (f *fakeSource) L1Message(networkID uint32, key []byte) ([]byte, bool) {
	b, ok := f.l1[string(key)]
	if !ok {
		return nil, false
	}
	if u, err := warpmsg.ParseUnsignedMessage(b); err != nil || u.NetworkID != networkID {
		return nil, false
	}
	return b, true
}

func (f *fakeSource) totalCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return n
}

// checkSigned verifies signed independently of the package's ValidatorSet and
// Verify: it rebuilds the canonical order from vdrs, decodes the signature
// tail by hand, aggregates the set bits' keys with blst and checks the quorum
// quorumNum/100 with big integers. It returns the signed and total weight.
func checkSigned(t testing.TB, signed, unsigned []byte, vdrs []*fakeValidator, quorumNum uint64) (signedWeight, total uint64) {
	t.Helper()
	type entry struct {
		pk     *blst.P1Affine
		raw    []byte
		weight uint64
	}
	byKey := map[string]*entry{}
	var totalBig big.Int
	for _, v := range vdrs {
		totalBig.Add(&totalBig, new(big.Int).SetUint64(v.weight))
		if v.pk == nil {
			continue
		}
		e, ok := byKey[string(v.pk)]
		if !ok {
			pk := new(blst.P1Affine).Uncompress(v.pk)
			e = &entry{pk: pk, raw: pk.Serialize()}
			byKey[string(v.pk)] = e
		}
		e.weight += v.weight
	}
	var canon []*entry
	for _, e := range byKey {
		canon = append(canon, e)
	}
	slices.SortFunc(canon, func(a, b *entry) int { return bytes.Compare(a.raw, b.raw) })

	if !bytes.HasPrefix(signed, unsigned) {
		t.Fatalf("signed message does not start with the unsigned message")
	}
	tail := signed[len(unsigned):]
	if len(tail) < 8+warpmsg.SignatureLen {
		t.Fatalf("signature tail is %d bytes", len(tail))
	}
	if typ := binary.BigEndian.Uint32(tail); typ != 0 {
		t.Fatalf("signature type = %d; want 0", typ)
	}
	n := int(binary.BigEndian.Uint32(tail[4:]))
	if len(tail) != 8+n+warpmsg.SignatureLen {
		t.Fatalf("signature tail is %d bytes; want %d", len(tail), 8+n+warpmsg.SignatureLen)
	}
	bits := tail[8 : 8+n]
	if n > 0 && bits[0] == 0 {
		t.Fatalf("bitset %x is not minimal", bits)
	}
	var keys []*blst.P1Affine
	var signedBig big.Int
	for i := 0; i < n*8; i++ {
		if bits[n-1-i/8]>>(i%8)&1 == 0 {
			continue
		}
		if i >= len(canon) {
			t.Fatalf("bit %d set; only %d canonical validators", i, len(canon))
		}
		keys = append(keys, canon[i].pk)
		signedBig.Add(&signedBig, new(big.Int).SetUint64(canon[i].weight))
	}
	if len(keys) == 0 {
		t.Fatalf("no signers")
	}
	var aggPK blst.P1Aggregate
	if !aggPK.Aggregate(keys, true) {
		t.Fatalf("aggregating public keys failed")
	}
	sig := new(blst.P2Affine).Uncompress(tail[8+n:])
	if sig == nil || !sig.Verify(true, aggPK.ToAffine(), true, unsigned, []byte("BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_")) {
		t.Fatalf("aggregate signature does not verify")
	}
	lhs := new(big.Int).Mul(new(big.Int).SetUint64(quorumNum), &totalBig)
	rhs := new(big.Int).Mul(big.NewInt(100), &signedBig)
	if lhs.Cmp(rhs) > 0 {
		t.Fatalf("quorum %d%% not met: %s of %s", quorumNum, &signedBig, &totalBig)
	}
	return signedBig.Uint64(), totalBig.Uint64()
}
