// Package faults holds the fault rules a test injects into the mock's /v1 requests, and
// matches each request against them in order.
//
// It is a leaf: it imports nothing of the mock's. What a rule means (a latency, a status, a
// dropped connection, a provider failure) is carried out by the HTTP layer; whether a rule's
// path can match a route is checked there too, before Add.
package faults

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"
)

// MaxRules is how many rules may be active at once: every request tries them in order under
// one lock, so their number bounds the cost of each request (about 100 bytes each, 100 KB in
// all).
const MaxRules = 1000

// Rule is one fault rule: the facade's mockserver.FaultRule, which documents what it does.
// Its JSON form is the wire form of GET /_mock/faults, with Latency written apart.
type Rule struct {
	Method          string        `json:"method,omitempty"`          // empty: any
	Path            string        `json:"path,omitempty"`            // empty: any; "*" at the end: a prefix
	WorkspaceID     string        `json:"workspaceId,omitempty"`     // empty: any; else that workspace's requests only
	Status          int           `json:"status,omitempty"`          // answer with it, 400-599
	Times           int           `json:"times,omitempty"`           // matching requests it applies to; 0: until cleared
	Latency         time.Duration `json:"-"`                         // delay
	Drop            bool          `json:"drop,omitempty"`            // commit, then close without an answer
	ProviderFailure bool          `json:"providerFailure,omitempty"` // the provider refuses the send
	RetryAfter      int           `json:"retryAfter,omitempty"`      // seconds, with Status
	Probability     float64       `json:"probability,omitempty"`     // between 0 and 1: the chance per request
}

// LimitError is Add's answer when the rules would be more than MaxRules.
type LimitError struct {
	Active, Given int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("At most %d fault rules may be active; %d are, and %d more were given.", MaxRules, e.Active, e.Given)
}

type rule struct {
	Rule
	left int // applications left when Times > 0
}

// List is the active rules, tried in order. Its zero value is empty; it is safe for
// concurrent use.
type List struct {
	mu    sync.Mutex
	rules []*rule
}

// Add appends rules, all or none: beyond MaxRules in all it adds nothing and returns a
// *LimitError.
func (l *List) Add(rules ...Rule) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(rules) > MaxRules-len(l.rules) {
		return &LimitError{Active: len(l.rules), Given: len(rules)}
	}
	for _, r := range rules {
		l.rules = append(l.rules, &rule{Rule: r, left: r.Times})
	}
	return nil
}

// Clear removes every rule.
func (l *List) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rules = nil
}

// Forget removes the rules naming workspace, and reports how many there were.
func (l *List) Forget(workspace string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.rules)
	l.rules = slices.DeleteFunc(l.rules, func(r *rule) bool { return r.WorkspaceID == workspace })
	return n - len(l.rules)
}

// Rules returns the active rules, with Times counting what is left.
func (l *List) Rules() []Rule {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Rule, 0, len(l.rules))
	for _, r := range l.rules {
		rule := r.Rule
		if r.Times > 0 {
			rule.Times = r.left
		}
		out = append(out, rule)
	}
	return out
}

// Match returns the first rule that applies to a request and counts it: a rule with Times
// left is removed once they are used up. workspace returns the request's workspace id, or ""
// when it has none; it is called only when a rule naming a workspace matches the rest.
func (l *List) Match(method, path string, workspace func() string) (Rule, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ws, wsKnown := "", false
	for i, r := range l.rules {
		if r.Method != "" && !strings.EqualFold(r.Method, method) {
			continue
		}
		if r.Path != "" {
			if prefix, ok := strings.CutSuffix(r.Path, "*"); ok {
				if !strings.HasPrefix(path, prefix) {
					continue
				}
			} else if r.Path != path {
				continue
			}
		}
		if r.WorkspaceID != "" {
			if !wsKnown {
				ws, wsKnown = workspace(), true
			}
			if ws != r.WorkspaceID {
				continue
			}
		}
		if r.Probability > 0 && r.Probability < 1 && rand.Float64() >= r.Probability {
			continue
		}
		if r.Times > 0 {
			r.left--
			if r.left == 0 {
				l.rules = append(l.rules[:i:i], l.rules[i+1:]...)
			}
		}
		return r.Rule, true
	}
	return Rule{}, false
}
