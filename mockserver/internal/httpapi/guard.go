package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// The mock has no credentials on /_mock/ and usually runs on a developer's machine, where any
// web page the developer opens can send it requests. Three checks keep such pages out:
//
//   - Host: a request that arrived over a connection must name a loopback host (localhost,
//     127.0.0.0/8, ::1) or one given with WithAllowedHosts, so that a page cannot reach the
//     mock through a domain it rebinds to 127.0.0.1 (DNS rebinding). Requests served
//     in-process (Transport, or Handler called directly) never came from a browser and skip it.
//   - Origin: a state-changing request (POST, PUT, PATCH, DELETE) that a browser marks as
//     cross-site (Sec-Fetch-Site, or an Origin naming another host) is refused; the inbox page
//     the mock serves itself is same-origin and passes (net/http's CrossOriginProtection).
//   - Content-Type: a control POST with a body must be application/json, which a page cannot
//     send cross-site without a CORS preflight the mock never grants (see admit).

// errForbidden is the 403 of a request refused for where it came from; its code is forbidden,
// not insufficient_scope: no key is involved.
func errForbidden(message string) *apiError {
	return &apiError{status: http.StatusForbidden, code: codeForbidden, message: message}
}

var crossOrigin = http.NewCrossOriginProtection()

// guard returns the 403 for a request the checks above refuse, or nil.
func (a *API) guard(r *http.Request) *apiError {
	// Set by net/http for every request read from a connection; absent in-process.
	if r.Context().Value(http.LocalAddrContextKey) != nil && !a.hostAllowed(r.Host) {
		return errForbidden("Host " + quoteHost(r.Host) + " is not allowed; the mock answers loopback names and hosts given with -allow-host.")
	}
	if crossOrigin.Check(r) != nil {
		return errForbidden("Cross-site requests that change state are refused.")
	}
	return nil
}

// hostAllowed reports whether a Host header (with or without a port) names a loopback host
// or an allowed one.
func (a *API) hostAllowed(hostport string) bool {
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
