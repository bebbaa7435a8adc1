package wire

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// timeCases are instants where a date computation goes wrong first: the ends of int64, the
// epoch, leap days and century years, whole seconds and every length of fraction.
var timeCases = []int64{
	math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1,
	0, 1, -1, 999_999_999, -999_999_999, 1e9, -1e9, 86400e9 - 1, -86400e9,
	time.Date(2000, 2, 29, 23, 59, 59, 100_000_000, time.UTC).UnixNano(),
	time.Date(2000, 3, 1, 0, 0, 0, 0, time.UTC).UnixNano(),
	time.Date(1900, 2, 28, 12, 0, 0, 120, time.UTC).UnixNano(),
	time.Date(1900, 3, 1, 12, 0, 0, 1, time.UTC).UnixNano(),
	time.Date(2100, 12, 31, 23, 59, 59, 999_999_999, time.UTC).UnixNano(),
	time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano(),
	time.Date(2026, 11, 25, 9, 8, 7, 654_321_000, time.UTC).UnixNano(),
}

// TestAppendTime holds AppendTime to time.Time's own RFC 3339 formatting, on the edge cases
// and on random instants across all of int64.
func TestAppendTime(t *testing.T) {
	t.Parallel()
	check := func(ns int64) {
		t.Helper()
		want := Time(ns).Format(time.RFC3339Nano)
		if got := string(AppendTime([]byte("x"), ns)); got != "x"+want {
			t.Fatalf("AppendTime(%d) = %q, want %q", ns, got[1:], want)
		}
	}
	for _, ns := range timeCases {
		check(ns)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		ns := int64(r.Uint64())
		check(ns)
		check(ns / 1e9 * 1e9)                             // whole seconds
		check(ns / 1e6 * 1e6)                             // milliseconds, as the mock's clock often gives
		check(r.Int64N(200*365*86400e9) - 50*365*86400e9) // 1920 to 2120
	}
}

func FuzzAppendTime(f *testing.F) {
	for _, ns := range timeCases {
		f.Add(ns)
	}
	f.Fuzz(func(t *testing.T, ns int64) {
		if got, want := string(AppendTime(nil, ns)), Time(ns).Format(time.RFC3339Nano); got != want {
			t.Fatalf("AppendTime(%d) = %q, want %q", ns, got, want)
		}
	})
}

func BenchmarkAppendTime(b *testing.B) {
	ns := time.Date(2026, 11, 25, 9, 8, 7, 654_321_000, time.UTC).UnixNano()
	buf := make([]byte, 0, 64)
	b.Run("AppendTime", func(b *testing.B) {
		for b.Loop() {
			buf = AppendTime(buf[:0], ns)
		}
	})
	b.Run("time.AppendFormat", func(b *testing.B) {
		for b.Loop() {
			buf = Time(ns).AppendFormat(buf[:0], time.RFC3339Nano)
		}
	})
}
