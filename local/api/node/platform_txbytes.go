package node

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The P-Chain's block type ids (avalanchego vms/platformvm/block/codec.go:
// the Apricot blocks first, then the transactions' types, then the Banff
// blocks).
const (
	apricotProposalBlock = 0
	apricotStandardBlock = 3
	apricotAtomicBlock   = 4
	banffProposalBlock   = 29
	banffStandardBlock   = 32
)

// Where a block's transactions start: codec version (2), type id (4), a
// Banff block's time (8), the parent id and height (40), and a list's
// length (4).
const (
	commonHeader = 2 + 4 + 32 + 8
	banffTime    = 8
	listLen      = 4
)

// pTxBytes returns the signed bytes of transaction id in the P-Chain block
// b, whose transactions are txIDs: a transaction's signed bytes are the
// codec version then the bytes the block holds of it. Rather than a parser
// of every transaction type, it walks each list of transactions from its
// start, feeding a running sha256 and closing a transaction where the
// digest is one of the block's ids (so a slice is only ever returned when
// its hash is id); each byte is hashed once, and a digest is only taken
// where the next transaction or the block's end may begin. False when b is
// no block it knows or id is not found in it.
func pTxBytes(b []byte, id avax.ID, txIDs []avax.ID) ([]byte, bool) {
	if len(b) < 6 {
		return nil, false
	}
	type list struct {
		start, count int
		last         bool // the list ends the block
	}
	var lists []list
	switch binary.BigEndian.Uint32(b[2:6]) {
	case apricotProposalBlock, apricotAtomicBlock:
		lists = []list{{commonHeader, 1, true}}
	case apricotStandardBlock:
		lists = []list{{commonHeader + listLen, -1, true}}
	case banffStandardBlock:
		lists = []list{{commonHeader + banffTime + listLen, -1, true}}
	case banffProposalBlock:
		// Time, the decision transactions, then the Apricot proposal
		// block's parent, height and transaction.
		if len(b) < 6+banffTime+listLen {
			return nil, false
		}
		n := int(binary.BigEndian.Uint32(b[6+banffTime:]))
		lists = []list{{6 + banffTime + listLen, n, false}, {-1, 1, true}}
	default:
		return nil, false
	}
	want := make(map[avax.ID]bool, len(txIDs))
	for _, t := range txIDs {
		want[t] = true
	}
	end := 0
	for _, l := range lists {
		s := l.start
		if s < 0 {
			s = end + 32 + 8 // after the parent id and height
		}
		for k := 0; l.count < 0 || k < l.count; k++ {
			if s >= len(b) {
				break
			}
			e, got, ok := nextTx(b, s, want, l.last)
			if !ok {
				return nil, false
			}
			if got == id {
				return append([]byte{0, 0}, b[s:e]...), true
			}
			s = e
		}
		end = s
	}
	return nil, false
}

// nextTx hashes b from s and returns where the transaction starting there
// ends: the first end whose digest (codec version first) is among want.
// With boundaries, a digest is only taken at the block's end or before a
// zero byte (where a next transaction's type id begins).
func nextTx(b []byte, s int, want map[avax.ID]bool, boundaries bool) (int, avax.ID, bool) {
	h := sha256.New()
	h.Write([]byte{0, 0})
	var sum [sha256.Size]byte
	for e := s; e < len(b); {
		next := e + 1
		if boundaries {
			for next < len(b) && b[next] != 0 {
				next++
			}
		}
		h.Write(b[e:next])
		e = next
		h.Sum(sum[:0])
		if want[avax.ID(sum)] {
			return e, avax.ID(sum), true
		}
	}
	return 0, avax.ID{}, false
}
