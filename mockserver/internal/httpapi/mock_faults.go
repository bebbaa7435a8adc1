package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/faults"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// FaultRule is a fault rule on its way in and out. The name is the one encoding/json puts in
// the type errors of its members ("rules.FaultRule.times"), as the mock's has always been.
type FaultRule = faults.Rule

// AddFaults appends fault rules, all or none: a rule that is invalid (a Path that matches no
// /v1 route, a WorkspaceID naming no workspace, a Status outside 400-599, a negative count) or more than faults.MaxRules active
// in all is an error, and nothing is added.
func (a *API) AddFaults(rules ...FaultRule) error {
	for i, r := range rules {
		if err := a.checkFault(i, r); err != nil {
			return err
		}
	}
	if err := a.state.Load().faults.Add(rules...); err != nil {
		return Err(err)
	}
	a.faultsChanged()
	return nil
}

// Bounds of a fault rule's text members: an HTTP method and a request path.
const (
	maxFaultMethod = 16
	maxFaultPath   = 1000
)

// checkFault validates rule i of a list; its errors name the field as rules[i].member.
func (a *API) checkFault(i int, r FaultRule) error {
	field := "rules[" + strconv.Itoa(i) + "]"
	switch {
	case len(r.Method) > maxFaultMethod:
		return badRequest(field+".method", "method must be at most %d bytes.", maxFaultMethod)
	case len(r.Path) > maxFaultPath:
		return badRequest(field+".path", "path must be at most %d bytes.", maxFaultPath)
	case r.Status == 0 && r.Latency == 0 && !r.Drop && !r.ProviderFailure:
		return badRequest(field, "A rule must do something: give status, latency, drop or providerFailure.")
	case r.WorkspaceID != "" && !a.knownWorkspace(r.WorkspaceID):
		return badRequest(field+".workspaceId", "workspaceId %q names no workspace.", r.WorkspaceID)
	case r.Path != "" && !a.faultPathRoutes(r.Path):
		return badRequest(field+".path", "path %q matches no /v1 route (a trailing * matches by prefix).", r.Path)
	case r.ProviderFailure && !faultCanFailSend(r):
		return badRequest(field+".providerFailure", "providerFailure applies only to POST %s: this rule's method and path match none of them.", strings.Join(sendPaths[:], ", "))
	case r.Latency < 0 || r.Latency > time.Minute:
		return badRequest(field+".latency", "latency must be a Go duration from 0 to 1m.")
	case r.Status != 0 && (r.Status < 400 || r.Status > 599):
		return badRequest(field+".status", "status must be from 400 to 599.")
	case r.Times < 0:
		return badRequest(field+".times", "times cannot be negative.")
	case r.RetryAfter < 0:
		return badRequest(field+".retryAfter", "retryAfter cannot be negative.")
	case r.Probability < 0 || r.Probability > 1 || r.Probability != r.Probability:
		return badRequest(field+".probability", "probability must be from 0 to 1.")
	}
	return nil
}

// knownWorkspace reports whether id names a workspace of the store.
func (a *API) knownWorkspace(id string) bool {
	_, err := a.Store().Workspace(id)
	return err == nil
}

// sendPaths are the routes a provider can refuse (a rule's providerFailure): every one that
// sends a message.
var sendPaths = [...]string{"/v1/sms/send", "/v1/sms/campaigns", "/v1/otp/send"}

// faultCanFailSend reports whether a rule's method and path can match a POST to one of
// sendPaths, as faults.List.Match matches them.
func faultCanFailSend(r FaultRule) bool {
	if r.Method != "" && !strings.EqualFold(r.Method, http.MethodPost) {
		return false
	}
	prefix, isPrefix := strings.CutSuffix(r.Path, "*")
	for _, p := range sendPaths {
		if r.Path == "" || r.Path == p || isPrefix && strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// faultPathRoutes reports whether a fault rule's path can match a request to a /v1 route: as
// a path (with any non-empty {id}), or, ending in *, as a prefix of one.
func (a *API) faultPathRoutes(path string) bool {
	prefix, isPrefix := strings.CutSuffix(path, "*")
	for _, pr := range a.routes {
		if !strings.HasPrefix(pr.pattern, "/v1/") {
			continue
		}
		if !isPrefix {
			if _, ok := matchPattern(pr.pattern, path); ok {
				return true
			}
			continue
		}
		if prefixOfPattern(prefix, pr.pattern) {
			return true
		}
	}
	return false
}

// ClearFaults removes every fault rule.
func (a *API) ClearFaults() {
	a.state.Load().faults.Clear()
	a.faultsChanged()
}

// Faults returns the active fault rules, with Times counting what is left.
func (a *API) Faults() []FaultRule { return a.state.Load().faults.Rules() }

// faultJSON is a fault rule on the wire, with latency as a Go duration string.
type faultJSON struct {
	FaultRule
	Latency string `json:"latency,omitempty"`
}

func faultsOut(rules []FaultRule) any {
	out := make([]faultJSON, len(rules))
	for i, r := range rules {
		out[i] = faultJSON{FaultRule: r}
		if r.Latency > 0 {
			out[i].Latency = r.Latency.String()
		}
	}
	return struct {
		Rules []faultJSON `json:"rules"`
	}{out}
}

// ctlAddFaults is POST /_mock/faults.
func ctlAddFaults(a *API, rq *request) (int, any, error) {
	var in struct {
		Rules []json.RawMessage `json:"rules"`
	}
	if e := wire.Decode(rq.body, &in); e != nil {
		return 0, nil, e
	}
	if in.Rules == nil {
		return 0, nil, badRequest("rules", "rules is required: an array of fault rules.")
	}
	if len(in.Rules) > faults.MaxRules {
		return 0, nil, badRequest("rules", "At most %d fault rules may be active.", faults.MaxRules)
	}
	rules := make([]FaultRule, len(in.Rules))
	for i, raw := range in.Rules {
		r, err := decodeFault(i, raw)
		if err != nil {
			return 0, nil, err
		}
		rules[i] = r.FaultRule
		if r.Latency != "" {
			d, err := time.ParseDuration(r.Latency)
			if err != nil || d < 0 || d > time.Minute || strings.HasPrefix(r.Latency, "-") { // "-0s" too, as the document's pattern says
				return 0, nil, badRequest("rules["+strconv.Itoa(i)+"].latency", "latency must be a Go duration from 0 to 1m.")
			}
			rules[i].Latency = d
		}
	}
	if err := a.AddFaults(rules...); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, faultsOut(a.Faults()), nil
}

// decodeFault decodes rule i of a POST /_mock/faults body. Its errors name the member as
// rules[i].member; null, as the rule or as a member, is refused.
func decodeFault(i int, raw json.RawMessage) (faultJSON, error) {
	field := "rules[" + strconv.Itoa(i) + "]"
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return faultJSON{}, badRequest(field, "%s must be an object.", field)
	}
	for name, v := range members {
		if string(v) == "null" {
			return faultJSON{}, badRequest(field+"."+name, "%s.%s cannot be null.", field, name)
		}
	}
	var r faultJSON
	if e := wire.Decode(raw, &r); e != nil {
		member := e.Field[strings.LastIndexByte(e.Field, '.')+1:]
		if member == "" {
			return faultJSON{}, badRequest(field, "%s", e.Message)
		}
		return faultJSON{}, badRequest(field+"."+member, "%s", strings.ReplaceAll(e.Message, e.Field, field+"."+member))
	}
	return r, nil
}

// ctlListFaults is GET /_mock/faults.
func ctlListFaults(a *API, _ *request) (int, any, error) {
	return http.StatusOK, faultsOut(a.Faults()), nil
}

// ctlClearFaults is DELETE /_mock/faults.
func ctlClearFaults(a *API, _ *request) (int, any, error) {
	a.ClearFaults()
	return http.StatusOK, faultsOut(nil), nil
}

func (a *API) faultsChanged() {
	a.publish("faults.changed", struct {
		Count int `json:"count"`
	}{len(a.Faults())})
}
