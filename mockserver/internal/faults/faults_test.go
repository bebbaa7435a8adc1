package faults

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMatch: rules are tried in order, by method (any case) and path (exact, or a prefix
// ending in *); Times counts down and removes the rule once used up.
func TestMatch(t *testing.T) {
	t.Parallel()
	var l List
	require.NoError(t, l.Add(
		Rule{Method: "post", Path: "/v1/sms/send", Status: 500, Times: 2},
		Rule{Path: "/v1/sms/*", Status: 503},
		Rule{Method: "GET", Status: 429},
	))
	tests := []struct {
		method, path string
		status       int
	}{
		{"POST", "/v1/sms/send", 500},
		{"GET", "/v1/sms/send", 503},
		{"POST", "/v1/sms/send", 500},
		{"POST", "/v1/sms/send", 503}, // the first rule is used up
		{"GET", "/v1/balance", 429},
		{"POST", "/v1/otp/send", 0},
	}
	for _, tt := range tests {
		r, ok := l.Match(tt.method, tt.path)
		assert.Equal(t, tt.status != 0, ok, "%s %s", tt.method, tt.path)
		assert.Equal(t, tt.status, r.Status, "%s %s", tt.method, tt.path)
	}
	assert.Len(t, l.Rules(), 2)
}

// TestRulesCountWhatIsLeft: Rules shows the applications left of a rule with Times.
func TestRulesCountWhatIsLeft(t *testing.T) {
	t.Parallel()
	var l List
	require.NoError(t, l.Add(Rule{Status: 500, Times: 3}, Rule{Status: 502}))
	l.Match("GET", "/v1/balance")
	assert.Equal(t, []Rule{{Status: 500, Times: 2}, {Status: 502}}, l.Rules())
	l.Clear()
	assert.Empty(t, l.Rules())
}

// TestAddIsAllOrNone: past MaxRules nothing of the call is added.
func TestAddIsAllOrNone(t *testing.T) {
	t.Parallel()
	var l List
	require.NoError(t, l.Add(make([]Rule, MaxRules-1)...))
	err := l.Add(Rule{}, Rule{})
	var limit *LimitError
	require.True(t, errors.As(err, &limit))
	assert.Equal(t, LimitError{Active: MaxRules - 1, Given: 2}, *limit)
	assert.Len(t, l.Rules(), MaxRules-1)
	require.NoError(t, l.Add(Rule{}))
}

// TestProbabilitySkips: a rule with probability 0 < p < 1 applies to some requests only, and
// one it skips goes on to the next rule.
func TestProbabilitySkips(t *testing.T) {
	t.Parallel()
	var l List
	require.NoError(t, l.Add(Rule{Status: 500, Probability: 0.5}, Rule{Status: 502}))
	seen := map[int]int{}
	for range 1000 {
		r, _ := l.Match("GET", "/v1/balance")
		seen[r.Status]++
	}
	assert.Greater(t, seen[500], 350)
	assert.Greater(t, seen[502], 350)
}
