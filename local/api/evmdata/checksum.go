package evmdata

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// maxChecksums bounds the checksum cache.
const maxChecksums = 1 << 16

// checksums caches addresses' mixed-case (EIP-55) forms: each costs a
// Keccak-256 of the address, and a page of transactions names the same few
// addresses (the one listed, its tokens) many times. It is emptied when
// full.
var checksums = struct {
	mu sync.Mutex // guards m
	m  map[common.Address]string
}{m: map[common.Address]string{}}

// checksum returns a's EIP-55 form, as common.Address.Hex does.
func checksum(a common.Address) string {
	checksums.mu.Lock()
	s, ok := checksums.m[a]
	checksums.mu.Unlock()
	if ok {
		return s
	}
	s = a.Hex()
	checksums.mu.Lock()
	if len(checksums.m) >= maxChecksums {
		clear(checksums.m)
	}
	checksums.m[a] = s
	checksums.mu.Unlock()
	return s
}
