package httpapi

import (
	"net/http"
	"strconv"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/inbox"
)

// pageSource is what the page reads from the API when it is served.
type pageSource struct{ a *API }

// Workspaces lists the workspaces for the page's selector, oldest first.
func (src pageSource) Workspaces() []inbox.Workspace {
	list := src.a.listWorkspaces()
	out := make([]inbox.Workspace, len(list))
	for i, w := range list {
		out[i] = inbox.Workspace{ID: w.WorkspaceID, Default: w.Default, Label: workspaceLabel(i, w)}
	}
	return out
}

// workspaceLabel is how the page names the i-th oldest workspace: "#2 · Ghana · <id>", the
// default one marked; the page's script (workspaceLabel) writes the same.
func workspaceLabel(i int, w workspaceJSON) string {
	label := "#" + strconv.Itoa(i+1) + " · " + w.Country + " · " + w.WorkspaceID
	if w.Default {
		label += " (default)"
	}
	return label
}

// Phone normalizes a number for the page's links, as a send reads it.
func (pageSource) Phone(number string) (string, bool) {
	n, err := rules.NormalizePhone(number)
	return n, err == nil
}

// servePage is GET /: the inbox page.
func servePage(a *API, w http.ResponseWriter, rq *request) {
	inbox.ServePage(w, rq.r, pageSource{a})
}

// serveAsset is GET /_mock/inbox/{name}: the page's script, style sheet and icon.
func serveAsset(_ *API, w http.ResponseWriter, rq *request) {
	if !inbox.ServeAsset(w, rq.r, rq.param) {
		writeError(w, rq.id, notFound("Asset"))
	}
}
