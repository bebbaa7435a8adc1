package doctor_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/doctor"
	"github.com/seedsms/sms-go/internal/safefile"
)

// keyList answers GET /v1/keys with the key publicKey holding scopes.
func keyList(publicKey string, scopes sms.Scopes) http.HandlerFunc {
	s, _ := json.Marshal(scopes)
	return answer(200, `{"data":[{"_id":"k1","name":"backend","prefix":"pk_live","publicKey":"`+publicKey+
		`","scopes":`+string(s)+`,"createdAt":"2026-11-21T10:00:00Z","expiresAt":null,"revokedAt":null,"lastUsedAt":null}],"count":1,"requestId":"req-k"}`)
}

// By default a run sends GET requests only, whatever the server: with a dashboard token the
// write scopes come from the key list, without one they are not checked.
func TestRunSendsOnlyGETs(t *testing.T) {
	t.Parallel()
	for _, token := range []bool{false, true} {
		t.Run(map[bool]string{false: "no token", true: "a dashboard token"}[token], func(t *testing.T) {
			t.Parallel()
			var accepted atomic.Int32
			routes := liveRoutes(sms.AllScopes(), &accepted)
			f, srv := newFakeAPI(t, routes)
			routes["GET /v1/keys"] = keyList(f.key, sms.Scopes{sms.ScopeSMS, sms.ScopeBalance})
			cfg := f.config(srv.URL)
			if !token {
				cfg.DashboardToken = ""
			}

			r, err := doctor.Run(context.Background(), cfg)
			require.NoError(t, err)

			received := f.received()
			require.NotEmpty(t, received)
			for _, rq := range received {
				assert.True(t, strings.HasPrefix(rq, "GET "), "only GETs: %s", rq)
			}
			assert.Zero(t, accepted.Load())
			smsScope, otpScope := find(t, r, "scope.sms"), find(t, r, "scope.otp")
			if token {
				assert.Equal(t, doctor.LevelOK, smsScope.Level)
				assert.Equal(t, "granted (the key list shows it)", smsScope.Detail)
				assert.Equal(t, "GET /v1/keys", smsScope.Endpoint)
				assert.Equal(t, doctor.LevelWarn, otpScope.Level)
				assert.Equal(t, "missing: the key lacks the otp scope (the key list shows it)", otpScope.Detail)
			} else {
				for _, c := range []doctor.Check{smsScope, otpScope} {
					assert.Equal(t, doctor.LevelSkip, c.Level, c.Name)
					assert.Contains(t, c.Detail, "--probe-writes", c.Name)
					assert.Zero(t, c.Status, c.Name)
				}
			}
		})
	}
}

// With ProbeWrites, the empty POSTs stop at the first that a server accepts: that one fails,
// and no other write is sent.
func TestProbeWritesStopAtTheFirstAccepted(t *testing.T) {
	t.Parallel()
	refuse := answer(400, `{"error":{"code":"bad_request","message":"to is required."},"requestId":"r"}`)
	accept := answer(202, `{"message":"SMS request accepted."}`)
	tests := []struct {
		name     string
		sms, otp http.HandlerFunc
		posts    []string // the POSTs the server received, in order
		want     map[string]doctor.Level
	}{
		{
			name: "the first", sms: accept, otp: refuse,
			posts: []string{"POST /v1/sms/send {}"},
			want:  map[string]doctor.Level{"scope.sms": doctor.LevelFail, "scope.otp": doctor.LevelSkip, "scope.campaigns": doctor.LevelSkip},
		},
		{
			name: "the second", sms: refuse, otp: accept,
			posts: []string{"POST /v1/sms/send {}", "POST /v1/otp/send {}"},
			want:  map[string]doctor.Level{"scope.sms": doctor.LevelOK, "scope.otp": doctor.LevelFail, "scope.campaigns": doctor.LevelSkip},
		},
		{
			name: "none", sms: refuse, otp: refuse,
			posts: []string{"POST /v1/sms/send {}", "POST /v1/otp/send {}", "POST /v1/sms/campaigns {}"},
			want:  map[string]doctor.Level{"scope.sms": doctor.LevelOK, "scope.otp": doctor.LevelOK, "scope.campaigns": doctor.LevelOK},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, srv := newFakeAPI(t, map[string]http.HandlerFunc{
				"GET /v1/balance":        answer(200, `{"data":{"balance":1,"cashback":0,"currency":"NGN"},"requestId":"r"}`),
				"GET /v1/sender-ids":     answer(200, `{"data":[],"count":0,"requestId":"r"}`),
				"POST /v1/sms/send":      tt.sms,
				"POST /v1/otp/send":      tt.otp,
				"POST /v1/sms/campaigns": refuse, // no campaign list: its scope needs the POST
			})
			cfg := f.config(srv.URL)
			cfg.DashboardToken, cfg.ProbeWrites = "", true

			r, err := doctor.Run(context.Background(), cfg)
			require.NoError(t, err)

			var posts []string
			for _, rq := range f.received() {
				if strings.HasPrefix(rq, "POST ") {
					posts = append(posts, rq)
				}
			}
			assert.Equal(t, tt.posts, posts)
			for name, l := range tt.want {
				c := find(t, r, name)
				assert.Equal(t, l, c.Level, "%s: %s", name, c.Detail)
				switch l {
				case doctor.LevelFail:
					assert.Contains(t, c.Detail, "the server accepted an empty write (202)")
				case doctor.LevelSkip:
					assert.Contains(t, c.Detail, "the server accepted an empty write to POST ")
				}
			}
			assert.Equal(t, tt.want["scope.sms"] == doctor.LevelFail || tt.want["scope.otp"] == doctor.LevelFail, r.Failed())
		})
	}
}

// SaveDir gets every answer, headers and body, with its request, one file per request in the
// order sent, with no secret, pin or token of the run in any form, and every phone number
// masked, in any form.
func TestSaveRedacts(t *testing.T) {
	t.Parallel()
	const (
		pin   = "482913"
		phone = "2348025671695"
		local = "08031234567"
	)
	var f *fakeAPI
	routes := map[string]http.HandlerFunc{
		// An answer that echoes everything it should not: the secret, a token, a pin, numbers.
		"GET /v1/balance": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Echo-Secret", r.Header.Get("X-API-Secret"))
			w.Header().Set("X-RateLimit-Reset", "1764100000")
			w.Header().Set("X-Echo-To", "+234 802 567 1695")
			writeBody(w, 200, `{"data":{"balance":15000,"cashback":0,"currency":"NGN"},"requestId":"req-1",`+
				`"debug":{"secret":"`+f.secret+`","echo":"key `+f.secret+` used","pin":"`+pin+`","Token":{"a":1},"accessToken":"x",`+
				`"msisdn":`+phone+`,"to":["`+local+`"],"note":"call +`+phone+` or `+local+`","messageId":"3017600245086449408013699",`+
				`"otp_code":"771923","pinCode":553311,"sms":"Your code is 662014","spaced":"+234 802 567 1695","dashed":"0803-123-4567",`+
				`"under":"to_`+phone+`","bare":"`+strings.TrimPrefix(f.secret, "sk_live_")+`","recipients":[`+phone+`]}}`)
		},
		"GET /v1/sender-ids": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>token " + f.token + " for " + phone + "</html>"))
		},
		"GET /v1/keys": func(w http.ResponseWriter, _ *http.Request) {
			writeBody(w, 200, `{"data":[],"count":0,"requestId":"req-k","hint":"Bearer `+f.token+`"}`)
		},
	}
	f, srv := newFakeAPI(t, routes)
	dir := filepath.Join(t.TempDir(), "answers")
	cfg := f.config(srv.URL)
	cfg.SaveDir = dir

	r, err := doctor.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.NotNil(t, r)

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"01-get-v1-balance.json", "02-get-v1-sender-ids.json", "03-get-v1-sms-campaigns.json", "04-get-v1-keys.json"}, names)

	all := ""
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		all += string(b)
	}
	for _, s := range []string{f.secret, f.token, pin, phone, local, strings.TrimPrefix(local, "0"), strings.TrimPrefix(f.secret, "sk_live_"),
		"771923", "553311", "662014", "802 567 1695", "803-123-4567"} {
		for _, form := range []string{s, url.QueryEscape(s), jsonString(s)} {
			assert.NotContains(t, all, form, "saved: %s", all)
		}
	}

	var balance struct {
		Request struct {
			Method, URL string
			Headers     map[string][]string
		}
		Response struct {
			Status  int
			Headers map[string][]string
			Body    json.RawMessage
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, names[0]))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &balance))
	assert.Equal(t, "GET", balance.Request.Method)
	assert.Equal(t, srv.URL+"/v1/balance", balance.Request.URL)
	assert.Equal(t, []string{doctor.Redacted}, balance.Request.Headers["X-Api-Secret"])
	assert.Equal(t, []string{f.key}, balance.Request.Headers["X-Api-Key"], "the public key stays")
	assert.Equal(t, 200, balance.Response.Status)
	assert.Equal(t, []string{doctor.Redacted}, balance.Response.Headers["X-Echo-Secret"])
	assert.Equal(t, []string{"1764100000"}, balance.Response.Headers["X-Ratelimit-Reset"], "an epoch time is no phone number")
	assert.Equal(t, []string{"+234802****695"}, balance.Response.Headers["X-Echo-To"])
	assert.Equal(t, `{"data":{"balance":15000,"cashback":0,"currency":"NGN"},"requestId":"req-1",`+
		`"debug":{"secret":"[REDACTED]","echo":"key [REDACTED] used","pin":"[REDACTED]","Token":"[REDACTED]","accessToken":"[REDACTED]",`+
		`"msisdn":"234802****695","to":["0803****567"],"note":"call +234802****695 or 0803****567","messageId":"3017600245086449408013699",`+
		`"otp_code":"[REDACTED]","pinCode":"[REDACTED]","sms":"Your code is [REDACTED]","spaced":"+234802****695","dashed":"0803****567",`+
		`"under":"to_234802****695","bare":"[REDACTED]","recipients":["234802****695"]}}`,
		compact(t, balance.Response.Body), "members in their order, only secrets, pins and numbers replaced")

	var html struct{ Response struct{ Body string } }
	b, err = os.ReadFile(filepath.Join(dir, names[1]))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &html))
	assert.Equal(t, "<html>token [REDACTED] for 234802****695</html>", html.Response.Body, "a body that is not JSON is kept as a string")
}

// A SaveDir that cannot be made is an error before any request.
func TestSaveDirMustBeUsable(t *testing.T) {
	t.Parallel()
	f, srv := newFakeAPI(t, nil)
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	cfg := f.config(srv.URL)
	cfg.SaveDir = filepath.Join(file, "answers")
	r, err := doctor.Run(context.Background(), cfg)
	assert.Nil(t, r)
	assert.ErrorContains(t, err, "doctor: the directory for the answers")
	assert.Empty(t, f.received())
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b strings.Builder
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var v json.RawMessage
	require.NoError(t, dec.Decode(&v))
	out, err := json.Marshal(v)
	require.NoError(t, err)
	b.Write(out)
	return b.String()
}

// A file of SaveDir that is a link (planted by someone sharing the directory) is not written
// through: its target is left as it was, the other answers are saved, and Run says so.
func TestSaveNeverFollowsALink(t *testing.T) {
	t.Parallel()
	f, srv := newFakeAPI(t, nil)
	dir := filepath.Join(t.TempDir(), "answers")
	require.NoError(t, os.Mkdir(dir, 0o700))
	target := filepath.Join(t.TempDir(), "authorized_keys")
	require.NoError(t, os.WriteFile(target, []byte("ssh-ed25519 AAAA\n"), 0o600))
	require.NoError(t, os.Symlink(target, filepath.Join(dir, "01-get-v1-balance.json")))
	cfg := f.config(srv.URL)
	cfg.SaveDir = dir
	r, err := doctor.Run(context.Background(), cfg)
	require.NotNil(t, r, "the report stands")
	require.ErrorIs(t, err, safefile.ErrSymlink)
	b, rerr := os.ReadFile(target)
	require.NoError(t, rerr)
	assert.Equal(t, "ssh-ed25519 AAAA\n", string(b))
	_, err = os.Stat(filepath.Join(dir, "02-get-v1-sender-ids.json"))
	assert.NoError(t, err, "the other answers are saved")
}

// doctor --save masks a number, a pin and the run's own secret in every form a server writes
// them: dots, no-break spaces, tabs, slashes, %20, a float, full-width digits; a pin in words
// and grouped; the secret base64- or %-encoded.
func TestSaveRedactsWrittenForms(t *testing.T) {
	t.Parallel()
	var f *fakeAPI
	routes := map[string]http.HandlerFunc{
		"GET /v1/balance": func(w http.ResponseWriter, r *http.Request) {
			secret := r.Header.Get("X-API-Secret")
			w.Header().Set("X-Echo", base64.StdEncoding.EncodeToString([]byte(secret)))
			writeBody(w, 200, `{"data":{"balance":15000,"cashback":0,"currency":"NGN"},"requestId":"req-1",`+
				`"debug":{"a":"0803.123.4567","b":"+234.803.123.4567","c":"0803\u00a0123\u00a04567","d":"0803\t123\t4567",`+
				`"e":"0803/123/4567","f":"to=0803%20123%204567","g":2348031234567.0,"h":2.348031234567E12,`+
				`"i":"\uff10\uff18\uff10\uff13\uff11\uff12\uff13\uff14\uff15\uff16\uff17","j":"Your code is 482 913",`+
				`"k":"`+url.QueryEscape(url.QueryEscape(secret))+`","l":"`+base64.RawURLEncoding.EncodeToString([]byte(secret))+`"}}`)
		},
	}
	f, srv := newFakeAPI(t, routes)
	dir := filepath.Join(t.TempDir(), "answers")
	cfg := f.config(srv.URL)
	cfg.SaveDir = dir
	_, err := doctor.Run(context.Background(), cfg)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "01-get-v1-balance.json"))
	require.NoError(t, err)
	for _, leak := range []string{"123.4567", "123\\u00a04567", "123\u00a04567", "123\\t4567", "123/4567", "123%204567", "2348031234567",
		"348031234567", "\uff14\uff15\uff16", "482 913", base64.StdEncoding.EncodeToString([]byte(f.secret))[:12],
		base64.RawURLEncoding.EncodeToString([]byte(f.secret))[:12], "sk_live", strings.TrimPrefix(f.secret, "sk_live_")[:8]} {
		assert.NotContains(t, string(b), leak)
	}
	assert.Contains(t, string(b), "0803****567")
}
