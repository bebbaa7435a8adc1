package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/reqlog"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"

	"github.com/seedsms/sms-go/mockserver/internal/faults"

	"github.com/seedsms/sms-go/mockserver/internal/clock"

	"net/http"
	"strconv"
	"strings"
	"time"
)

// The /_mock/ test controls, over HTTP and as Go methods. They need no credentials.

func controlRoutes() []struct {
	pattern string
	route
} {
	const post, get, del = http.MethodPost, http.MethodGet, http.MethodDelete
	c := func(method string, h handlerFunc) route {
		return route{method: method, auth: authNone, body: method == post, handle: h}
	}
	return []struct {
		pattern string
		route
	}{
		{"/_mock/workspaces", c(post, ctlNewWorkspace)},
		{"/_mock/workspaces/{id}/balance", c(post, ctlSetBalance)},
		{"/_mock/sender-ids/{id}/approve", c(post, ctlMoveSender(store.SenderActive))},
		{"/_mock/sender-ids/{id}/block", c(post, ctlMoveSender(store.SenderBlocked))},
		{"/_mock/campaigns/{id}/deliver", c(post, ctlDeliver)},
		{"/_mock/dnd", c(post, ctlDND)},
		{"/_mock/otps/latest", c(get, ctlLatestOTP)},
		{"/_mock/clock", c(post, ctlClock)},
		{"/_mock/faults", c(post, ctlAddFaults)},
		{"/_mock/faults", c(get, ctlListFaults)},
		{"/_mock/faults", c(del, ctlClearFaults)},
		{"/_mock/requests", c(get, ctlRequests)},
		{"/_mock/reset", c(post, ctlReset)},
	}
}

// decodeOptional decodes a control's body when there is one.
func decodeOptional(body []byte, v any) *wire.Error {
	if len(body) == 0 {
		return nil
	}
	return wire.Decode(body, v)
}

// controlError is the error a Go control returns: the API's error for err, as the same
// control over HTTP answers it, or nil.
func controlError(err error) error {
	if err == nil {
		return nil
	}
	return apiErrorOf(err)
}

// --- workspaces and wallets ------------------------------------------------------------------

// WorkspaceParams configures NewWorkspace. Nil balances take the server's defaults; an empty
// Country takes the server's.
type WorkspaceParams struct {
	LiveBalance *int64 // kobo
	TestBalance *int64 // kobo
	Country     string
}

// NewWorkspace creates a workspace like the default one: a live and a test key with every
// scope, the active sender ID MOCKSMS, and funded wallets. Past WithWorkspaceLimit it returns
// an error and creates nothing.
func (s *Server) NewWorkspace(p WorkspaceParams) (Workspace, error) {
	creds, err := s.state.Load().store.NewWorkspace(store.WorkspaceParams{LiveBalance: p.LiveBalance,
		TestBalance: p.TestBalance, Country: p.Country}, s.clock.Now().UnixNano())
	if err != nil {
		return Workspace{}, controlError(err)
	}
	return s.workspaceOf(creds, ""), nil
}

func ctlNewWorkspace(s *Server, rq *request) (int, any, error) {
	var in struct {
		LiveBalance *wire.Naira `json:"liveBalance"`
		TestBalance *wire.Naira `json:"testBalance"`
		Country     string      `json:"country"`
	}
	if e := decodeOptional(rq.body, &in); e != nil {
		return 0, nil, e
	}
	ws, err := s.NewWorkspace(WorkspaceParams{LiveBalance: (*int64)(in.LiveBalance), TestBalance: (*int64)(in.TestBalance), Country: in.Country})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, ws, nil
}

// SetBalance sets a wallet of a workspace, in kobo.
func (s *Server) SetBalance(workspaceID string, mode Mode, kobo int64) error {
	m, ok := mode.storeMode()
	if !ok {
		return badRequest("mode", "mode must be live or test.")
	}
	return controlError(s.state.Load().store.SetBalance(workspaceID, m, kobo))
}

// Balance returns a wallet of a workspace, in kobo.
func (s *Server) Balance(workspaceID string, mode Mode) (int64, error) {
	m, _ := mode.storeMode() // anything but Test is the live wallet
	kobo, err := s.state.Load().store.WalletBalance(workspaceID, m)
	return kobo, controlError(err)
}

func ctlSetBalance(s *Server, rq *request) (int, any, error) {
	var in struct {
		Mode    Mode        `json:"mode"`
		Balance *wire.Naira `json:"balance"`
	}
	if e := wire.Decode(rq.body, &in); e != nil {
		return 0, nil, e
	}
	if in.Balance == nil {
		return 0, nil, badRequest("balance", "balance is required.")
	}
	if err := s.SetBalance(rq.param, in.Mode, int64(*in.Balance)); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, struct {
		WorkspaceID string     `json:"workspaceId"`
		Mode        Mode       `json:"mode"`
		Balance     wire.Naira `json:"balance"`
		Currency    string     `json:"currency"`
	}{rq.param, in.Mode, *in.Balance, "NGN"}, nil
}

// --- sender IDs ------------------------------------------------------------------------------

// ApproveSenderID makes a pending sender ID active.
func (s *Server) ApproveSenderID(id string) error {
	_, err := s.state.Load().store.MoveSenderID(id, store.SenderActive)
	return controlError(err)
}

// BlockSenderID makes a pending sender ID blocked.
func (s *Server) BlockSenderID(id string) error {
	_, err := s.state.Load().store.MoveSenderID(id, store.SenderBlocked)
	return controlError(err)
}

func ctlMoveSender(status store.SenderStatus) handlerFunc {
	return func(_ *Server, rq *request) (int, any, error) {
		sid, err := rq.st.store.MoveSenderID(rq.param, status)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, senderOut(&sid), nil
	}
}

// --- delivery --------------------------------------------------------------------------------

// DeliverCounts says how many of a campaign's sent recipients Deliver moves to each status.
type DeliverCounts struct {
	Delivered int `json:"delivered"`
	Failed    int `json:"failed"`
	DND       int `json:"dnd"`
}

// Deliver moves a campaign's sent recipients, in request order: the first c.Delivered to
// delivered, the next c.Failed to failed, the next c.DND to dnd. A nil c delivers them all.
func (s *Server) Deliver(campaignID string, c *DeliverCounts) error {
	_, err := s.state.Load().store.Deliver(campaignID, (*store.DeliverCounts)(c), s.clock.Now().UnixNano())
	return controlError(err)
}

func ctlDeliver(s *Server, rq *request) (int, any, error) {
	var in struct {
		Delivered *int `json:"delivered"`
		Failed    *int `json:"failed"`
		DND       *int `json:"dnd"`
	}
	if e := decodeOptional(rq.body, &in); e != nil {
		return 0, nil, e
	}
	var counts *store.DeliverCounts // none given: all delivered
	if in.Delivered != nil || in.Failed != nil || in.DND != nil {
		counts = &store.DeliverCounts{Delivered: deref(in.Delivered), Failed: deref(in.Failed), DND: deref(in.DND)}
	}
	c, err := rq.st.store.Deliver(rq.param, counts, s.clock.Now().UnixNano())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, struct {
		CampaignID string       `json:"campaignId"`
		Status     string       `json:"status"`
		Counts     store.Counts `json:"counts"`
	}{c.ID.String(), c.Rollup(), store.CountsOf(&c)}, nil
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// AddDND puts numbers on the Do-Not-Disturb register: sends to them on the generic channel
// get the recipient status dnd.
func (s *Server) AddDND(numbers ...string) error {
	_, err := s.state.Load().store.AddDND(numbers...)
	return controlError(err)
}

func ctlDND(_ *Server, rq *request) (int, any, error) {
	var in struct {
		Numbers []string `json:"numbers"`
	}
	if e := wire.Decode(rq.body, &in); e != nil {
		return 0, nil, e
	}
	n, err := rq.st.store.AddDND(in.Numbers...)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, struct {
		Count int `json:"count"`
	}{n}, nil
}

// --- OTP -------------------------------------------------------------------------------------

// LatestOTP returns the newest pin sent to a number, as the phone received it.
func (s *Server) LatestOTP(to string) (pinID, pin string, err error) {
	pinID, pin, err = s.state.Load().store.LatestPin(to)
	return pinID, pin, controlError(err)
}

func ctlLatestOTP(_ *Server, rq *request) (int, any, error) {
	to := rq.r.URL.Query().Get("to")
	if rest, ok := strings.CutPrefix(to, " "); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		to = "+" + rest // ?to=+234...: a query decodes an unencoded + as a space
	}
	pinID, pin, err := rq.st.store.LatestPin(to)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, struct {
		PinID string `json:"pinId"`
		Pin   string `json:"pin"`
	}{pinID, pin}, nil
}

// --- clock, faults, requests, reset ----------------------------------------------------------

// Advance moves the mock's clock forward by d: pins and keys expire, idempotency and
// rate-limit windows pass, processing campaigns are sent. A negative d, or one that would
// take the clock past 2200-01-01T00:00:00Z, is an error and the clock does not move.
func (s *Server) Advance(d time.Duration) error {
	if d < 0 {
		return badRequest("advance", "advance cannot be negative.")
	}
	if !s.clock.Advance(d) {
		return badRequest("advance", "advance would take the mock's clock past %s.", clock.Latest.Format(time.RFC3339))
	}
	if d > 0 {
		s.publish("clock.advanced", struct {
			Now time.Time `json:"now"`
		}{s.clock.Now()})
	}
	return nil
}

func ctlClock(s *Server, rq *request) (int, any, error) {
	var in struct {
		Advance string `json:"advance"`
	}
	if e := decodeOptional(rq.body, &in); e != nil {
		return 0, nil, e
	}
	if in.Advance != "" {
		d, err := time.ParseDuration(in.Advance)
		if err != nil || d < 0 {
			return 0, nil, badRequest("advance", "advance must be a non-negative Go duration such as 10m.")
		}
		if err := s.Advance(d); err != nil {
			return 0, nil, err
		}
	}
	return http.StatusOK, struct {
		Now time.Time `json:"now"`
	}{s.clock.Now()}, nil
}

// AddFaults appends fault rules (see FaultRule), all or none: a rule that is invalid (a Path
// that matches no /v1 route, a Status outside 400-599, a negative count) or more than
// MaxFaultRules active in all is an error, and nothing is added.
func (s *Server) AddFaults(rules ...FaultRule) error {
	for i, r := range rules {
		if err := s.checkFault(i, r); err != nil {
			return err
		}
	}
	list := make([]faults.Rule, len(rules))
	for i, r := range rules {
		list[i] = faults.Rule(r)
	}
	if err := s.state.Load().faults.Add(list...); err != nil {
		return controlError(err)
	}
	s.faultsChanged()
	return nil
}

// checkFault validates rule i of a list; its errors name the field as rules[i].member.
func (s *Server) checkFault(i int, r FaultRule) error {
	field := "rules[" + strconv.Itoa(i) + "]"
	switch {
	case r.Path != "" && !s.faultPathRoutes(r.Path):
		return badRequest(field+".path", "path %q matches no /v1 route (a trailing * matches by prefix).", r.Path)
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

// faultPathRoutes reports whether a fault rule's path can match a request to a /v1 route: as
// a path (with any non-empty {id}), or, ending in *, as a prefix of one.
func (s *Server) faultPathRoutes(path string) bool {
	prefix, isPrefix := strings.CutSuffix(path, "*")
	for _, pr := range s.routes {
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

// prefixOfPattern reports whether some path that pattern matches starts with prefix.
func prefixOfPattern(prefix, pattern string) bool {
	for prefix != "" {
		if pattern == "" || prefix[0] != '/' || pattern[0] != '/' {
			return false
		}
		var want, got string
		want, pattern = cut(pattern[1:])
		got, prefix = cut(prefix[1:])
		last := prefix == ""
		switch {
		case want == "{id}":
			// any non-empty segment; a partial last one is fine
		case last:
			if !strings.HasPrefix(want, got) {
				return false
			}
		case want != got:
			return false
		}
	}
	return true
}

// ClearFaults removes every fault rule.
func (s *Server) ClearFaults() {
	s.state.Load().faults.Clear()
	s.faultsChanged()
}

// Faults returns the active fault rules, with Times counting what is left.
func (s *Server) Faults() []FaultRule {
	rules := s.state.Load().faults.Rules()
	out := make([]FaultRule, len(rules))
	for i, r := range rules {
		out[i] = FaultRule(r)
	}
	return out
}

// faultJSON is a FaultRule on the wire, with latency as a Go duration string.
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

func ctlAddFaults(s *Server, rq *request) (int, any, error) {
	var in struct {
		Rules []faultJSON `json:"rules"`
	}
	if e := wire.Decode(rq.body, &in); e != nil {
		return 0, nil, e
	}
	if len(in.Rules) > MaxFaultRules {
		return 0, nil, badRequest("rules", "At most %d fault rules may be active.", MaxFaultRules)
	}
	rules := make([]FaultRule, len(in.Rules))
	for i, r := range in.Rules {
		rules[i] = r.FaultRule
		if r.Latency != "" {
			d, err := time.ParseDuration(r.Latency)
			if err != nil || d < 0 || d > time.Minute {
				return 0, nil, badRequest("rules["+strconv.Itoa(i)+"].latency", "latency must be a Go duration from 0 to 1m.")
			}
			rules[i].Latency = d
		}
	}
	if err := s.AddFaults(rules...); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, faultsOut(s.Faults()), nil
}

func ctlListFaults(s *Server, _ *request) (int, any, error) {
	return http.StatusOK, faultsOut(s.Faults()), nil
}

func ctlClearFaults(s *Server, _ *request) (int, any, error) {
	s.ClearFaults()
	return http.StatusOK, faultsOut(nil), nil
}

// requestsBody is the answer of GET /_mock/requests, written as a stream (see streamer).
type requestsBody []reqlog.Record

func (b requestsBody) stream(w http.ResponseWriter, status int, requestID string) {
	reqlog.WriteJSON(w, status, requestID, b)
}

func ctlRequests(s *Server, _ *request) (int, any, error) {
	return http.StatusOK, requestsBody(s.state.Load().log.Snapshot()), nil
}

func ctlReset(s *Server, _ *request) (int, any, error) {
	s.Reset()
	return http.StatusOK, struct {
		Reset bool `json:"reset"`
	}{true}, nil
}
