package mockserver

import (
	"net/http"

	"github.com/seedsms/sms-go/mockserver/internal/inbox"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
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
	WorkspaceID string     `json:"workspaceId"`
	Country     string     `json:"country"`
	Default     bool       `json:"default"`
	LiveBalance wire.Naira `json:"liveBalance"`
	TestBalance wire.Naira `json:"testBalance"`
	Currency    string     `json:"currency"`
}

func (s *Server) listWorkspaces() []workspaceJSON {
	all := s.state.Load().store.Workspaces()
	def := s.Default().WorkspaceID
	out := make([]workspaceJSON, len(all))
	for i, w := range all {
		id := w.ID.String()
		out[i] = workspaceJSON{WorkspaceID: id, Country: w.Country, Default: id == def,
			LiveBalance: wire.Naira(w.LiveBalance), TestBalance: wire.Naira(w.TestBalance), Currency: "NGN"}
	}
	return out
}

func ctlListWorkspaces(s *Server, _ *request) (int, any, error) {
	list := s.listWorkspaces()
	return http.StatusOK, wire.List{Data: list, Count: len(list)}, nil
}

// modeParam reads mode (live, the default, or test).
func modeParam(rq *request) (store.Mode, error) {
	switch m := rq.r.URL.Query().Get("mode"); m {
	case "", "live":
		return store.Live, nil
	case "test":
		return store.Test, nil
	}
	return 0, badRequest("mode", "mode must be live or test.")
}

// ctlWorkspaceCampaigns is GET /_mock/workspaces/{id}/campaigns?mode=: the campaign list of
// /v1/sms/campaigns with each campaign's delivery counts, for the page.
func ctlWorkspaceCampaigns(s *Server, rq *request) (int, any, error) {
	c, err := rq.st.store.Workspace(rq.param)
	if err != nil {
		return 0, nil, err
	}
	if c.Mode, err = modeParam(rq); err != nil {
		return 0, nil, err
	}
	page, limit, err := pageParams(rq.r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	type item struct {
		wire.CampaignJSON
		Mode     Mode         `json:"mode"`
		Delivery string       `json:"delivery"`
		Counts   store.Counts `json:"counts"`
	}
	cs, total := rq.st.store.Campaigns(c, page, limit, s.clock.Now().UnixNano())
	out := make([]item, len(cs))
	for i := range cs {
		out[i] = item{wire.CampaignOut(&cs[i]), modeOf(c.Mode), cs[i].Rollup(), store.CountsOf(&cs[i])}
	}
	return http.StatusOK, wire.NewPage(out, page, limit, total), nil
}

// ctlWorkspaceSenderIDs is GET /_mock/workspaces/{id}/sender-ids: every sender ID of the
// workspace, newest first.
func ctlWorkspaceSenderIDs(_ *Server, rq *request) (int, any, error) {
	c, err := rq.st.store.Workspace(rq.param)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, sendersOut(rq.st.store.SenderIDs(c, 0, true)), nil
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
