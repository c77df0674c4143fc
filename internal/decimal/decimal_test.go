package decimal

import (
	"strconv"
	"testing"
)

func TestItoa(t *testing.T) {
	for _, n := range []int64{0, 7, 8191, 8192, -3, 1 << 40} {
		if got := Itoa(n); got != strconv.FormatInt(n, 10) {
			t.Fatalf("Itoa(%d) = %q", n, got)
		}
	}
	if a := testing.AllocsPerRun(100, func() { _ = Itoa(4222) }); a != 0 {
		t.Fatalf("Itoa(4222) allocates %v times", a)
	}
}
