package avax

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// ID is a 32-byte identifier (blockchains, transactions, assets, subnets,
// blocks), printed in cb58.
type ID [32]byte

// ShortID is a 20-byte identifier (addresses), printed in cb58.
type ShortID [20]byte

// NodeID is a node's 20-byte identifier, printed "NodeID-" + cb58.
type NodeID [20]byte

// EmptyID is the all-zero id: the P-chain's blockchain id and the primary
// network's subnet id on every network.
var EmptyID ID

// NodeIDPrefix starts every printed NodeID.
const NodeIDPrefix = "NodeID-"

// String returns the cb58 form.
func (id ID) String() string { return CB58Encode(id[:]) }

// Hex returns the 0x-prefixed lowercase hex form.
func (id ID) Hex() string { return "0x" + hex.EncodeToString(id[:]) }

// IsEmpty reports whether id is EmptyID.
func (id ID) IsEmpty() bool { return id == EmptyID }

// String returns the cb58 form.
func (s ShortID) String() string { return CB58Encode(s[:]) }

// String returns "NodeID-" + cb58.
func (n NodeID) String() string { return NodeIDPrefix + CB58Encode(n[:]) }

// Hash256 returns the sha256 of b as an ID, the way transaction, block and
// UTXO ids are computed.
func Hash256(b []byte) ID { return sha256.Sum256(b) }

// Prefix returns the id derived from id and a sequence of u64 prefixes, as
// avalanchego's ids.ID.Prefix: sha256(u64 ‖ ... ‖ id).
func (id ID) Prefix(prefixes ...uint64) ID {
	var w Writer
	for _, p := range prefixes {
		w.U64(p)
	}
	w.Fixed(id[:])
	return Hash256(w.Bytes())
}

// ParseID decodes a cb58 id.
func ParseID(s string) (ID, error) {
	b, err := CB58Decode(s)
	if err != nil {
		return ID{}, fmt.Errorf("id %q: %w", s, err)
	}
	if len(b) != len(ID{}) {
		return ID{}, fmt.Errorf("id %q: %w", s, ErrLength)
	}
	return ID(b), nil
}

// ParseShortID decodes a cb58 short id.
func ParseShortID(s string) (ShortID, error) {
	b, err := CB58Decode(s)
	if err != nil {
		return ShortID{}, fmt.Errorf("short id %q: %w", s, err)
	}
	if len(b) != len(ShortID{}) {
		return ShortID{}, fmt.Errorf("short id %q: %w", s, ErrLength)
	}
	return ShortID(b), nil
}

// ParseNodeID decodes "NodeID-" + cb58 of 20 bytes.
func ParseNodeID(s string) (NodeID, error) {
	rest, ok := strings.CutPrefix(s, NodeIDPrefix)
	if !ok {
		return NodeID{}, fmt.Errorf("node id %q: missing %q prefix", s, NodeIDPrefix)
	}
	b, err := CB58Decode(rest)
	if err != nil {
		return NodeID{}, fmt.Errorf("node id %q: %w", s, err)
	}
	if len(b) != len(NodeID{}) {
		return NodeID{}, fmt.Errorf("node id %q: %w", s, ErrLength)
	}
	return NodeID(b), nil
}
