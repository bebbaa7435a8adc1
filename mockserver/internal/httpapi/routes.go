package httpapi

import (
	"net/http"
	"strings"

	"github.com/seedsms/sms-go/mockserver/internal/store"
)

type authKind uint8

const (
	authNone authKind = iota // /_mock/ controls
	authKey                  // X-API-Key and X-API-Secret
	authJWT                  // Authorization: Bearer <dashboard JWT>
)

// handlerFunc does one route's work: it validates the decoded request, calls the store and
// returns the status and the JSON object to answer with, or an error.
type handlerFunc func(a *API, rq *request) (int, any, error)

type route struct {
	method     string
	auth       authKind
	scope      store.Scopes // required scope; 0 = none
	body       bool         // takes a JSON body
	idempotent bool         // deduplicated by the body's reference
	// unsettled: its answer shows nothing automatic delivery changes (a send: a new campaign
	// and the wallet), so its way in leaves what is due to the delivery timer.
	unsettled bool
	handle    handlerFunc
	stream    streamFunc // instead of handle: writes its own answer (long polls, events, the page)
}

// streamFunc serves a route that writes its own answer, such as a long poll or an event stream.
type streamFunc func(a *API, w http.ResponseWriter, rq *request)

// pathRoute is one path pattern and the routes of its methods. A segment "{id}" matches any
// non-empty segment.
type pathRoute struct {
	pattern string
	routes  []*route
	allow   string
}

// buildRoutes is every route of the mock: the /v1 API, the /_mock/ controls and the page.
func buildRoutes() []*pathRoute {
	const post, get, del = http.MethodPost, http.MethodGet, http.MethodDelete
	key := func(method string, scope store.Scopes, h handlerFunc) route {
		return route{method: method, auth: authKey, scope: scope, body: method == post, handle: h}
	}
	dashboard := func(method string, h handlerFunc) route {
		return route{method: method, auth: authJWT, body: method == post, handle: h}
	}
	control := func(method string, h handlerFunc) route {
		return route{method: method, auth: authNone, body: method == post, handle: h}
	}
	stream := func(h streamFunc) route { return route{method: get, auth: authNone, stream: h} }
	idempotent := func(r route) route { r.idempotent = true; return r }
	unsettled := func(r route) route { r.unsettled = true; return r }
	table := []struct {
		pattern string
		route
	}{
		{"/v1/keys", dashboard(post, createKey)},
		{"/v1/keys", dashboard(get, listKeys)},
		{"/v1/keys/{id}", dashboard(del, revokeKey)},
		{"/v1/sms/send", unsettled(idempotent(key(post, store.ScopeSMS, sendSMS)))},
		{"/v1/sms/campaigns", unsettled(idempotent(key(post, store.ScopeCampaigns, createCampaign)))},
		{"/v1/sms/campaigns", key(get, store.ScopeCampaigns, listCampaigns)},
		{"/v1/sms/campaigns/{id}/status", key(get, store.ScopeCampaigns, campaignStatus)},
		{"/v1/otp/send", unsettled(key(post, store.ScopeOTP, sendOTP))},
		{"/v1/otp/verify", key(post, store.ScopeOTP, verifyOTP)},
		{"/v1/balance", key(get, store.ScopeBalance, getBalance)},
		{"/v1/sender-ids", key(post, store.ScopeSenderIDs, requestSenderID)},
		{"/v1/sender-ids", key(get, store.ScopeSenderIDs, listSenderIDs)},

		{"/_mock/workspaces", control(post, ctlNewWorkspace)},
		{"/_mock/workspaces", control(get, ctlListWorkspaces)},
		{"/_mock/workspaces/{id}", control(del, ctlDeleteWorkspace)},
		{"/_mock/workspaces/{id}/balance", control(post, ctlSetBalance)},
		{"/_mock/workspaces/{id}/campaigns", control(get, ctlWorkspaceCampaigns)},
		{"/_mock/workspaces/{id}/sender-ids", control(get, ctlWorkspaceSenderIDs)},
		{"/_mock/sender-ids/{id}/approve", control(post, ctlMoveSender(store.SenderActive))},
		{"/_mock/sender-ids/{id}/block", control(post, ctlMoveSender(store.SenderBlocked))},
		{"/_mock/campaigns/{id}/deliver", control(post, ctlDeliver)},
		{"/_mock/deliver", control(post, ctlDeliverAll)},
		{"/_mock/dnd", control(post, ctlDND)},
		{"/_mock/otps/latest", control(get, ctlLatestOTP)},
		{"/_mock/clock", control(post, ctlClock)},
		{"/_mock/faults", control(post, ctlAddFaults)},
		{"/_mock/faults", control(get, ctlListFaults)},
		{"/_mock/faults", control(del, ctlClearFaults)},
		{"/_mock/requests", control(get, ctlRequests)},
		{"/_mock/reset", control(post, ctlReset)},
		{"/_mock/messages", stream(ctlMessages)},
		{"/_mock/messages", control(del, ctlClearMessages)},
		{"/_mock/messages/{id}", control(get, ctlMessage)},
		{"/_mock/conversations", control(get, ctlConversations)},
		{"/_mock/events", stream(ctlEvents)},
		{"/", stream(servePage)},
		{"/_mock/inbox/{id}", stream(serveAsset)},
	}
	var out []*pathRoute
	byPattern := map[string]*pathRoute{}
	for _, t := range table {
		pr := byPattern[t.pattern]
		if pr == nil {
			pr = &pathRoute{pattern: t.pattern}
			byPattern[t.pattern] = pr
			out = append(out, pr)
		}
		rt := t.route
		pr.routes = append(pr.routes, &rt)
		if pr.allow != "" {
			pr.allow += ", "
		}
		pr.allow += rt.method
	}
	return out
}

// match finds the path pattern of path and the value of its {id} segment.
func (a *API) match(path string) (*pathRoute, string) {
	for _, pr := range a.routes {
		if param, ok := matchPattern(pr.pattern, path); ok {
			return pr, param
		}
	}
	return nil, ""
}

func matchPattern(pattern, path string) (string, bool) {
	param := ""
	for pattern != "" || path != "" {
		if pattern == "" || path == "" || pattern[0] != '/' || path[0] != '/' {
			return "", false
		}
		var want, got string
		want, pattern = cut(pattern[1:])
		got, path = cut(path[1:])
		switch {
		case want == "{id}":
			if got == "" {
				return "", false
			}
			param = got
		case want != got:
			return "", false
		}
	}
	return param, true
}

func cut(s string) (seg, rest string) {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
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
