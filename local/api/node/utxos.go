package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Limits of avm.getUTXOs (avm/service.go).
const (
	maxGetUTXOsAddrs = 1024
	maxPageSize      = 1024
)

var errNoAddresses = errors.New("no addresses provided")

type utxoIndex struct {
	Address string `json:"address"`
	UTXO    string `json:"utxo"`
}

type getUTXOsArgs struct {
	Addresses   []string  `json:"addresses"`
	SourceChain string    `json:"sourceChain"`
	Limit       uint32s   `json:"limit"`
	StartIndex  utxoIndex `json:"startIndex"`
	Encoding    encoding  `json:"encoding"`
}

type getUTXOsReply struct {
	NumFetched uint64s   `json:"numFetched"`
	UTXOs      []string  `json:"utxos"`
	EndIndex   utxoIndex `json:"endIndex"`
	Encoding   encoding  `json:"encoding"`
}

// getUTXOs pages through the UTXOs of a set of addresses the way
// avalanchego's avax.GetPaginatedUTXOs does: addresses in byte order, each
// address's UTXOs in id order starting after the start index, the end index
// naming the last address searched and the last UTXO seen. The start index
// avalanchego's client sends first (the empty short id and the empty id)
// therefore means "from the start", and endIndex.address is always a valid
// address of this chain.
func (s *service) getUTXOs(_ context.Context, args *getUTXOsArgs) (*getUTXOsReply, error) {
	if len(args.Addresses) == 0 {
		return nil, errNoAddresses
	}
	if len(args.Addresses) > maxGetUTXOsAddrs {
		return nil, fmt.Errorf("number of addresses given, %d, exceeds maximum, %d", len(args.Addresses), maxGetUTXOsAddrs)
	}
	source := s.xChain
	if args.SourceChain != "" {
		id, err := s.lookupChain(args.SourceChain)
		if err != nil {
			return nil, fmt.Errorf("problem parsing source chainID %q: %w", args.SourceChain, err)
		}
		source = id
	}
	var addrs []avax.ShortID
	for _, str := range args.Addresses {
		a, err := s.parseAddress(str)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(addrs, a) {
			addrs = append(addrs, a)
		}
	}
	var (
		startAddr avax.ShortID
		startUTXO avax.ID
	)
	if args.StartIndex.Address != "" || args.StartIndex.UTXO != "" {
		var err error
		if startAddr, err = s.parseAddress(args.StartIndex.Address); err != nil {
			return nil, fmt.Errorf("couldn't parse start index address %q: %w", args.StartIndex.Address, err)
		}
		if startUTXO, err = avax.ParseID(args.StartIndex.UTXO); err != nil {
			return nil, fmt.Errorf("couldn't parse start index utxo: %w", err)
		}
	}
	limit := int(args.Limit)
	if limit <= 0 || limit > maxPageSize {
		limit = maxPageSize
	}

	page, endAddr, endUTXO := s.paginate(source, addrs, startAddr, startUTXO, limit)

	r := &getUTXOsReply{
		NumFetched: uint64s(len(page)),
		UTXOs:      make([]string, len(page)),
		EndIndex:   utxoIndex{Address: s.formatAddress(endAddr), UTXO: endUTXO.String()},
		Encoding:   args.Encoding,
	}
	for i, u := range page {
		str, err := args.Encoding.encode(u.Bytes())
		if err != nil {
			return nil, fmt.Errorf("couldn't encode UTXO %s as string: %w", u.ID(), err)
		}
		r.UTXOs[i] = str
	}
	return r, nil
}

// manyUTXOs is implemented by UTXOs that read many addresses' UTXOs at
// once: UTXOsOf returns each address's UTXOs(source, addr).
type manyUTXOs interface {
	UTXOsOf(source avax.ID, addrs []avax.ShortID) map[avax.ShortID][]*avax.UTXO
}

// paginate is avax.GetPaginatedUTXOs over addressUTXOs (read for all the
// addresses at once when the UTXOs are manyUTXOs).
func (s *service) paginate(source avax.ID, addrs []avax.ShortID, lastAddr avax.ShortID, lastUTXO avax.ID, limit int) ([]*avax.UTXO, avax.ShortID, avax.ID) {
	sorted := slices.Clone(addrs)
	slices.SortFunc(sorted, func(a, b avax.ShortID) int { return bytes.Compare(a[:], b[:]) })
	var (
		out  []*avax.UTXO
		seen = map[avax.ID]bool{}
		pre  map[avax.ShortID][]*avax.UTXO
	)
	if m, ok := s.w.UTXOs.(manyUTXOs); ok && len(sorted) > 1 {
		pre = m.UTXOsOf(source, sorted)
	}
	for _, addr := range sorted {
		var start avax.ID
		switch c := bytes.Compare(addr[:], lastAddr[:]); {
		case c < 0:
			continue
		case c == 0:
			start = lastUTXO
		}
		lastAddr = addr
		var us []idUTXO
		if pre != nil {
			us = s.idUTXOs(source, pre[addr])
		} else {
			us = s.addressUTXOs(source, addr)
		}
		if source == s.xChain {
			// The node's list iterator starts after start when start is
			// in the list, else at the head.
			if i := slices.IndexFunc(us, func(u idUTXO) bool { return u.id == start }); i >= 0 {
				us = us[i+1:]
			}
		}
		for _, u := range us {
			id := u.id
			if source != s.xChain && bytes.Compare(id[:], start[:]) <= 0 {
				continue
			}
			lastUTXO = id
			if seen[id] {
				continue
			}
			seen[id] = true
			out = append(out, u.UTXO)
			if len(out) >= limit {
				return out, lastAddr, lastUTXO
			}
		}
	}
	return out, lastAddr, lastUTXO
}
