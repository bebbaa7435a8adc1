package bulk

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNumberSetAgreesWithAMap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		next func(r *rand.Rand, i int) uint64
	}{
		{"sequential", func(_ *rand.Rand, i int) uint64 { return 2348000000000 + uint64(i/2) }},
		{"random", func(r *rand.Rand, _ int) uint64 { return 2340000000000 + r.Uint64N(50_000) }},
		{"spread", func(r *rand.Rand, _ int) uint64 { return 1 + r.Uint64N(999_999_999_999_999) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(1, 2))
			var s numberSet
			want := map[uint64]struct{}{}
			for i := range 100_000 {
				x := tt.next(r, i)
				_, had := want[x]
				want[x] = struct{}{}
				require.Equal(t, !had, s.add(x), "add(%d) #%d", x, i)
			}
			assert.Equal(t, len(want), s.n)
			assert.LessOrEqual(t, s.n*100, len(s.slots)*numberSetLoad, "load at most 80%")
			assert.Greater(t, float64(s.n)/float64(len(s.slots)), 0.8/1.5, "grown by half, not more")
			for i := range 100_000 { // has agrees too, for numbers in and out of the set
				x := tt.next(r, i)
				_, in := want[x]
				require.Equal(t, in, s.has(x), "has(%d)", x)
			}
			for x := range want {
				assert.True(t, s.has(x))
				assert.False(t, s.add(x))
			}
			assert.False(t, (&numberSet{}).has(1), "an empty set")
		})
	}
}
