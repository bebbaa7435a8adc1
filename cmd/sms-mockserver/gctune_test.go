package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGCPercentFor(t *testing.T) {
	t.Parallel()
	const mb = 1 << 20
	tests := []struct {
		live, headroom uint64
		want           int
	}{
		{0, 32 * mb, 100},         // nothing measured yet: the default
		{32 * mb, 32 * mb, 100},   // a live heap of headroom or more: the default
		{500 * mb, 32 * mb, 100},  // large stores never get more than twice their size
		{16 * mb, 32 * mb, 200},   // goal 48 MB: live + headroom
		{8 * mb, 32 * mb, 400},    // goal 40 MB
		{1 * mb, 32 * mb, 1000},   // capped: goal 11 MB, not 33
		{10 * mb, 32 * mb, 320},   // goal 42 MB
		{31 * mb, 32 * mb, 103},   // just under: barely above the default
		{1 * mb, 1 * mb, 100},     // tiny headroom
		{100, 32 * mb, 1000},      // nearly empty heap: capped
		{3 * mb, 16 * mb, 533},    // goal 19 MB
		{64 * mb, 0, 100},         // no headroom
		{5 * mb, 10 * mb, 200},    // goal 15 MB
		{20 * mb, 21 * mb, 105},   // goal 41 MB
		{2 * mb, 3 * mb, 150},     // goal 5 MB
		{7 * mb, 70 * mb, 1000},   // capped: goal 77 MB
		{40 * mb, 400 * mb, 1000}, // capped
		{50 * mb, 400 * mb, 800},  // goal 450 MB
	}
	for _, tt := range tests {
		got := gcPercentFor(tt.live, tt.headroom)
		assert.Equal(t, tt.want, got, "live %d, headroom %d", tt.live, tt.headroom)
		if tt.live > 0 {
			goal := tt.live + tt.live*uint64(got)/100
			assert.LessOrEqual(t, goal, 2*tt.live+tt.headroom, "the goal never exceeds GOGC=100's by more than headroom")
		}
	}
}
