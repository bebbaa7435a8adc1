package mockserver

import (
	"net/http"
	"slices"

	"github.com/seedsms/sms-go/mockserver/internal/inbox"
)

// The inbox: the messages, the event stream, the read-only listings the page needs, and the
// page itself (package internal/inbox), all reading the store through the routes below.

func inboxRoutes() []struct {
	pattern string
	route
} {
	const get, del = http.MethodGet, http.MethodDelete
	c := func(method string, h handlerFunc) route { return route{method: method, auth: authNone, handle: h} }
	stream := func(h streamFunc) route { return route{method: get, auth: authNone, stream: h} }
	return []struct {
		pattern string
		route
	}{
		{"/_mock/messages", stream(ctlMessages)},
		{"/_mock/messages", c(del, ctlClearMessages)},
		{"/_mock/conversations", c(get, ctlConversations)},
		{"/_mock/events", stream(ctlEvents)},
		{"/_mock/workspaces", c(get, ctlListWorkspaces)},
		{"/_mock/workspaces/{id}/campaigns", c(get, ctlWorkspaceCampaigns)},
		{"/_mock/workspaces/{id}/sender-ids", c(get, ctlWorkspaceSenderIDs)},
		{"/", stream(servePage)},
		{"/_mock/inbox/{id}", stream(serveAsset)},
	}
}

// workspaceJSON is a workspace as GET /_mock/workspaces lists it: no credentials.
type workspaceJSON struct {
	WorkspaceID string `json:"workspaceId"`
	Country     string `json:"country"`
	Default     bool   `json:"default"`
	LiveBalance naira  `json:"liveBalance"`
	TestBalance naira  `json:"testBalance"`
	Currency    string `json:"currency"`
}

func (s *Server) listWorkspaces() []workspaceJSON {
	all := s.state.Load().store.allWorkspaces()
	slices.SortFunc(all, func(a, b *workspace) int {
		if a.id.Less(b.id) {
			return -1
		}
		return 1
	})
	def := s.Default().WorkspaceID
	out := make([]workspaceJSON, len(all))
	for i, w := range all {
		id := w.id.String()
		out[i] = workspaceJSON{WorkspaceID: id, Country: w.country, Default: id == def,
			LiveBalance: naira(w.balance(Live)), TestBalance: naira(w.balance(Test)), Currency: "NGN"}
	}
	return out
}

func ctlListWorkspaces(s *Server, _ *request) (int, any, *apiError) {
	list := s.listWorkspaces()
	return http.StatusOK, listBody{list, len(list)}, nil
}

// modeParam reads mode (live, the default, or test).
func modeParam(rq *request) (Mode, *apiError) {
	switch m := Mode(rq.r.URL.Query().Get("mode")); m {
	case "", Live:
		return Live, nil
	case Test:
		return Test, nil
	}
	return "", badRequest("mode", "mode must be live or test.")
}

// ctlWorkspaceCampaigns is GET /_mock/workspaces/{id}/campaigns?mode=: the campaign list of
// /v1/sms/campaigns with each campaign's delivery counts, for the page.
func ctlWorkspaceCampaigns(s *Server, rq *request) (int, any, *apiError) {
	w, e := s.workspaceByID(rq.param)
	if e != nil {
		return 0, nil, e
	}
	mode, e := modeParam(rq)
	if e != nil {
		return 0, nil, e
	}
	page, limit, e := pageParams(rq.r.URL.Query())
	if e != nil {
		return 0, nil, e
	}
	type item struct {
		campaignJSON
		Mode     Mode       `json:"mode"`
		Delivery string     `json:"delivery"`
		Counts   countsJSON `json:"counts"`
	}
	cs, total := w.listCampaigns(mode, page, limit, s.clock.Now().UnixNano())
	out := make([]item, len(cs))
	for i := range cs {
		out[i] = item{campaignOut(&cs[i]), mode, cs[i].rollup(), countsOut(&cs[i])}
	}
	return http.StatusOK, pageBody{out, pagination{page, limit, total}}, nil
}

// ctlWorkspaceSenderIDs is GET /_mock/workspaces/{id}/sender-ids: every sender ID of the
// workspace, newest first.
func ctlWorkspaceSenderIDs(s *Server, rq *request) (int, any, *apiError) {
	w, e := s.workspaceByID(rq.param)
	if e != nil {
		return 0, nil, e
	}
	list := w.listSenderIDs(-1)
	out := make([]senderJSON, len(list))
	for i := range list {
		out[i] = senderOut(&list[i])
	}
	return http.StatusOK, listBody{out, len(out)}, nil
}

// inboxSource is the page's view of the server.
type inboxSource struct{ s *Server }

func (src inboxSource) Workspaces() []inbox.Workspace {
	list := src.s.listWorkspaces()
	out := make([]inbox.Workspace, len(list))
	for i, w := range list {
		out[i] = inbox.Workspace{ID: w.WorkspaceID, Default: w.Default}
	}
	return out
}

func servePage(s *Server, w http.ResponseWriter, rq *request) {
	inbox.ServePage(w, rq.r, inboxSource{s})
}

func serveAsset(_ *Server, w http.ResponseWriter, rq *request) {
	if !inbox.ServeAsset(w, rq.r, rq.param) {
		writeError(w, rq.id, notFound("Asset"))
	}
}
