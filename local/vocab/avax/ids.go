package avax

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
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

// Append returns avalanchego's ids.ID.Append: sha256(id ‖ u32 index), the
// validation id of a ConvertSubnetToL1Tx's index-th validator.
func (id ID) Append(index uint32) ID {
	var w Writer
	w.Fixed(id[:])
	w.U32(index)
	return Hash256(w.Bytes())
}

// ParseID decodes a cb58 id. Strings over MaxIDLen characters get
// ErrInputTooLong without being decoded.
func ParseID(s string) (ID, error) {
	if len(s) > MaxIDLen {
		return ID{}, fmt.Errorf("id %s: %w (%d characters, at most %d)", Clip(s), ErrInputTooLong, len(s), MaxIDLen)
	}
	b, err := CB58Decode(s)
	if err != nil {
		return ID{}, fmt.Errorf("id %q: %w", s, err)
	}
	if len(b) != len(ID{}) {
		return ID{}, fmt.Errorf("id %q: %w", s, ErrLength)
	}
	return ID(b), nil
}

// MustParseID is ParseID for ids a program states: it panics on an error.
func MustParseID(s string) ID {
	id, err := ParseID(s)
	if err != nil {
		panic(err)
	}
	return id
}

// ParseShortID decodes a cb58 short id. Strings over MaxShortIDLen
// characters get ErrInputTooLong without being decoded.
func ParseShortID(s string) (ShortID, error) {
	if len(s) > MaxShortIDLen {
		return ShortID{}, fmt.Errorf("short id %s: %w (%d characters, at most %d)", Clip(s), ErrInputTooLong, len(s), MaxShortIDLen)
	}
	b, err := CB58Decode(s)
	if err != nil {
		return ShortID{}, fmt.Errorf("short id %q: %w", s, err)
	}
	if len(b) != len(ShortID{}) {
		return ShortID{}, fmt.Errorf("short id %q: %w", s, ErrLength)
	}
	return ShortID(b), nil
}

// ParseNodeID decodes "NodeID-" + cb58 of 20 bytes. Strings over
// MaxNodeIDLen characters get ErrInputTooLong without being decoded.
func ParseNodeID(s string) (NodeID, error) {
	if len(s) > MaxNodeIDLen {
		return NodeID{}, fmt.Errorf("node id %s: %w (%d characters, at most %d)", Clip(s), ErrInputTooLong, len(s), MaxNodeIDLen)
	}
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

// clipLen is how much of a rejected input Clip keeps.
const clipLen = 64

// Clip returns s quoted for an error message, cut to its first 64 bytes
// (and "...") when longer, so that an answer never echoes a huge input.
func Clip(s string) string {
	if len(s) <= clipLen {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:clipLen]) + "..."
}
