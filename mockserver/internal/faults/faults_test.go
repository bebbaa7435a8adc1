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
		r, ok := l.Match(tt.method, tt.path, noWorkspace)
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
	l.Match("GET", "/v1/balance", noWorkspace)
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
		r, _ := l.Match("GET", "/v1/balance", noWorkspace)
		seen[r.Status]++
	}
	assert.Greater(t, seen[500], 350)
	assert.Greater(t, seen[502], 350)
}

// noWorkspace is the workspace of a request that names none.
func noWorkspace() string { return "" }

// TestMatchByWorkspace: a rule naming a workspace applies to that workspace's requests only,
// asks for the request's workspace only when the rest of a rule naming one matches, and asks
// once per request; Forget removes the rules of one workspace.
func TestMatchByWorkspace(t *testing.T) {
	t.Parallel()
	var l List
	require.NoError(t, l.Add(
		Rule{Path: "/v1/otp/*", WorkspaceID: "a", Status: 500},
		Rule{WorkspaceID: "a", Status: 502},
		Rule{WorkspaceID: "b", Status: 503},
		Rule{Path: "/v1/balance", Status: 429},
	))
	tests := []struct {
		path, ws string
		status   int
		asked    int
	}{
		{"/v1/otp/send", "a", 500, 1},
		{"/v1/sms/send", "a", 502, 1},
		{"/v1/sms/send", "b", 503, 1},
		{"/v1/sms/send", "", 0, 1},
		{"/v1/balance", "c", 429, 1},
	}
	for _, tt := range tests {
		asked := 0
		r, ok := l.Match("POST", tt.path, func() string { asked++; return tt.ws })
		assert.Equal(t, tt.status != 0, ok, "%s from %q", tt.path, tt.ws)
		assert.Equal(t, tt.status, r.Status, "%s from %q", tt.path, tt.ws)
		assert.Equal(t, tt.asked, asked, "%s from %q", tt.path, tt.ws)
	}

	var only List
	require.NoError(t, only.Add(Rule{Path: "/v1/otp/send", WorkspaceID: "a", Status: 500}))
	_, ok := only.Match("POST", "/v1/balance", func() string { t.Error("asked for a rule whose path cannot match"); return "a" })
	assert.False(t, ok)

	assert.Equal(t, 2, l.Forget("a"))
	assert.Equal(t, []Rule{{WorkspaceID: "b", Status: 503}, {Path: "/v1/balance", Status: 429}}, l.Rules())
	assert.Equal(t, 0, l.Forget("a"))
}
