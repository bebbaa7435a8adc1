package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// The mock has no credentials on /_mock/ and usually runs on a developer's machine, where any
// web page the developer opens can send it requests. Four checks keep such pages out:
//
//   - Host: a request that arrived over a connection must name a loopback host (localhost,
//     127.0.0.0/8, ::1) or one given with WithAllowedHosts, so that a page cannot reach the
//     mock through a domain it rebinds to 127.0.0.1 (DNS rebinding). Requests served
//     in-process (Transport, or Handler called directly) never came from a browser and skip it.
//   - Controls and the page (/_mock/..., /): every request a browser marks as sent by a page
//     of another origin is refused, reads included: a page cannot read responses across
//     origins, but it can time them (a no-cors fetch of GET /_mock/messages?wait= answers when
//     a message arrives, and its filters would leak message text and OTP pins one guess at a
//     time). Sec-Fetch-Site decides when it is there: same-origin (the inbox page's fetches
//     and event stream) and none (the address bar, a bookmark) pass; cross-site and same-site
//     do not, since a same-site page (an app on localhost:3000) is another origin, but for a
//     top-level navigation to the page itself (a link clicked on another site: see
//     pageNavigation). Without it
//     (older browsers), an Origin other than the request's own host is refused, "null"
//     included. Clients that are not browsers send neither header and pass.
//   - The /v1 API: a state-changing request (POST, PUT, PATCH, DELETE) that a browser marks as
//     cross-site (Sec-Fetch-Site, or an Origin naming another host) is refused (net/http's
//     CrossOriginProtection). Its reads need X-API-Key and X-API-Secret (or a dashboard JWT),
//     headers a page cannot send to another origin without a CORS preflight, which the mock
//     never grants.
//   - Content-Type: a control POST with a body must be application/json, which a page cannot
//     send cross-site without a CORS preflight the mock never grants (see admit).

// errForbidden is the 403 of a request refused for where it came from; its code is forbidden,
// not insufficient_scope: no key is involved.
func errForbidden(message string) *apiError {
	return &apiError{status: http.StatusForbidden, code: codeForbidden, message: message}
}

var crossOrigin = http.NewCrossOriginProtection()

// guard returns the 403 for a request the checks above refuse, or nil. control is true for
// the controls and the page.
func (a *API) guard(r *http.Request, control bool) *apiError {
	// Set by net/http for every request read from a connection; absent in-process.
	if r.Context().Value(http.LocalAddrContextKey) != nil && !a.hostAllowed(r.Host) {
		return errForbidden("Host " + quoteHost(r.Host) + " is not allowed; the mock answers loopback names and hosts given with -allow-host.")
	}
	if control {
		if fromAnotherOrigin(r) && !pageNavigation(r) {
			return errForbidden("Requests from a page of another origin are refused on the mock's controls and page, reads included; open the inbox page from the mock itself.")
		}
		return nil
	}
	if crossOrigin.Check(r) != nil {
		return errForbidden("Cross-site requests that change state are refused.")
	}
	return nil
}

// pageNavigation reports whether r is a browser's top-level navigation to the inbox page, as
// when a link to a conversation is clicked in a chat or a ticket of another site: the page is
// the same whoever opens it (it reads no message to render), it cannot be framed
// (frame-ancestors 'none'), and what it reads it reads with fetches of its own origin, which
// the guard lets through as any. Anything else of another origin on the page is refused.
func pageNavigation(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Path == "/" &&
		r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document"
}

// fromAnotherOrigin reports whether a browser marks r as sent by a page of another origin
// than the mock's, whatever its method.
func fromAnotherOrigin(r *http.Request) bool {
	if site, ok := r.Header["Sec-Fetch-Site"]; ok {
		return len(site) != 1 || site[0] != "same-origin" && site[0] != "none"
	}
	origin, ok := r.Header["Origin"]
	if !ok {
		return false
	}
	if len(origin) != 1 {
		return true
	}
	u, err := url.Parse(origin[0])
	return err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host)
}

// hostAllowed reports whether a Host header (with or without a port) names a loopback host
// or an allowed one.
// The last Host allowed is remembered: a client sends the same one on every request, and the
// answer depends on nothing else.
func (a *API) hostAllowed(hostport string) bool {
	if last := a.lastHost.Load(); last != nil && *last == hostport {
		return true
	}
	if !a.checkHost(hostport) {
		return false
	}
	allowed := hostport // a copy, so that hostport itself does not escape on the fast path
	a.lastHost.Store(&allowed)
	return true
}

// checkHost is hostAllowed without the memory.
func (a *API) checkHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true // RFC 6761: always loopback
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap().IsLoopback() || a.allowedHost(host)
	}
	return a.allowedHost(host)
}

func (a *API) allowedHost(host string) bool {
	for _, h := range a.cfg.AllowedHosts {
		if strings.EqualFold(strings.Trim(h, "[]"), host) {
			return true
		}
	}
	return false
}

// quoteHost writes a Host header for an error message: quoted, and cut to a sane length.
func quoteHost(h string) string {
	if len(h) > 100 {
		h = h[:100] + "..."
	}
	return "\"" + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' {
			return '?'
		}
		return r
	}, h) + "\""
}
