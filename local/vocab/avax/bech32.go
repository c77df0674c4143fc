package avax

import (
	"errors"
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcutil/bech32"

	"github.com/avaedge/avaedge/avanet"
)

// ErrBech32 means a string is not a valid bech32 string (BIP 173).
var ErrBech32 = errors.New("avax: invalid bech32")

// Bech32Encode returns the bech32 string of data (8-bit bytes) under hrp,
// with btcutil's bech32 as avalanchego's utils/formatting/address does. The
// hrp must be 1 to 83 characters of US-ASCII 33..126, none upper case (BIP
// 173).
func Bech32Encode(hrp string, data []byte) (string, error) {
	if hrp == "" || len(hrp) > 83 {
		return "", fmt.Errorf("%w: hrp length %d", ErrBech32, len(hrp))
	}
	for i := 0; i < len(hrp); i++ {
		if hrp[i] < 33 || hrp[i] > 126 || (hrp[i] >= 'A' && hrp[i] <= 'Z') {
			return "", fmt.Errorf("%w: hrp character %q", ErrBech32, hrp[i])
		}
	}
	five, err := bech32.ConvertBits(data, 8, 5, true)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBech32, err)
	}
	return bech32.Encode(hrp, five)
}

// Bech32Decode reverses Bech32Encode for strings of at most 90 characters
// (BIP 173), as avalanchego's address parser does: mixed case is rejected,
// all-upper is accepted and lowered, and the data must be whole bytes.
func Bech32Decode(s string) (hrp string, data []byte, err error) {
	hrp, five, err := bech32.Decode(s)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", ErrBech32, err)
	}
	data, err = bech32.ConvertBits(five, 5, 8, false)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", ErrBech32, err)
	}
	return hrp, data, nil
}

// FormatBech32 returns addr as "<hrp>1...", without a chain prefix.
func FormatBech32(hrp string, addr ShortID) string {
	s, err := Bech32Encode(hrp, addr[:])
	if err != nil {
		// Only a malformed hrp fails; fall back to the network-neutral one.
		s, _ = Bech32Encode(avanet.FallbackHRP, addr[:])
	}
	return s
}

// FormatAddress returns addr as "<chain>-<hrp>1...", e.g. "X-fuji1...". An
// empty chain gives the bare bech32 form.
func FormatAddress(chain, hrp string, addr ShortID) string {
	if chain == "" {
		return FormatBech32(hrp, addr)
	}
	return chain + "-" + FormatBech32(hrp, addr)
}

// MaxAddressLen is the longest address ParseAddress reads: a chain alias of
// at most MaxIDLen characters (a blockchain id), "-" and a bech32 string of
// at most 90 characters (BIP 173).
const MaxAddressLen = MaxIDLen + 1 + 90

// ParseAddress decodes "<chain>-<hrp>1..." or "<hrp>1..." into its chain
// alias ("" when absent), hrp and short id. Strings over MaxAddressLen
// characters get ErrInputTooLong without being decoded.
func ParseAddress(s string) (chain, hrp string, addr ShortID, err error) {
	if len(s) > MaxAddressLen {
		return "", "", ShortID{}, fmt.Errorf("address %s: %w (%d characters, at most %d)", Clip(s), ErrInputTooLong, len(s), MaxAddressLen)
	}
	rest := s
	if i := strings.IndexByte(s, '-'); i >= 0 {
		chain, rest = s[:i], s[i+1:]
		if chain == "" {
			return "", "", ShortID{}, fmt.Errorf("address %q: empty chain alias", s)
		}
	}
	hrp, data, err := Bech32Decode(rest)
	if err != nil {
		return "", "", ShortID{}, fmt.Errorf("address %q: %w", s, err)
	}
	if len(data) != len(ShortID{}) {
		return "", "", ShortID{}, fmt.Errorf("address %q: %w", s, ErrLength)
	}
	return chain, hrp, ShortID(data), nil
}
