package mockserver_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// withHost sends the request with this Host header.
func withHost(host string) reqOpt { return func(r *http.Request) { r.Host = host } }

func TestBrowserAttacksOnControls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithAllowedHosts("mock.test"))
	u, err := url.Parse(e.srv.URL())
	require.NoError(t, err)
	port := u.Port()

	t.Run("Host must be loopback or allowed", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			host string
			want int
		}{
			{"127.0.0.1:" + port, http.StatusOK},
			{"localhost:" + port, http.StatusOK},
			{"LOCALHOST.", http.StatusOK},
			{"127.9.8.7", http.StatusOK},
			{"[::1]:" + port, http.StatusOK},
			{"mock.test:" + port, http.StatusOK},
			{"attacker.example:" + port, http.StatusForbidden}, // DNS rebinding
			{"attacker.example", http.StatusForbidden},
			{"10.0.0.1:" + port, http.StatusForbidden},
			{"localhost.attacker.example", http.StatusForbidden},
		}
		for _, tt := range tests {
			for _, path := range []string{"/_mock/faults", "/v1/balance"} {
				r := e.do(http.MethodGet, path, nil, withHost(tt.host))
				assert.Equal(t, tt.want, r.Status, "%s %s: %s", tt.host, path, r.Raw)
				if tt.want == http.StatusForbidden {
					assert.Equal(t, "forbidden", r.str("error.code"))
				}
			}
		}
	})

	t.Run("cross-site state changes are refused", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		before := e.state()
		tests := []struct {
			name, method, path string
			body               any
			header, value      string
			want               int
		}{
			{"reset from another site", http.MethodPost, "/_mock/reset", nil, "Origin", "http://attacker.example", http.StatusForbidden},
			{"reset, Sec-Fetch-Site", http.MethodPost, "/_mock/reset", nil, "Sec-Fetch-Site", "cross-site", http.StatusForbidden},
			{"reset from a null origin", http.MethodPost, "/_mock/reset", nil, "Origin", "null", http.StatusForbidden},
			{"balance from another port", http.MethodPost, "/_mock/workspaces/" + e.ws.WorkspaceID + "/balance",
				M{"mode": "live", "balance": 1}, "Origin", "http://127.0.0.1:1", http.StatusForbidden},
			{"faults cleared from another site", http.MethodDelete, "/_mock/faults", nil, "Origin", "https://attacker.example", http.StatusForbidden},
			{"send from another site", http.MethodPost, "/v1/sms/send", sms(num(1)), "Origin", "http://attacker.example", http.StatusForbidden},
			{"reading a control from another site", http.MethodGet, "/_mock/faults", nil, "Origin", "http://attacker.example", http.StatusForbidden},
			{"same origin (the inbox page)", http.MethodGet, "/_mock/faults", nil, "Sec-Fetch-Site", "same-origin", http.StatusOK},
		}
		for _, tt := range tests {
			r := e.do(tt.method, tt.path, tt.body, withHeader(tt.header, tt.value))
			assert.Equal(t, tt.want, r.Status, "%s: %s", tt.name, r.Raw)
		}
		assert.Equal(t, before, e.state(), "nothing changed")
		e.do(http.MethodPost, "/_mock/dnd", M{"numbers": []string{num(9)}},
			withHeader("Origin", e.srv.URL()), withHeader("Sec-Fetch-Site", "same-origin")).wantStatus(http.StatusOK)
		e.do(http.MethodPost, "/_mock/dnd", M{"numbers": []string{num(9)}}, withHeader("Origin", e.srv.URL())).wantStatus(http.StatusOK)
	})

	t.Run("control POSTs with a body need application/json", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		tests := []struct {
			contentType, body string
			want              int
		}{
			{"text/plain", `{"rules":[{"status":503}]}`, http.StatusUnsupportedMediaType},
			{"application/x-www-form-urlencoded", `a=b`, http.StatusUnsupportedMediaType},
			{"multipart/form-data; boundary=x", `--x--`, http.StatusUnsupportedMediaType},
			{"", `{"rules":[{"status":503}]}`, http.StatusUnsupportedMediaType},
			{"application/json; charset=utf-8", `{"rules":[{"status":503,"path":"/v1/balance","times":1}]}`, http.StatusOK},
		}
		for _, tt := range tests {
			r := e.do(http.MethodPost, "/_mock/faults", rawBody(tt.body), withHeader("Content-Type", tt.contentType))
			assert.Equal(t, tt.want, r.Status, "%q: %s", tt.contentType, r.Raw)
		}
		assert.Len(t, e.srv.Faults(), 1, "only the JSON request added a rule")
		e.do(http.MethodPost, "/_mock/reset", nil).wantStatus(http.StatusOK) // curl -X POST: no body, no type
	})
}
