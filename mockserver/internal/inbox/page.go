// Package inbox is the mock server's web page: the messages each phone number received,
// updated live from the event stream, and the mock's test controls. The page is an
// html/template and a small hand-written script and style sheet, embedded in the binary: it
// needs no build step and no network beyond the mock itself. Everything it shows and does goes
// through the mock's /_mock/ routes, with JSON.
package inbox

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"path"
)

// Workspace is one workspace the page offers in its selector.
type Workspace struct {
	ID      string
	Default bool   // the server's default workspace, selected first
	Label   string // what the selector shows; the script names workspaces the same way
}

// Source is what the page reads from the mock when it is served.
type Source interface {
	// Workspaces lists the workspaces, oldest first.
	Workspaces() []Workspace
	// Phone normalizes a number in any form the API accepts, or reports false.
	Phone(number string) (string, bool)
}

// Link is what the page's address asks it to open: /?to=NUMBER (with &workspace=ID) opens a
// number's conversation, /?message=ID one message. To is normalized (any form the API accepts
// may be given); ToInvalid keeps a number that is none, for the page to say so.
type Link struct {
	To, ToInvalid, Message, Workspace string
}

// linkOf reads the page's address.
func linkOf(r *http.Request, src Source) Link {
	q := r.URL.Query()
	l := Link{Message: q.Get("message"), Workspace: q.Get("workspace")}
	if to := q.Get("to"); to != "" {
		if n, ok := src.Phone(to); ok {
			l.To = n
		} else {
			l.ToInvalid = to
		}
	}
	return l
}

//go:embed static
var static embed.FS

var page = template.Must(template.ParseFS(static, "static/index.html"))

// contentTypes of the assets.
var contentTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".svg": "image/svg+xml",
}

// securityHeaders keep the page to its own origin: no inline script, no framing.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
}

// ServePage writes the page, opened where its address asks (see Link).
func ServePage(w http.ResponseWriter, r *http.Request, src Source) {
	var buf bytes.Buffer
	data := struct {
		Workspaces []Workspace
		Link       Link
	}{src.Workspaces(), linkOf(r, src)}
	if err := page.Execute(&buf, data); err != nil {
		http.Error(w, "the inbox page could not be rendered", http.StatusInternalServerError)
		return
	}
	securityHeaders(w.Header())
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// ServeAsset writes the embedded asset name (app.js, app.css, icon.svg), or reports false when
// there is none.
func ServeAsset(w http.ResponseWriter, _ *http.Request, name string) bool {
	ct, ok := contentTypes[path.Ext(name)]
	if !ok || path.Base(name) != name {
		return false
	}
	b, err := static.ReadFile("static/" + name)
	if err != nil {
		return false
	}
	securityHeaders(w.Header())
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(b)
	return true
}
