package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMedianCIRank: the ranks of the distribution-free 95% interval for a median, as tables of
// the binomial distribution give them.
func TestMedianCIRank(t *testing.T) {
	t.Parallel()
	tests := []struct{ n, want int }{
		{1, 0}, {5, 0}, // P(X=0) = 1/32 > 2.5%: no interval
		{6, 1},  // P(X=0) = 1/64
		{9, 2},  // P(X<=1) = 10/512
		{10, 2}, // P(X<=1) = 11/1024, P(X<=2) = 56/1024
		{20, 6}, // P(X<=5) = 0.0207, P(X<=6) = 0.0577
		{30, 10},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, medianCIRank(tt.n), "n=%d", tt.n)
	}
}

func TestSpread(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "(range 0.700 to 0.900, n=3)", spread([]float64{0.9, 0.7, 0.8}))
	assert.Equal(t, "(95% CI 0.200 to 0.800, n=9)", spread([]float64{0.5, 0.9, 0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8}))
	assert.Empty(t, spread(nil))
}
