// Package pagetoken makes the opaque nextPageToken strings of the local
// handlers.
//
// A token is stateless, so any replica can continue a listing another began:
// it carries a 64-bit cursor (an offset, or a position such as block<<20|log
// for keyset pagination) and a MAC that binds it to a scope (the route and its
// filters) and to the hour it was issued. It is printed as a UUID, like the
// real services' tokens, and lives 24 hours like theirs. Tokens are not
// secrets: the MAC only rejects tampered, foreign or expired tokens with a
// clear error instead of a wrong page.
package pagetoken

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"time"
)

// Lifetime is how long a token stays valid after it is issued.
const Lifetime = 24 * time.Hour

// ErrInvalid is returned for a token that is malformed, was issued for
// another scope or has expired.
var ErrInvalid = errors.New("invalid page token")

var key = []byte("avaedge page token v1")

// Encode returns the token for cursor within scope, issued at now.
func Encode(scope string, cursor uint64, now time.Time) string {
	var raw [16]byte
	hour := uint32(now.Unix() / 3600)
	// 8 bytes cursor masked by scope and hour (so tokens do not read as
	// counters), 2 bytes hour (mod 2^16), 6 bytes MAC over all of it.
	mask := mac(scope, 0, hour)
	binary.BigEndian.PutUint64(raw[:8], cursor^binary.BigEndian.Uint64(mask[8:16]))
	m := mac(scope, cursor, hour)
	binary.BigEndian.PutUint16(raw[8:10], uint16(hour))
	copy(raw[10:], m[:6])
	h := hex.EncodeToString(raw[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// Decode returns the cursor of token if it was issued for scope within
// Lifetime before now.
func Decode(scope, token string, now time.Time) (uint64, error) {
	if len(token) != 36 || token[8] != '-' || token[13] != '-' || token[18] != '-' || token[23] != '-' {
		return 0, ErrInvalid
	}
	raw, err := hex.DecodeString(strings.ReplaceAll(token, "-", ""))
	if err != nil || len(raw) != 16 {
		return 0, ErrInvalid
	}
	nowHour := uint32(now.Unix() / 3600)
	low := binary.BigEndian.Uint16(raw[8:10])
	// Recover the full hour: the latest hour <= now whose low 16 bits match.
	hour := nowHour - uint32(uint16(nowHour)-low)
	if nowHour-hour > uint32(Lifetime/time.Hour) {
		return 0, ErrInvalid
	}
	mask := mac(scope, 0, hour)
	cursor := binary.BigEndian.Uint64(raw[:8]) ^ binary.BigEndian.Uint64(mask[8:16])
	m := mac(scope, cursor, hour)
	if !hmac.Equal(raw[10:16], m[:6]) {
		return 0, ErrInvalid
	}
	return cursor, nil
}

// mac returns HMAC-SHA256(cursor, hour, scope). With cursor 0 it is the mask
// of the cursor field.
func mac(scope string, cursor uint64, hour uint32) []byte {
	h := hmac.New(sha256.New, key)
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], cursor)
	binary.BigEndian.PutUint32(b[8:], hour)
	h.Write(b[:])
	h.Write([]byte(scope))
	return h.Sum(nil)
}
