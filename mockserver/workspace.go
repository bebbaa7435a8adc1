package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"crypto/sha256"
	"time"
)

// allScopes is every scope bit.
const allScopes = scopeSMS | scopeOTP | scopeCampaigns | scopeSenderIDs | scopeBalance

// dashboardTokenTTL is how long the dashboard token of a new workspace lasts.
const dashboardTokenTTL = 365 * 24 * time.Hour

// newKey makes a key of the given prefix ("pk_live" or "pk_test"); public and secret are made
// when empty. Only the secret's hash is kept.
func (s *Server) newKey(name, prefix string, scopes uint8, createdAt, expiresAt int64, public, secret string) (*apiKey, string) {
	if public == "" {
		public = prefix + "_" + ids.Random62(24)
		secret = "sk_" + prefix[len("pk_"):] + "_" + ids.Random62(40)
	}
	k := &apiKey{
		id: s.ids.Next(), name: name, prefix: prefix, public: public,
		secretHash: sha256.Sum256([]byte(secret)), scopes: scopes,
		createdAt: createdAt, expiresAt: expiresAt,
	}
	return k, secret
}

// createWorkspace adds a workspace with a live and a test key of every scope and the active
// sender ID MOCKSMS. When seed holds credentials, the workspace reuses its id, keys and token.
// It fails when the store holds its limit of workspaces.
func (s *Server) createWorkspace(st *state, country string, live, test int64, seed *Workspace) (Workspace, *apiError) {
	var ws Workspace
	if seed != nil && seed.WorkspaceID != "" {
		ws = *seed
	}
	id, ok := ids.Parse(ws.WorkspaceID)
	if !ok {
		id = s.ids.Next()
		ws.WorkspaceID = id.String()
	}
	w := st.store.addWorkspace(id, country, live, test)
	if w == nil {
		return Workspace{}, errWorkspaceLimit(st.store.maxWorkspaces)
	}
	now := s.clock.Now().UnixNano()
	lk, ls := s.newKey("Default live key", "pk_live", allScopes, now, 0, ws.LiveKey, ws.LiveSecret)
	tk, ts := s.newKey("Default test key", "pk_test", allScopes, now, 0, ws.TestKey, ws.TestSecret)
	st.store.addKey(w, lk)
	st.store.addKey(w, tk)
	ws.LiveKey, ws.LiveSecret, ws.TestKey, ws.TestSecret = lk.public, ls, tk.public, ts
	_, _ = w.requestSenderID(&senderID{
		id: s.ids.Next(), title: DefaultSenderID, status: senderActive,
		usecase: "Mock server default sender ID", company: "Mock", createdAt: now,
	})
	ws.SenderID = DefaultSenderID
	if ws.DashboardToken == "" {
		ws.DashboardToken = s.DashboardToken(ws.WorkspaceID, dashboardTokenTTL)
	}
	ws.URL = s.URL()
	return ws, nil
}
