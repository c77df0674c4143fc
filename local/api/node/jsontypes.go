package node

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The JSON types below decode arguments and encode results the way
// avalanchego's utils/json, ids and utils/formatting types do, so that
// avalanchego's clients and the node's error texts both hold.

const null = "null"

// unquote strips one pair of surrounding quotes, as avalanchego's numeric
// types do: both 5 and "5" are accepted.
func unquote(b []byte) string {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	return s
}

// uint64s is avalanchego's json.Uint64: a quoted decimal on the wire.
type uint64s uint64

// MarshalJSON quotes the decimal.
func (u uint64s) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatUint(uint64(u), 10) + `"`), nil
}

// UnmarshalJSON accepts a decimal, quoted or not, and null.
func (u *uint64s) UnmarshalJSON(b []byte) error {
	if string(b) == null {
		return nil
	}
	v, err := strconv.ParseUint(unquote(b), 10, 64)
	*u = uint64s(v)
	return err
}

// uint32s is avalanchego's json.Uint32.
type uint32s uint32

// MarshalJSON quotes the decimal.
func (u uint32s) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatUint(uint64(u), 10) + `"`), nil
}

// UnmarshalJSON accepts a decimal, quoted or not, and null.
func (u *uint32s) UnmarshalJSON(b []byte) error {
	if string(b) == null {
		return nil
	}
	v, err := strconv.ParseUint(unquote(b), 10, 32)
	*u = uint32s(v)
	return err
}

// float64s is avalanchego's json.Float64: a string with four decimals.
type float64s float64

// MarshalJSON writes "12.3456".
func (f float64s) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatFloat(float64(f), 'f', 4, 64) + `"`), nil
}

// jsonID is a cb58 id argument (ids.ID's JSON form).
type jsonID avax.ID

var errMissingQuotes = errors.New("first and last characters should be quotes")

// UnmarshalJSON decodes a quoted cb58 id; null leaves the zero id.
func (id *jsonID) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == null {
		return nil
	}
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return errMissingQuotes
	}
	str := s[1 : len(s)-1]
	if len(str) > avax.MaxIDLen {
		// Refused before decoding: base58 decoding is quadratic, and no
		// longer string is a 32-byte id.
		return fmt.Errorf("couldn't decode ID to bytes: %w: %d characters, at most %d", avax.ErrInputTooLong, len(str), avax.MaxIDLen)
	}
	raw, err := avax.CB58Decode(str)
	if err != nil {
		return fmt.Errorf("couldn't decode ID to bytes: %w", err)
	}
	if len(raw) != len(avax.ID{}) {
		return fmt.Errorf("expected 32 bytes but got %d", len(raw))
	}
	*id = jsonID(raw)
	return nil
}

// jsonNodeID is a "NodeID-..." argument (ids.NodeID's JSON form).
type jsonNodeID avax.NodeID

// UnmarshalJSON decodes a quoted node id; null leaves the zero id.
func (n *jsonNodeID) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == null {
		return nil
	}
	if len(s) <= 2+len(avax.NodeIDPrefix) {
		return fmt.Errorf("node ID is too short: expected to be > %d", 2+len(avax.NodeIDPrefix))
	}
	if s[0] != '"' || s[len(s)-1] != '"' {
		return errMissingQuotes
	}
	id, err := avax.ParseNodeID(s[1 : len(s)-1])
	if err != nil {
		return err
	}
	*n = jsonNodeID(id)
	return nil
}

// encoding is avalanchego's formatting.Encoding. The zero value is hex, the
// default when a request names none.
type encoding uint8

const (
	encHex encoding = iota
	encHexNC
	encHexC
	encJSON
)

var (
	errInvalidEncoding     = errors.New("invalid encoding")
	errUnsupportedEncoding = errors.New("unsupported encoding in method")
)

// String returns the encoding's wire name.
func (e encoding) String() string {
	switch e {
	case encHex:
		return "hex"
	case encHexNC:
		return "hexnc"
	case encHexC:
		return "hexc"
	case encJSON:
		return "json"
	}
	return errInvalidEncoding.Error()
}

// MarshalJSON writes the quoted name.
func (e encoding) MarshalJSON() ([]byte, error) { return []byte(`"` + e.String() + `"`), nil }

// UnmarshalJSON accepts the names in any case, and null.
func (e *encoding) UnmarshalJSON(b []byte) error {
	switch strings.ToLower(string(b)) {
	case null:
	case `"hex"`:
		*e = encHex
	case `"hexnc"`:
		*e = encHexNC
	case `"hexc"`:
		*e = encHexC
	case `"json"`:
		*e = encJSON
	default:
		return errInvalidEncoding
	}
	return nil
}

// encode returns b in e; JSON is not a byte encoding.
func (e encoding) encode(b []byte) (string, error) {
	switch e {
	case encHex, encHexC:
		return avax.EncodeHex(b), nil
	case encHexNC:
		return avax.EncodeHexNC(b), nil
	}
	return "", errUnsupportedEncoding
}
