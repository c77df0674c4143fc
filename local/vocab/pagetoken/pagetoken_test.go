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
