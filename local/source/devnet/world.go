package devnet

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Well-known constants of avalanchego's local network (network id 12345).
var (
	// NetworkID is the devnet's network id.
	NetworkID = avanet.Local.ID
	// PChainID is the P-chain's id on every network: the empty id.
	PChainID = avax.MustParseID(avanet.PChainID)
	// XChainID and CChainID are the local network's X- and C-chain ids.
	XChainID = avax.MustParseID(avanet.Local.XChainID)
	CChainID = avax.MustParseID(avanet.Local.CChainID)
	// AVAXAssetID is the local network's AVAX asset id.
	AVAXAssetID = avax.MustParseID(avanet.Local.AVAXAssetID)
	// SubnetEVMID is the VM id of Subnet-EVM; AVMID and EVMID are the VM
	// ids of the X- and C-Chain (avanet).
	SubnetEVMID = avax.MustParseID(avanet.SubnetEVMID)
	AVMID       = avax.MustParseID(avanet.AVMID)
	EVMID       = avax.MustParseID(avanet.EVMID)
	// EwoqKey is the well-known local test key "ewoq" (hex).
	EwoqKey = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
)

// AVAX asset metadata.
const (
	AVAXName         = "Avalanche"
	AVAXSymbol       = "AVAX"
	AVAXDenomination = 9
	nAVAX            = uint64(1_000_000_000)
	day              = int64(24 * 60 * 60)
	hour             = int64(60 * 60)
	txFee            = nAVAX / 1000
)

// World is one deterministic devnet: a primary network whose P- and X-Chain
// history is blocks of transactions, stored in an index (local/source/pindex)
// as a followed node's would be, plus what only the devnet knows (its
// nodes' BLS secret keys, locations and versions, its blocks' proposers).
// It is immutable after New and safe for concurrent use; Close releases
// the index.
type World struct {
	cfg     Config
	genesis int64
	now     int64

	keys  []*avax.PrivateKey // ewoq first
	addrs []avax.ShortID     // keys' addresses, same order

	nodes   []*node // primary-network nodes, then L1 nodes
	nodeIdx map[avax.NodeID]*node

	validations []*Validation // primary and subnet, by (Start, TxID)
	delegations []*Delegation // by (Start, TxID)
	subnets     []*Subnet     // by CreateTime
	conversion  *L1Conversion
	registers   []*L1Registration
	l1Ops       []*L1Change
	l1Changes   []SetChange

	pBlocks []*Block
	pTxs    map[avax.ID]*PTx
	changes map[avax.ID][]SetChange // per subnet, by height

	xBlocks []*Block
	xTxs    map[avax.ID]*XTx
	xTxList []*XTx

	// raw are the blocks in the node's encodings, per chain, as the index
	// stores them; blockIDs the blocks by chain and id.
	raw      map[avanet.Chain][]*pindex.RawBlock
	blockIDs map[avanet.Chain]map[string]*Block
	ix       *pindex.Index
}

// New generates the world cfg describes and stores its history in an index
// in memory.
func New(cfg Config) (*World, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	w := &World{
		cfg:     cfg,
		genesis: Genesis.Unix(),
		now:     cfg.Now.Unix(),
		nodeIdx: map[avax.NodeID]*node{},
		pTxs:    map[avax.ID]*PTx{},
		changes: map[avax.ID][]SetChange{},
		xTxs:    map[avax.ID]*XTx{},
		raw:     map[avanet.Chain][]*pindex.RawBlock{},
	}
	if err := w.makeKeys(); err != nil {
		return nil, err
	}
	if err := w.makeNodes(); err != nil {
		return nil, err
	}
	p := newSchedule(w)
	w.scheduleStaking(p)
	w.scheduleSubnets(p)
	h := newHistory(w, p)
	if err := h.buildXChain(); err != nil {
		return nil, err
	}
	if err := h.buildPChain(); err != nil {
		return nil, err
	}
	if err := w.index(); err != nil {
		return nil, err
	}
	return w, nil
}

// Index returns the index that holds the world's P- and X-Chain history.
func (w *World) Index() *pindex.Index { return w.ix }

// Close releases the index.
func (w *World) Close() error { return w.ix.Close() }

// Now returns the world's clock: the instant that decides stake statuses.
func (w *World) Now() time.Time { return time.Unix(w.now, 0).UTC() }

// GenesisTime returns the devnet's genesis time.
func (w *World) GenesisTime() time.Time { return time.Unix(w.genesis, 0).UTC() }

// Seed returns the random seed (Config.Seed) the world was made from.
func (w *World) Seed() int64 { return w.cfg.Seed }

// rng returns the deterministic stream named label.
func (w *World) rng(label string) *rand.Rand {
	return rand.New(rand.NewChaCha8(w.derive("rng", label)))
}

// derive returns sha256("avaedge devnet" ‖ seed ‖ parts...), the source of
// every generated id and key.
func (w *World) derive(parts ...string) [32]byte {
	h := sha256.New()
	h.Write([]byte("avaedge devnet v1"))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(w.cfg.Seed))
	h.Write(b[:])
	for _, p := range parts {
		binary.BigEndian.PutUint32(b[:4], uint32(len(p)))
		h.Write(b[:4])
		h.Write([]byte(p))
	}
	return [32]byte(h.Sum(nil))
}

func (w *World) deriveID(parts ...string) avax.ID { return avax.ID(w.derive(parts...)) }

func (w *World) makeKeys() error {
	raw, _ := hex.DecodeString(EwoqKey)
	k, err := avax.NewPrivateKey(raw)
	if err != nil {
		return err
	}
	w.keys = append(w.keys, k)
	for i := 0; len(w.keys) < 5; i++ {
		seed := w.derive("secp256k1", fmt.Sprint(i))
		k, err := avax.NewPrivateKey(seed[:])
		if err != nil {
			continue // out of range: negligible, but skip deterministically
		}
		w.keys = append(w.keys, k)
	}
	for _, k := range w.keys {
		w.addrs = append(w.addrs, k.Address())
	}
	return nil
}

// Ewoq returns the ewoq key's address.
func (w *World) Ewoq() avax.ShortID { return w.addrs[0] }

// Addresses returns the addresses that own UTXOs and stakes, ewoq first.
func (w *World) Addresses() []avax.ShortID { return append([]avax.ShortID(nil), w.addrs...) }

// keyOf returns the private key of addr.
func (w *World) keyOf(addr avax.ShortID) *avax.PrivateKey {
	for i, a := range w.addrs {
		if a == addr {
			return w.keys[i]
		}
	}
	return nil
}
