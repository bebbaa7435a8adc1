package httpapi

import (
	"net/http"

	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// workspaceJSON is a workspace as GET /_mock/workspaces lists it: no credentials.
type workspaceJSON struct {
	WorkspaceID string     `json:"workspaceId"`
	Country     string     `json:"country"`
	Default     bool       `json:"default"`
	LiveBalance wire.Naira `json:"liveBalance"`
	TestBalance wire.Naira `json:"testBalance"`
	Currency    string     `json:"currency"`
}

// NewWorkspace creates a workspace like the default one (see store.NewWorkspace) and returns
// its credentials with a dashboard token and the URL.
func (a *API) NewWorkspace(p store.WorkspaceParams) (Workspace, error) {
	creds, err := a.Store().NewWorkspace(p, a.clock.Now().UnixNano())
	if err != nil {
		return Workspace{}, Err(err)
	}
	return a.workspaceOf(creds, ""), nil
}

// ctlNewWorkspace is POST /_mock/workspaces.
func ctlNewWorkspace(a *API, rq *request) (int, any, error) {
	var in struct {
		LiveBalance *wire.Naira `json:"liveBalance"`
		TestBalance *wire.Naira `json:"testBalance"`
		Country     *string     `json:"country"`
	}
	if e := decodeOptional(rq.body, &in); e != nil {
		return 0, nil, e
	}
	p := store.WorkspaceParams{LiveBalance: (*int64)(in.LiveBalance), TestBalance: (*int64)(in.TestBalance)}
	if in.Country != nil {
		if !store.ValidCountry(*in.Country) { // "" too: the member is there, so it must say something
			return 0, nil, badRequest("country", "country must be 1 to %d characters.", store.MaxCountryLen)
		}
		p.Country = *in.Country
	}
	ws, err := a.NewWorkspace(p)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, ws.Credentials(), nil
}

func (a *API) listWorkspaces() []workspaceJSON {
	all := a.state.Load().store.Workspaces()
	def := a.Default().WorkspaceID
	out := make([]workspaceJSON, len(all))
	for i, w := range all {
		id := w.ID.String()
		out[i] = workspaceJSON{WorkspaceID: id, Country: w.Country, Default: id == def,
			LiveBalance: wire.Naira(w.LiveBalance), TestBalance: wire.Naira(w.TestBalance), Currency: "NGN"}
	}
	return out
}

// ctlListWorkspaces is GET /_mock/workspaces.
func ctlListWorkspaces(a *API, _ *request) (int, any, error) {
	list := a.listWorkspaces()
	return http.StatusOK, wire.List{Data: list, Count: len(list)}, nil
}

// DeleteWorkspace forgets a workspace and everything of it (see store.DeleteWorkspace) and
// its fault rules. The default workspace cannot be deleted: Reset starts it anew.
func (a *API) DeleteWorkspace(id string) (store.WorkspaceDeleted, error) {
	if id == a.Default().WorkspaceID {
		return store.WorkspaceDeleted{}, conflict("The default workspace cannot be deleted; POST /_mock/reset starts the whole mock anew.")
	}
	st := a.state.Load()
	d, err := st.store.DeleteWorkspace(id)
	if err != nil {
		return store.WorkspaceDeleted{}, Err(err)
	}
	if st.faults.Forget(d.WorkspaceID) > 0 {
		a.faultsChanged()
	}
	return d, nil
}

// ctlDeleteWorkspace is DELETE /_mock/workspaces/{id}.
func ctlDeleteWorkspace(a *API, rq *request) (int, any, error) {
	d, err := a.DeleteWorkspace(rq.param)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, struct {
		WorkspaceID string `json:"workspaceId"`
		Campaigns   int    `json:"campaigns"`
		Messages    int    `json:"messages"`
	}{d.WorkspaceID, d.Campaigns, d.Messages}, nil
}

// SetBalance sets a wallet ("live" or "test") of a workspace, in kobo.
func (a *API) SetBalance(workspaceID, mode string, kobo int64) error {
	m, ok := store.ParseMode(mode)
	if !ok {
		return badRequest("mode", "mode must be live or test.")
	}
	return Err(a.Store().SetBalance(workspaceID, m, kobo))
}

// ctlSetBalance is POST /_mock/workspaces/{id}/balance.
func ctlSetBalance(a *API, rq *request) (int, any, error) {
	var in struct {
		Mode    string      `json:"mode"`
		Balance *wire.Naira `json:"balance"`
	}
	if e := wire.Decode(rq.body, &in); e != nil {
		return 0, nil, e
	}
	if in.Balance == nil {
		return 0, nil, badRequest("balance", "balance is required.")
	}
	if err := a.SetBalance(rq.param, in.Mode, int64(*in.Balance)); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, struct {
		WorkspaceID string     `json:"workspaceId"`
		Mode        string     `json:"mode"`
		Balance     wire.Naira `json:"balance"`
		Currency    string     `json:"currency"`
	}{rq.param, in.Mode, *in.Balance, "NGN"}, nil
}

// ctlWorkspaceCampaigns is GET /_mock/workspaces/{id}/campaigns?mode=: the campaign list of
// /v1/sms/campaigns with each campaign's delivery counts, for the page.
func ctlWorkspaceCampaigns(a *API, rq *request) (int, any, error) {
	c, err := rq.st.store.Workspace(rq.param)
	if err != nil {
		return 0, nil, err
	}
	if c.Mode, err = modeParam(rq); err != nil {
		return 0, nil, err
	}
	page, limit, err := urlPageParams(rq.r.URL)
	if err != nil {
		return 0, nil, err
	}
	cs, total := rq.st.store.Campaigns(c, page, limit, a.clock.Now().UnixNano())
	out := make([]campaignItem, len(cs))
	for i := range cs {
		out[i] = campaignItemOf(&cs[i], c.Mode)
	}
	return http.StatusOK, wire.NewPage(out, page, limit, total), nil
}

// ctlWorkspaceSenderIDs is GET /_mock/workspaces/{id}/sender-ids: every sender ID of the
// workspace, newest first.
func ctlWorkspaceSenderIDs(_ *API, rq *request) (int, any, error) {
	c, err := rq.st.store.Workspace(rq.param)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, sendersOut(rq.st.store.SenderIDs(c, 0, true)), nil
}
