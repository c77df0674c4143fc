package pagetoken

import (
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	now := time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)
	for _, c := range []uint64{0, 1, 99, 1 << 40, ^uint64(0)} {
		tok := Encode("listSubnets|fuji", c, now)
		if len(tok) != 36 {
			t.Fatalf("token %q: len %d; want 36", tok, len(tok))
		}
		got, err := Decode("listSubnets|fuji", tok, now.Add(23*time.Hour))
		if err != nil || got != c {
			t.Fatalf("Decode(Encode(%d)) = %d, %v", c, got, err)
		}
	}
}

func TestRejects(t *testing.T) {
	now := time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)
	tok := Encode("a", 10, now)
	flipped := []byte(tok)
	if flipped[0] == '0' {
		flipped[0] = '1'
	} else {
		flipped[0] = '0'
	}
	tests := []struct {
		name, scope, token string
		at                 time.Time
	}{
		{"other scope", "b", tok, now},
		{"expired", "a", tok, now.Add(26 * time.Hour)},
		{"tampered", "a", string(flipped), now},
		{"garbage", "a", "not-a-token", now},
		{"empty", "a", "", now},
		{"non hex", "a", "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz", now},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c, err := Decode(tt.scope, tt.token, tt.at); err == nil {
				t.Fatalf("Decode = %d, nil; want ErrInvalid", c)
			}
		})
	}
}

// TestSecret: a token made with one secret is refused under another and
// accepted again under the first (replicas sharing a secret); a short
// secret is refused.
func TestSecret(t *testing.T) {
	now := time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)
	a, b := []byte("deployment-a-secret-0123456789"), []byte("deployment-b-secret-0123456789")
	if err := SetSecret(a); err != nil {
		t.Fatal(err)
	}
	tok := Encode("s", 42, now)
	if err := SetSecret(b); err != nil {
		t.Fatal(err)
	}
	if c, err := Decode("s", tok, now); err == nil {
		t.Fatalf("a token of secret a decoded under secret b: %d", c)
	}
	if err := SetSecret(a); err != nil {
		t.Fatal(err)
	}
	if c, err := Decode("s", tok, now); err != nil || c != 42 {
		t.Fatalf("Decode under the same secret = %d, %v; want 42", c, err)
	}
	if err := SetSecret([]byte("short")); err == nil {
		t.Fatal("SetSecret took a 5-byte secret")
	}
}

// TestKeyTokens: a long sort key round-trips; a token of another scope, a
// tampered, an expired or an oversized one is refused.
func TestKeyTokens(t *testing.T) {
	now := time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)
	key := []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123")
	tok := EncodeKey("holdings", key, now)
	if got, err := DecodeKey("holdings", tok, now.Add(23*time.Hour)); err != nil || string(got) != string(key) {
		t.Fatalf("DecodeKey(EncodeKey(key)) = %q, %v", got, err)
	}
	if got, err := DecodeKey("holdings", EncodeKey("holdings", nil, now), now); err != nil || len(got) != 0 {
		t.Fatalf("an empty key: %q, %v", got, err)
	}
	tampered := []byte(tok)
	tampered[3] ^= 1
	for name, c := range map[string]struct {
		scope, tok string
		at         time.Time
	}{
		"other scope":    {"other", tok, now},
		"tampered":       {"holdings", string(tampered), now},
		"expired":        {"holdings", tok, now.Add(26 * time.Hour)},
		"a 64-bit token": {"holdings", Encode("holdings", 7, now), now},
		"oversized":      {"holdings", strings.Repeat("A", 200), now},
		"not base64":     {"holdings", "%%%%", now},
	} {
		if got, err := DecodeKey(c.scope, c.tok, c.at); err == nil {
			t.Errorf("%s: DecodeKey = %q, nil; want ErrInvalid", name, got)
		}
	}
}

func FuzzDecodeKey(f *testing.F) {
	now := time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)
	f.Add(EncodeKey("s", []byte("key"), now))
	f.Add("AAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, tok string) {
		k, err := DecodeKey("s", tok, now)
		if err == nil && EncodeKey("s", k, now) != tok {
			t.Fatalf("accepted %q that does not round-trip", tok)
		}
	})
}

func FuzzDecode(f *testing.F) {
	now := time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)
	f.Add(Encode("s", 5, now))
	f.Add("00000000-0000-0000-0000-000000000000")
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := Decode("s", tok, now)
		if err == nil && !strings.EqualFold(Encode("s", c, now), tok) {
			t.Fatalf("accepted %q that does not round-trip", tok)
		}
	})
}
