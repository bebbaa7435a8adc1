package mockserver

import (
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/faults"
)

// FaultRule injects a fault into the requests it matches. Method and Path select requests
// (empty matches any; a Path ending in "*" matches by prefix), and WorkspaceID, when set, the
// requests of that workspace only (those whose API key or dashboard token is the workspace's),
// so that tests sharing one mock, each with its workspace, inject faults without touching
// each other. Times is how many matching requests it applies to; 0 means until ClearFaults.
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
// (faults never apply to /_mock/). Its JSON form is a rule of GET /_mock/faults, but for
// Latency, which that route writes apart as a Go duration ("latency": "250ms").
type FaultRule struct {
	Method          string        `json:"method,omitempty"`          // the request's method; "": any
	Path            string        `json:"path,omitempty"`            // the request's path; "": any; a trailing "*": a prefix
	WorkspaceID     string        `json:"workspaceId,omitempty"`     // the requests of this workspace only; "": every request
	Status          int           `json:"status,omitempty"`          // answer with this status, 400-599
	Times           int           `json:"times,omitempty"`           // matching requests it applies to; 0: until cleared
	Latency         time.Duration `json:"-"`                         // a delay, up to a minute
	Drop            bool          `json:"drop,omitempty"`            // commit, then close without an answer
	ProviderFailure bool          `json:"providerFailure,omitempty"` // the provider refuses the send
	RetryAfter      int           `json:"retryAfter,omitempty"`      // seconds of Retry-After, with Status
	Probability     float64       `json:"probability,omitempty"`     // between 0 and 1: the chance per request
}

// MaxFaultRules is how many fault rules may be active at once: every request tries them in
// order under one lock, so their number bounds the cost of each request (about 100 bytes
// each, 100 KB in all).
const MaxFaultRules = 1000

// AddFaults appends fault rules (see FaultRule), all or none: a rule that is invalid (a Path
// that matches no /v1 route, a WorkspaceID naming no workspace, a Status outside 400-599, a negative count) or more than
// MaxFaultRules active in all is an error, and nothing is added.
func (s *Server) AddFaults(rules ...FaultRule) error {
	in := make([]faults.Rule, len(rules))
	for i, r := range rules {
		in[i] = faults.Rule(r) // the same fields: a field added to one only does not compile
	}
	return s.api.AddFaults(in...)
}

// ClearFaults removes every fault rule.
func (s *Server) ClearFaults() { s.api.ClearFaults() }

// Faults returns the active fault rules, with Times counting what is left.
func (s *Server) Faults() []FaultRule {
	list := s.api.Faults()
	out := make([]FaultRule, len(list))
	for i, r := range list {
		out[i] = FaultRule(r)
	}
	return out
}
