// Package backoff is the one jittered backoff of the SDK: the client's waits between the
// attempts of a call, and package bulk's between the polls of a wait.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Jitter returns a wait drawn uniformly between lo and a ceiling that doubles with each
// attempt (0 for the first wait), from lo up to hi: the "full jitter" of the AWS SDKs, never
// below lo.
func Jitter(lo, hi time.Duration, attempt int) time.Duration {
	ceil := lo
	for i := 0; i < attempt && ceil > 0 && ceil < hi; i++ {
		ceil *= 2
	}
	ceil = max(lo, min(ceil, hi))
	if ceil <= lo {
		return lo
	}
	return lo + rand.N(ceil-lo+1)
}
