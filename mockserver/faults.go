package mockserver

import (
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// FaultRule injects a fault into the requests it matches. Method and Path select requests
// (empty matches any; a Path ending in "*" matches by prefix). Times is how many matching
// requests it applies to; 0 means until ClearFaults.
//
// Latency delays the request. Status answers with that status and the contract's error body
// before anything is processed (with RetryAfter seconds as Retry-After; a 429 always has one).
// Drop processes and commits the request, then closes the connection without a response.
// ProviderFailure makes the provider refuse a send: the campaign is failed and refunded.
// Probability, when between 0 and 1, applies the rule to each matching request with that
// chance (a request it skips goes on to the next rule), for soak tests with random faults.
//
// At most MaxFaultRules rules are active at once, and a Path must be able to match a /v1 route
// (faults never apply to /_mock/).
type FaultRule struct {
	Method          string        `json:"method,omitempty"`
	Path            string        `json:"path,omitempty"`
	Status          int           `json:"status,omitempty"`
	Times           int           `json:"times,omitempty"`
	Latency         time.Duration `json:"-"`
	Drop            bool          `json:"drop,omitempty"`
	ProviderFailure bool          `json:"providerFailure,omitempty"`
	RetryAfter      int           `json:"retryAfter,omitempty"`
	Probability     float64       `json:"probability,omitempty"`
}

// MaxFaultRules is how many fault rules may be active at once: every request tries them in
// order under one lock, so their number bounds the cost of each request (about 100 bytes
// each, 100 KB in all).
const MaxFaultRules = 1000

type faultRule struct {
	FaultRule
	left int // applications left when Times > 0
}

// faults is the list of active rules, tried in order.
type faults struct {
	mu    sync.Mutex
	rules []*faultRule
}

// add appends rules, all or none: beyond MaxFaultRules in all it adds nothing.
func (f *faults) add(rules ...FaultRule) *apiError {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(rules) > MaxFaultRules-len(f.rules) {
		return badRequest("rules", "At most %d fault rules may be active; %d are, and %d more were given.", MaxFaultRules, len(f.rules), len(rules))
	}
	for _, r := range rules {
		f.rules = append(f.rules, &faultRule{FaultRule: r, left: r.Times})
	}
	return nil
}

func (f *faults) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = nil
}

func (f *faults) list() []FaultRule {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]FaultRule, 0, len(f.rules))
	for _, r := range f.rules {
		rule := r.FaultRule
		if r.Times > 0 {
			rule.Times = r.left
		}
		out = append(out, rule)
	}
	return out
}

// match returns the first rule that applies to the request and counts it, or nil.
func (f *faults) match(method, path string) *FaultRule {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, r := range f.rules {
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
		if r.Probability > 0 && r.Probability < 1 && rand.Float64() >= r.Probability {
			continue
		}
		rule := r.FaultRule
		if r.Times > 0 {
			r.left--
			if r.left == 0 {
				f.rules = append(f.rules[:i:i], f.rules[i+1:]...)
			}
		}
		return &rule
	}
	return nil
}
