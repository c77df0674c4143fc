// Package pagetoken makes the opaque nextPageToken strings of the local
// handlers.
//
// A token is stateless, so any replica can continue a listing another began:
// it carries a 64-bit cursor (the sort key of the page's last row, such as
// block<<24|index, from which the next page starts) and a MAC that binds it
// to a scope (the route and its filters) and to the hour it was issued. It is
// printed as a UUID, like the real services' tokens, and lives 24 hours like
// theirs. A sort key longer than 64 bits (a contract address and a token id)
// goes in a longer token, printed in base64url (EncodeKey). The MAC is keyed with the deployment's secret (SetSecret): replicas
// that share it accept each other's tokens, and nobody without it can make
// one, so a tampered, forged, foreign or expired token gets a clear error
// instead of a page.
package pagetoken

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// Lifetime is how long a token stays valid after it is issued.
const Lifetime = 24 * time.Hour

// ErrInvalid is returned for a token that is malformed, was issued for
// another scope or has expired.
var ErrInvalid = errors.New("invalid page token")

// MinSecret is the length, in bytes, of the shortest secret SetSecret
// takes.
const MinSecret = 16

// secret keys the tokens' MAC: the deployment's (SetSecret), else one drawn
// when the process starts, which no other process knows.
var secret atomic.Pointer[[]byte]

func init() {
	b := make([]byte, 32)
	rand.Read(b)
	secret.Store(&b)
}

// SetSecret makes s the secret of the tokens made and accepted from now on,
// for the whole process: every replica of a deployment sets the same one, so
// that a token one made works on another. It refuses a secret shorter than
// MinSecret. It is safe for concurrent use.
func SetSecret(s []byte) error {
	if len(s) < MinSecret {
		return fmt.Errorf("pagetoken: a secret of %d bytes; want at least %d", len(s), MinSecret)
	}
	b := append([]byte(nil), s...)
	secret.Store(&b)
	return nil
}

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

// mac returns HMAC-SHA256(cursor, hour, scope) keyed with the secret. With
// cursor 0 it is the mask of the cursor field.
func mac(scope string, cursor uint64, hour uint32) []byte {
	h := hmac.New(sha256.New, *secret.Load())
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], cursor)
	binary.BigEndian.PutUint32(b[8:], hour)
	h.Write(b[:])
	h.Write([]byte(scope))
	return h.Sum(nil)
}

// MaxKey is the length, in bytes, of the longest key EncodeKey takes.
const MaxKey = 64

// EncodeKey returns the token for the sort key key (at most MaxKey bytes)
// within scope, issued at now: key, the hour and a MAC, in base64url.
func EncodeKey(scope string, key []byte, now time.Time) string {
	hour := uint32(now.Unix() / 3600)
	raw := make([]byte, 0, len(key)+2+keyMAC)
	raw = append(raw, key...)
	raw = binary.BigEndian.AppendUint16(raw, uint16(hour))
	raw = append(raw, keyMac(scope, key, hour)[:keyMAC]...)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// DecodeKey returns the sort key of token if EncodeKey issued it for scope
// within Lifetime before now.
func DecodeKey(scope, token string, now time.Time) ([]byte, error) {
	if len(token) > base64.RawURLEncoding.EncodedLen(MaxKey+2+keyMAC) {
		return nil, ErrInvalid
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(raw) < 2+keyMAC {
		return nil, ErrInvalid
	}
	key := raw[:len(raw)-2-keyMAC]
	nowHour := uint32(now.Unix() / 3600)
	low := binary.BigEndian.Uint16(raw[len(key):])
	hour := nowHour - uint32(uint16(nowHour)-low)
	if nowHour-hour > uint32(Lifetime/time.Hour) || !hmac.Equal(raw[len(key)+2:], keyMac(scope, key, hour)[:keyMAC]) {
		return nil, ErrInvalid
	}
	return key, nil
}

// keyMAC is the length of a key token's MAC.
const keyMAC = 8

// keyMac returns HMAC-SHA256("k", hour, len(key), key, scope) keyed with
// the secret ("k" keeps it apart from mac's).
func keyMac(scope string, key []byte, hour uint32) []byte {
	h := hmac.New(sha256.New, *secret.Load())
	var b [6]byte
	b[0] = 'k'
	binary.BigEndian.PutUint32(b[1:5], hour)
	b[5] = byte(len(key))
	h.Write(b[:])
	h.Write(key)
	h.Write([]byte(scope))
	return h.Sum(nil)
}
