// Package avax holds Avalanche's identifiers and encodings: 32-byte ids,
// 20-byte short ids and node ids, cb58, bech32 addresses, checksummed hex and
// the pieces of the linear codec that UTXOs, X-chain transactions, blocks and
// vertices need. Base58 is github.com/mr-tron/base58 and bech32
// github.com/btcsuite/btcd/btcutil/bech32, the libraries avalanchego itself
// uses; this package adds the checksum, the length limits and its errors.
// Every function is pure and safe for concurrent use.
package avax

import (
	"crypto/sha256"
	"errors"

	"github.com/mr-tron/base58"
)

// Errors of the decoders.
var (
	// ErrBase58 means a string holds a character outside the base58 alphabet.
	ErrBase58 = errors.New("avax: invalid base58 character")
	// ErrChecksum means a cb58 or checksummed hex string has a wrong checksum.
	ErrChecksum = errors.New("avax: bad checksum")
	// ErrLength means decoded bytes have the wrong length for their type.
	ErrLength = errors.New("avax: wrong length")
)

// Length limits of the printed forms, checked before any decoding: base58
// decoding is quadratic in its input, so a decoder must never see a string
// longer than the type it reads can be.
const (
	// MaxBase58Len bounds every string CB58Decode accepts: 128 characters,
	// about 90 bytes, more than twice the longest id the local world reads
	// (36 bytes with the checksum). The library's decoder is quadratic: about
	// 0.4-1 ms for 1,024 characters on this 2-core machine, 5-16 us for 128.
	MaxBase58Len = 128
	// MaxIDLen is the longest cb58 form of a 32-byte ID: 36 bytes with the
	// checksum are at most 50 base58 digits (288 bits / log2(58) < 50).
	MaxIDLen = 50
	// MaxShortIDLen is the longest cb58 form of a 20-byte ShortID: 24 bytes
	// with the checksum are at most 33 digits.
	MaxShortIDLen = 33
	// MaxNodeIDLen is the longest printed NodeID: "NodeID-" and a short id.
	MaxNodeIDLen = len(NodeIDPrefix) + MaxShortIDLen
)

// ErrInputTooLong means a string is longer than any value of its type can be; it
// is refused before decoding.
var ErrInputTooLong = errors.New("avax: input too long")

// checksum returns the last 4 bytes of sha256(b).
func checksum(b []byte) [4]byte {
	h := sha256.Sum256(b)
	return [4]byte(h[28:])
}

// CB58Encode returns base58(b ‖ last 4 bytes of sha256(b)), in Bitcoin's
// alphabet, as avalanchego's utils/cb58 does (with the same library).
func CB58Encode(b []byte) string {
	c := checksum(b)
	buf := make([]byte, 0, len(b)+4)
	buf = append(append(buf, b...), c[:]...)
	return base58.Encode(buf)
}

// CB58Decode reverses CB58Encode and checks the checksum. Strings over
// MaxBase58Len characters get ErrInputTooLong without being read (base58
// decoding is quadratic in its input); a character outside the alphabet
// gets ErrBase58, a wrong checksum ErrChecksum.
func CB58Decode(s string) ([]byte, error) {
	if len(s) > MaxBase58Len {
		return nil, ErrInputTooLong
	}
	if s == "" {
		return nil, ErrChecksum
	}
	raw, err := base58.Decode(s)
	if err != nil {
		return nil, ErrBase58
	}
	if len(raw) < 4 {
		return nil, ErrChecksum
	}
	body, sum := raw[:len(raw)-4], raw[len(raw)-4:]
	if c := checksum(body); string(c[:]) != string(sum) {
		return nil, ErrChecksum
	}
	return body, nil
}
