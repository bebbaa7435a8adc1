package mockserver

import (
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/faults"
)

// FaultRule injects a fault into the requests it matches. Method and Path select requests
// (empty matches any; a Path ending in "*" matches by prefix). Times is how many matching
// requests it applies to; 0 means until ClearFaults.
//
// Latency delays the request. Status answers with that status and the contract's error body
// before anything is processed (with RetryAfter seconds as Retry-After; a 429 always has one).
// Drop processes and commits the request, then closes the connection without a response.
// ProviderFailure makes the provider refuse a send, a campaign or an OTP: it is failed and
// refunded; a rule whose Method and Path can match none of them is refused.
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

// AddFaults appends fault rules (see FaultRule), all or none: a rule that is invalid (a Path
// that matches no /v1 route, a Status outside 400-599, a negative count) or more than
// MaxFaultRules active in all is an error, and nothing is added.
func (s *Server) AddFaults(rules ...FaultRule) error {
	list := make([]faults.Rule, len(rules))
	for i, r := range rules {
		list[i] = faults.Rule(r)
	}
	return s.api.AddFaults(list...)
}

// ClearFaults removes every fault rule.
func (s *Server) ClearFaults() { s.api.ClearFaults() }

// Faults returns the active fault rules, with Times counting what is left.
func (s *Server) Faults() []FaultRule {
	rules := s.api.Faults()
	out := make([]FaultRule, len(rules))
	for i, r := range rules {
		out[i] = FaultRule(r)
	}
	return out
}
