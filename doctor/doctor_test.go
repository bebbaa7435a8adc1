package doctor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/doctor"
	"github.com/seedsms/sms-go/mockserver"
)

// Against the mock, with a key of every scope, every check passes, and the run changes
// nothing: no wallet, no message, nothing but GETs and refused empty POSTs.
func TestRunAgainstTheMock(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"live", "test"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv := mockserver.NewTest(t)
			ws := srv.Default()
			sendOne(t, srv.URL(), ws)
			cfg := doctor.Config{BaseURL: srv.URL(), APIKey: ws.TestKey, APISecret: ws.TestSecret, DashboardToken: ws.DashboardToken}
			if mode == "live" {
				cfg.APIKey, cfg.APISecret = ws.LiveKey, ws.LiveSecret
			}
			before := snapshot(t, srv, ws)

			r, err := doctor.Run(context.Background(), cfg)
			require.NoError(t, err)

			want := all(doctor.LevelOK, nil)
			balance, campaigns := "9996.80 NGN", "1 campaign on the first page"
			if mode == "live" { // the SMS was sent with the test key: no live campaign to read
				want[doctor.CheckCampaignStatus] = doctor.LevelSkip
				balance, campaigns = "10000.00 NGN", "0 campaigns on the first page"
			}
			assert.Equal(t, want, levels(t, r), "%+v", r.Checks)
			assert.False(t, r.Failed())
			assert.Equal(t, mode, r.Mode)
			assert.Equal(t, srv.URL(), r.BaseURL)
			assert.Equal(t, "accepted: a "+mode+" key ("+mode+" wallet and data)", find(t, r, doctor.CheckCredentials).Detail)
			assert.Equal(t, balance, find(t, r, doctor.CheckBalance).Detail)
			assert.Equal(t, "1 active sender ID", find(t, r, doctor.CheckSenderIDs).Detail)
			assert.Equal(t, campaigns, find(t, r, doctor.CheckCampaigns).Detail)
			if mode == "live" {
				assert.Equal(t, "not checked: no campaign listed", find(t, r, doctor.CheckCampaignStatus).Detail)
			}
			assert.Equal(t, "2 keys", find(t, r, doctor.CheckKeys).Detail)
			for _, s := range []sms.Scope{sms.ScopeSMS, sms.ScopeOTP} { // no GET shows them
				c := find(t, r, doctor.ScopeCheck(s))
				assert.Equal(t, "GET /v1/keys", c.Endpoint, c.Name)
				assert.Equal(t, http.StatusOK, c.Status, c.Name)
				assert.Equal(t, "granted (the key list shows it)", c.Detail, c.Name)
			}
			assert.Equal(t, "GET /v1/sms/campaigns", find(t, r, "scope.campaigns").Endpoint)
			for _, c := range r.Checks {
				if c.Level == doctor.LevelSkip {
					continue
				}
				assert.Regexp(t, `^req-[0-9a-f]+$`, c.RequestID, c.Name)
				assert.NotZero(t, c.Status, c.Name)
			}
			assertNothingChanged(t, srv, ws, before, false)
			assertNoSecret(t, cfg, r, ws.LiveSecret, ws.TestSecret, ws.DashboardToken)
		})
	}
}

// The members the doctor knows in each answer are exactly those the mock sends: none missing,
// none unknown, in every read, with every list holding an item.
func TestKnownMembersAreWhatTheMockSends(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	ws := srv.Default()
	id := sendOne(t, srv.URL(), ws)
	require.NoError(t, srv.Deliver(id, nil))
	dash, err := sms.NewDashboardClient(ws.DashboardToken, sms.WithBaseURL(srv.URL()))
	require.NoError(t, err)
	defer dash.CloseIdleConnections()
	k, err := dash.Keys.Create(context.Background(), &sms.CreateKeyParams{Name: "old", Scopes: sms.Scopes{sms.ScopeSMS}, ExpiresInDays: 30})
	require.NoError(t, err)
	_, err = dash.Keys.Revoke(context.Background(), k.ID, nil)
	require.NoError(t, err)

	r, err := doctor.Run(context.Background(), doctor.Config{BaseURL: srv.URL(), APIKey: ws.TestKey, APISecret: ws.TestSecret, DashboardToken: ws.DashboardToken})
	require.NoError(t, err)
	for _, name := range []string{doctor.CheckBalance, doctor.CheckSenderIDs, doctor.CheckCampaigns, doctor.CheckCampaignStatus, doctor.CheckKeys} {
		c := find(t, r, name)
		require.NotNil(t, c.Decode, "%s: %s", name, c.Detail)
		assert.Equal(t, doctor.Decode{JSON: true, SDK: true}, *c.Decode, name)
		assert.Equal(t, doctor.LevelOK, c.Level, name)
	}
}

// A key with some scopes, checked three ways: with GETs only (sms and otp are not checked),
// with a dashboard token (the key list shows them), and with ProbeWrites (empty POSTs infer
// them). The scopes it lacks are warnings (failures when required), the reads they guard are
// skipped, and nothing is changed.
func TestRunWithLimitedScopes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		scopes  sms.Scopes
		require sms.Scopes
	}{
		{name: "balance only", scopes: sms.Scopes{sms.ScopeBalance}},
		{name: "sms and otp: the credentials are proved by a 403", scopes: sms.Scopes{sms.ScopeSMS, sms.ScopeOTP}},
		{name: "campaigns: the list and a campaign's status", scopes: sms.Scopes{sms.ScopeCampaigns}},
		{name: "a required scope that is missing fails", scopes: sms.Scopes{sms.ScopeSMS}, require: sms.Scopes{sms.ScopeSMS, sms.ScopeOTP}},
		{name: "every scope, required", scopes: sms.AllScopes(), require: sms.AllScopes()},
	}
	const getsOnly, keyList, probes = "GETs only", "key list", "probes"
	for _, tt := range tests {
		for _, how := range []string{getsOnly, keyList, probes} {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				t.Parallel()
				srv := mockserver.NewTest(t)
				ws := srv.Default()
				sendOne(t, srv.URL(), ws)
				dash, err := sms.NewDashboardClient(ws.DashboardToken, sms.WithBaseURL(srv.URL()))
				require.NoError(t, err)
				defer dash.CloseIdleConnections()
				key, err := dash.Keys.Create(context.Background(), &sms.CreateKeyParams{Name: "limited", Scopes: tt.scopes, Prefix: sms.KeyPrefixTest})
				require.NoError(t, err)
				before := snapshot(t, srv, ws)

				cfg := doctor.Config{BaseURL: srv.URL(), APIKey: key.PublicKey, APISecret: key.Secret, RequireScopes: tt.require, ProbeWrites: how == probes}
				if how == keyList {
					cfg.DashboardToken = ws.DashboardToken
				}
				r, err := doctor.Run(context.Background(), cfg)
				require.NoError(t, err)

				// What the report must say: each scope granted, missing or not checked, a
				// required one failing unless granted; each read done when its scope is there.
				want := map[string]doctor.Level{doctor.CheckCredentials: doctor.LevelOK, doctor.CheckKeys: doctor.LevelSkip}
				if how == keyList {
					want[doctor.CheckKeys] = doctor.LevelOK
				}
				failed := false
				for _, s := range sms.AllScopes() {
					l := doctor.LevelWarn
					switch {
					case how == getsOnly && (s == sms.ScopeSMS || s == sms.ScopeOTP):
						l = doctor.LevelSkip
					case tt.scopes.Has(s):
						l = doctor.LevelOK
					}
					if tt.require.Has(s) && l != doctor.LevelOK {
						l, failed = doctor.LevelFail, true
					}
					want[doctor.ScopeCheck(s)] = l
				}
				for name, s := range map[string]sms.Scope{
					doctor.CheckBalance: sms.ScopeBalance, doctor.CheckSenderIDs: sms.ScopeSenderIDs,
					doctor.CheckCampaigns: sms.ScopeCampaigns, doctor.CheckCampaignStatus: sms.ScopeCampaigns,
				} {
					want[name] = map[bool]doctor.Level{true: doctor.LevelOK, false: doctor.LevelSkip}[tt.scopes.Has(s)]
				}
				assert.Equal(t, want, levels(t, r), "%+v", r.Checks)
				assert.Equal(t, failed, r.Failed())

				for _, s := range sms.AllScopes() {
					c := find(t, r, doctor.ScopeCheck(s))
					prefix := ""
					if tt.require.Has(s) && !tt.scopes.Has(s) || tt.require.Has(s) && c.Level == doctor.LevelFail {
						prefix = "required: "
					}
					switch {
					case how == getsOnly && (s == sms.ScopeSMS || s == sms.ScopeOTP):
						assert.Equal(t, prefix+"not checked: no GET shows it; a dashboard token (the key list) or --probe-writes (an empty POST) checks it", c.Detail)
						assert.Zero(t, c.Status, "no request")
					case how == keyList && (s == sms.ScopeSMS || s == sms.ScopeOTP) && tt.scopes.Has(s):
						assert.Equal(t, "granted (the key list shows it)", c.Detail)
					case how == keyList && (s == sms.ScopeSMS || s == sms.ScopeOTP):
						assert.Equal(t, prefix+"missing: the key lacks the "+string(s)+" scope (the key list shows it)", c.Detail)
					case how == probes && (s == sms.ScopeSMS || s == sms.ScopeOTP) && tt.scopes.Has(s):
						assert.Contains(t, c.Detail, "granted (inferred", c.Name)
						assert.Equal(t, http.StatusBadRequest, c.Status, c.Name)
					case tt.scopes.Has(s):
						assert.Equal(t, "granted", c.Detail, c.Name)
					default:
						assert.Equal(t, prefix+"missing: the key lacks the "+string(s)+" scope", c.Detail)
						assert.Equal(t, http.StatusForbidden, c.Status, c.Name)
					}
				}
				if !tt.scopes.Has(sms.ScopeSenderIDs) {
					assert.Equal(t, "not checked: the key lacks the sender_ids scope", find(t, r, doctor.CheckSenderIDs).Detail)
				}
				if !tt.scopes.Has(sms.ScopeCampaigns) {
					assert.Equal(t, "not checked: the key lacks the campaigns scope", find(t, r, doctor.CheckCampaignStatus).Detail)
				}
				if how != keyList {
					assert.Equal(t, "not checked: no dashboard token given", find(t, r, doctor.CheckKeys).Detail)
				}
				assertNothingChanged(t, srv, ws, before, how == probes)
				assertNoSecret(t, cfg, r, key.Secret, ws.TestSecret, ws.DashboardToken)
			})
		}
	}
}

// What goes wrong on the server is reported, check by check, on the mock's virtual time: a
// timeout takes no wall time and latencies are exact.
func TestRunReportsTrouble(t *testing.T) {
	t.Parallel()
	// probe checks the write scopes with empty POSTs: no token, so no key list tells them.
	probe := func(c *doctor.Config, _ *mockserver.Server, _ mockserver.Workspace) {
		c.ProbeWrites, c.DashboardToken = true, ""
	}
	// The campaign list answers 404 (as on the live service, which does not document it), so
	// that no GET tells the campaigns scope and its POST is sent.
	noCampaignList := mockserver.FaultRule{Method: "GET", Path: "/v1/sms/campaigns", Status: 404}
	probed := map[string]doctor.Level{doctor.CheckKeys: doctor.LevelSkip}
	probedWithout := map[string]doctor.Level{
		doctor.CheckKeys: doctor.LevelSkip, doctor.CheckCampaigns: doctor.LevelWarn, doctor.CheckCampaignStatus: doctor.LevelSkip,
	}
	with := func(base map[string]doctor.Level, more map[string]doctor.Level) map[string]doctor.Level {
		out := map[string]doctor.Level{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range more {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name   string
		faults []mockserver.FaultRule
		config func(*doctor.Config, *mockserver.Server, mockserver.Workspace)
		want   map[string]doctor.Level
		failed bool
		check  func(t *testing.T, r *doctor.Report)
	}{
		{
			name:   "a server error on a documented read",
			faults: []mockserver.FaultRule{{Method: "GET", Path: "/v1/balance", Status: 500}},
			want:   all(doctor.LevelOK, map[string]doctor.Level{doctor.CheckBalance: doctor.LevelFail}),
			failed: true,
			check: func(t *testing.T, r *doctor.Report) {
				c := find(t, r, doctor.CheckBalance)
				assert.Equal(t, "server error: server_error: Injected fault.", c.Detail)
				assert.Equal(t, 500, c.Status)
				assert.Nil(t, c.Decode)
				assert.Equal(t, "GET /v1/sender-ids?status=active", find(t, r, doctor.CheckCredentials).Endpoint, "the next answer proves the credentials")
				assert.Equal(t, "granted (the key list shows it)", find(t, r, "scope.balance").Detail, "the read could not tell; the key list did")
			},
		},
		{
			name:   "an endpoint this project assumes is missing: a warning",
			faults: []mockserver.FaultRule{{Method: "GET", Path: "/v1/sms/campaigns", Status: 404}},
			want:   all(doctor.LevelOK, map[string]doctor.Level{doctor.CheckCampaigns: doctor.LevelWarn, doctor.CheckCampaignStatus: doctor.LevelSkip}),
			check: func(t *testing.T, r *doctor.Report) {
				c := find(t, r, doctor.CheckCampaigns)
				assert.False(t, c.Documented)
				assert.Contains(t, c.Detail, "the service does not document this endpoint; this project assumes it")
				assert.Equal(t, "not checked: the campaign list could not be read", find(t, r, doctor.CheckCampaignStatus).Detail)
			},
		},
		{
			name:   "a documented endpoint is missing: a failure",
			faults: []mockserver.FaultRule{{Method: "POST", Path: "/v1/otp/send", Status: 404}},
			config: probe,
			want:   all(doctor.LevelOK, with(probed, map[string]doctor.Level{"scope.otp": doctor.LevelFail})),
			failed: true,
			check: func(t *testing.T, r *doctor.Report) {
				assert.Equal(t, "not_found: Injected fault.: the service documents this endpoint; is the base URL right?", find(t, r, "scope.otp").Detail)
			},
		},
		{
			name:   "rate limited while checking a scope: could not tell",
			faults: []mockserver.FaultRule{{Method: "POST", Path: "/v1/sms/send", Status: 429}},
			config: probe,
			want:   all(doctor.LevelOK, with(probed, map[string]doctor.Level{"scope.sms": doctor.LevelWarn})),
			check: func(t *testing.T, r *doctor.Report) {
				assert.Equal(t, "could not tell: answered rate_limited: Injected fault.; this check expects 403 insufficient_scope or 400", find(t, r, "scope.sms").Detail)
			},
		},
		{
			name:   "an answer that says nothing of the scope: could not tell",
			faults: []mockserver.FaultRule{noCampaignList, {Method: "POST", Path: "/v1/sms/campaigns", Status: 415}},
			config: probe,
			want:   all(doctor.LevelOK, with(probedWithout, map[string]doctor.Level{"scope.campaigns": doctor.LevelWarn})),
			check: func(t *testing.T, r *doctor.Report) {
				assert.Equal(t, "could not tell: answered unsupported_media_type: Injected fault.; this check expects 403 insufficient_scope or 400", find(t, r, "scope.campaigns").Detail)
			},
		},
		{
			name:   "a server error while checking a scope fails",
			faults: []mockserver.FaultRule{noCampaignList, {Method: "POST", Path: "/v1/sms/campaigns", Status: 503}},
			config: probe,
			want:   all(doctor.LevelOK, with(probedWithout, map[string]doctor.Level{"scope.campaigns": doctor.LevelFail})),
			failed: true,
			check: func(t *testing.T, r *doctor.Report) {
				assert.Equal(t, "server error: server_error: Injected fault.", find(t, r, "scope.campaigns").Detail)
			},
		},
		{
			name:   "a required scope that could not be confirmed fails",
			faults: []mockserver.FaultRule{{Method: "POST", Path: "/v1/sms/send", Status: 429}},
			config: func(c *doctor.Config, srv *mockserver.Server, ws mockserver.Workspace) {
				probe(c, srv, ws)
				c.RequireScopes = sms.Scopes{sms.ScopeSMS}
			},
			want:   all(doctor.LevelOK, with(probed, map[string]doctor.Level{"scope.sms": doctor.LevelFail})),
			failed: true,
		},
		{
			name:   "a slow answer is timed",
			faults: []mockserver.FaultRule{{Method: "GET", Path: "/v1/balance", Latency: 2 * time.Second}},
			want:   all(doctor.LevelOK, nil),
			check: func(t *testing.T, r *doctor.Report) {
				assert.Equal(t, 2*time.Second, find(t, r, doctor.CheckBalance).Latency)
				assert.Equal(t, 2*time.Second, find(t, r, doctor.CheckCredentials).Latency)
				assert.Zero(t, find(t, r, doctor.CheckSenderIDs).Latency)
			},
		},
		{
			name:   "no answer within the timeout: nothing else is tried",
			faults: []mockserver.FaultRule{{Method: "GET", Path: "/v1/balance", Latency: time.Minute}},
			config: func(c *doctor.Config, _ *mockserver.Server, _ mockserver.Workspace) { c.Timeout = 5 * time.Second },
			want: all(doctor.LevelSkip, map[string]doctor.Level{
				doctor.CheckCredentials: doctor.LevelFail, doctor.CheckBalance: doctor.LevelFail, "scope.balance": doctor.LevelWarn,
			}),
			failed: true,
			check: func(t *testing.T, r *doctor.Report) {
				c := find(t, r, doctor.CheckCredentials)
				assert.Equal(t, "no answer within 5s", c.Detail)
				assert.Equal(t, "no answer within 5s", find(t, r, doctor.CheckBalance).Detail)
				assert.Equal(t, 5*time.Second, c.Latency)
				assert.Zero(t, c.Status)
				assert.Equal(t, "not checked: the server did not answer", find(t, r, doctor.CheckKeys).Detail)
			},
		},
		{
			name: "a wrong secret: the key's checks stop, the dashboard token is still checked",
			config: func(c *doctor.Config, _ *mockserver.Server, _ mockserver.Workspace) {
				c.APISecret = "sk_test_" + strings.Repeat("x", 40)
			},
			want:   all(doctor.LevelSkip, map[string]doctor.Level{doctor.CheckCredentials: doctor.LevelFail, doctor.CheckKeys: doctor.LevelOK}),
			failed: true,
			check: func(t *testing.T, r *doctor.Report) {
				c := find(t, r, doctor.CheckCredentials)
				assert.Equal(t, "refused: unauthorized: Invalid API key or secret.", c.Detail)
				assert.Equal(t, 401, c.Status)
				assert.Equal(t, "not checked: the credentials were refused", find(t, r, "scope.sms").Detail)
			},
		},
		{
			name: "an expired dashboard token",
			config: func(c *doctor.Config, srv *mockserver.Server, ws mockserver.Workspace) {
				c.DashboardToken = srv.DashboardToken(ws.WorkspaceID, -time.Minute)
			},
			want:   all(doctor.LevelOK, map[string]doctor.Level{doctor.CheckKeys: doctor.LevelFail, "scope.sms": doctor.LevelSkip, "scope.otp": doctor.LevelSkip}),
			failed: true,
			check: func(t *testing.T, r *doctor.Report) {
				assert.Equal(t, "refused: unauthorized: Invalid or expired dashboard token.", find(t, r, doctor.CheckKeys).Detail)
				assert.True(t, strings.HasPrefix(find(t, r, "scope.sms").Detail, "not checked: the key list could not be read (see its check); "))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(t)
				ws := srv.Default()
				hc := &http.Client{Transport: srv.Transport()}
				const base = "http://127.0.0.1:4010"
				sendOne(t, base, ws, sms.WithHTTPClient(hc))
				require.NoError(t, srv.AddFaults(tt.faults...))
				before := snapshot(t, srv, ws)
				cfg := doctor.Config{BaseURL: base, APIKey: ws.TestKey, APISecret: ws.TestSecret, DashboardToken: ws.DashboardToken, HTTPClient: hc}
				if tt.config != nil {
					tt.config(&cfg, srv, ws)
				}

				r, err := doctor.Run(context.Background(), cfg)
				require.NoError(t, err)

				if tt.want != nil {
					assert.Equal(t, tt.want, levels(t, r), "%+v", r.Checks)
				}
				assert.Equal(t, tt.failed, r.Failed())
				if tt.check != nil {
					tt.check(t, r)
				}
				assertNothingChanged(t, srv, ws, before, cfg.ProbeWrites)
			})
		})
	}
}

// Servers that behave as no API should are reported, never crashed on.
func TestRunAgainstOddServers(t *testing.T) {
	t.Parallel()
	balance := `{"data":{"balance":15000,"cashback":0,"currency":"NGN"},"requestId":"req-1"}`
	refuse := answer(400, `{"error":{"code":"bad_request","message":"to is required."},"requestId":"req-2"}`)
	routes := func(over map[string]http.HandlerFunc) map[string]http.HandlerFunc {
		out := map[string]http.HandlerFunc{
			"GET /v1/balance":        answer(200, balance),
			"GET /v1/sender-ids":     answer(200, `{"data":[],"count":0,"requestId":"req-3"}`),
			"POST /v1/sms/send":      refuse,
			"POST /v1/otp/send":      refuse,
			"POST /v1/sms/campaigns": refuse,
		}
		for k, v := range over {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name   string
		routes map[string]http.HandlerFunc
		want   map[string]doctor.Level
		check  func(t *testing.T, r *doctor.Report)
	}{
		{
			name:   "a documented subset, with no active sender ID",
			routes: routes(nil),
			want: all(doctor.LevelOK, map[string]doctor.Level{
				doctor.CheckSenderIDs: doctor.LevelWarn, doctor.CheckCampaigns: doctor.LevelWarn,
				doctor.CheckCampaignStatus: doctor.LevelSkip, doctor.CheckKeys: doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				assert.Equal(t, "0 active sender IDs; no active sender ID: nothing can be sent until one is approved", find(t, r, doctor.CheckSenderIDs).Detail)
				assert.Equal(t, "15000.00 NGN", find(t, r, doctor.CheckBalance).Detail)
				assert.Equal(t, "req-1", find(t, r, doctor.CheckBalance).RequestID)
				assert.Equal(t, "not checked: the campaign list could not be read", find(t, r, doctor.CheckCampaignStatus).Detail)
			},
		},
		{
			name: "members missing and unknown",
			routes: routes(map[string]http.HandlerFunc{
				"GET /v1/balance": answer(200, `{"data":{"balance":5,"currency":"NGN","bonus":1},"promo":"x"}`),
			}),
			want: all(doctor.LevelOK, map[string]doctor.Level{
				doctor.CheckBalance: doctor.LevelWarn, doctor.CheckSenderIDs: doctor.LevelWarn, doctor.CheckCampaigns: doctor.LevelWarn,
				doctor.CheckCampaignStatus: doctor.LevelSkip, doctor.CheckKeys: doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				c := find(t, r, doctor.CheckBalance)
				assert.Equal(t, &doctor.Decode{JSON: true, SDK: true, Missing: []string{"data.cashback", "requestId"}, Unknown: []string{"data.bonus", "promo"}}, c.Decode)
				assert.Equal(t, "5.00 NGN; missing data.cashback, requestId; unknown data.bonus, promo", c.Detail)
			},
		},
		{
			name: "not JSON",
			routes: routes(map[string]http.HandlerFunc{
				"GET /v1/balance": func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					_, _ = w.Write([]byte("<html>maintenance</html>"))
				},
			}),
			want: all(doctor.LevelOK, map[string]doctor.Level{
				"scope.balance": doctor.LevelWarn, doctor.CheckBalance: doctor.LevelFail, doctor.CheckSenderIDs: doctor.LevelWarn, doctor.CheckCampaigns: doctor.LevelWarn,
				doctor.CheckCampaignStatus: doctor.LevelSkip, doctor.CheckKeys: doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				c := find(t, r, doctor.CheckBalance)
				assert.Equal(t, `the answer is not JSON (text/html): "<html>maintenance</html>"`, c.Detail)
				assert.Contains(t, find(t, r, "scope.balance").Detail, "could not tell", "a 200 page proves no scope")
				require.NotNil(t, c.Decode)
				assert.False(t, c.Decode.JSON)
				assert.False(t, c.Decode.SDK)
				assert.NotEmpty(t, c.Decode.SDKError)
			},
		},
		{
			name: "a 403 in words, without a code",
			routes: routes(map[string]http.HandlerFunc{
				"GET /v1/balance": answer(403, `{"type":"about:blank","title":"Forbidden","status":403,"detail":"IP address not whitelisted."}`),
			}),
			check: func(t *testing.T, r *doctor.Report) {
				c := find(t, r, doctor.CheckBalance)
				assert.Equal(t, doctor.LevelFail, c.Level)
				assert.Contains(t, c.Detail, "forbidden: IP address not whitelisted.")
				assert.NotEqual(t, doctor.LevelOK, find(t, r, "scope.balance").Level)
			},
		},
		{
			name: "every GET answers 200 with an error body",
			routes: routes(map[string]http.HandlerFunc{
				"GET /v1/balance":       answer(200, `{"status":"error","message":"Invalid API key"}`),
				"GET /v1/sender-ids":    answer(200, `{"status":"error","message":"Invalid API key"}`),
				"GET /v1/sms/campaigns": answer(200, `{"status":"error","message":"Invalid API key"}`),
			}),
			want: all(doctor.LevelSkip, map[string]doctor.Level{
				doctor.CheckCredentials: doctor.LevelFail, doctor.CheckBalance: doctor.LevelFail, doctor.CheckKeys: doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				assert.Equal(t, "refused: the answer says it failed: 200 with an error body: unauthorized: Invalid API key", find(t, r, doctor.CheckCredentials).Detail)
				assert.Contains(t, find(t, r, doctor.CheckBalance).Detail, "Invalid API key")
			},
		},
		{
			name: "every GET answers 200 with an error body: status false, the convention of Nigerian payment APIs",
			routes: routes(map[string]http.HandlerFunc{
				"GET /v1/balance":       answer(200, `{"status":false,"message":"Invalid API key","data":[]}`),
				"GET /v1/sender-ids":    answer(200, `{"status":false,"message":"Invalid API key","data":[]}`),
				"GET /v1/sms/campaigns": answer(200, `{"status":false,"message":"Invalid API key","data":[]}`),
			}),
			want: all(doctor.LevelSkip, map[string]doctor.Level{
				doctor.CheckCredentials: doctor.LevelFail, doctor.CheckBalance: doctor.LevelFail, doctor.CheckKeys: doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				assert.Contains(t, find(t, r, doctor.CheckCredentials).Detail, "Invalid API key", "never credentials OK")
				assert.Contains(t, find(t, r, doctor.CheckBalance).Detail, "Invalid API key")
			},
		},
		{
			name: "every GET answers 200 with an error body: a status of 401",
			routes: routes(map[string]http.HandlerFunc{
				"GET /v1/balance":       answer(200, `{"status":"401","message":"Invalid API key"}`),
				"GET /v1/sender-ids":    answer(200, `{"status":"401","message":"Invalid API key"}`),
				"GET /v1/sms/campaigns": answer(200, `{"status":"401","message":"Invalid API key"}`),
			}),
			want: all(doctor.LevelSkip, map[string]doctor.Level{
				doctor.CheckCredentials: doctor.LevelFail, doctor.CheckBalance: doctor.LevelFail, doctor.CheckKeys: doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				assert.Contains(t, find(t, r, doctor.CheckCredentials).Detail, "Invalid API key", "never credentials OK")
				assert.Contains(t, find(t, r, doctor.CheckBalance).Detail, "Invalid API key")
			},
		},
		{
			name: "every GET answers 200 with an error body: a responseCode other than 00",
			routes: routes(map[string]http.HandlerFunc{
				"GET /v1/balance":       answer(200, `{"responseCode":"99","responseMessage":"Invalid API key","data":[]}`),
				"GET /v1/sender-ids":    answer(200, `{"responseCode":"99","responseMessage":"Invalid API key","data":[]}`),
				"GET /v1/sms/campaigns": answer(200, `{"responseCode":"99","responseMessage":"Invalid API key","data":[]}`),
			}),
			want: all(doctor.LevelSkip, map[string]doctor.Level{
				doctor.CheckCredentials: doctor.LevelFail, doctor.CheckBalance: doctor.LevelFail, doctor.CheckKeys: doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				assert.Contains(t, find(t, r, doctor.CheckCredentials).Detail, "Invalid API key", "never credentials OK")
				assert.Contains(t, find(t, r, doctor.CheckBalance).Detail, "Invalid API key")
			},
		},
		{
			name: "every GET answers 200 with an error body: a code with msg",
			routes: routes(map[string]http.HandlerFunc{
				"GET /v1/balance":       answer(200, `{"code":1001,"msg":"Invalid API key"}`),
				"GET /v1/sender-ids":    answer(200, `{"code":1001,"msg":"Invalid API key"}`),
				"GET /v1/sms/campaigns": answer(200, `{"code":1001,"msg":"Invalid API key"}`),
			}),
			want: all(doctor.LevelSkip, map[string]doctor.Level{
				doctor.CheckCredentials: doctor.LevelFail, doctor.CheckBalance: doctor.LevelFail, doctor.CheckKeys: doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				assert.Contains(t, find(t, r, doctor.CheckCredentials).Detail, "Invalid API key", "never credentials OK")
				assert.Contains(t, find(t, r, doctor.CheckBalance).Detail, "Invalid API key")
			},
		},
		{
			name: "every GET answers 200 with a maintenance page",
			routes: routes(map[string]http.HandlerFunc{
				"GET /v1/balance":       answer(200, `<html>Back soon</html>`),
				"GET /v1/sender-ids":    answer(200, `<html>Back soon</html>`),
				"GET /v1/sms/campaigns": answer(200, `<html>Back soon</html>`),
				"POST /v1/sms/send":     answer(200, `<html>Back soon</html>`),
				"POST /v1/otp/send":     answer(200, `<html>Back soon</html>`),
			}),
			check: func(t *testing.T, r *doctor.Report) {
				for _, name := range []string{doctor.CheckCredentials, "scope.balance", "scope.sender_ids", "scope.campaigns", doctor.CheckBalance, doctor.CheckSenderIDs, doctor.CheckCampaigns} {
					assert.NotEqual(t, doctor.LevelOK, find(t, r, name).Level, "%s: %s", name, find(t, r, name).Detail)
				}
				assert.Equal(t, doctor.LevelFail, find(t, r, doctor.CheckCredentials).Level)
				assert.Equal(t, doctor.LevelFail, find(t, r, doctor.CheckBalance).Level)
				assert.Contains(t, find(t, r, doctor.CheckBalance).Detail, "Back soon")
			},
		},
		{
			name: "a JSON answer the SDK cannot read",
			routes: routes(map[string]http.HandlerFunc{
				"GET /v1/balance": answer(200, `{"data":{"balance":"a lot","cashback":0,"currency":"NGN"},"requestId":"r"}`),
			}),
			want: all(doctor.LevelOK, map[string]doctor.Level{
				doctor.CheckBalance: doctor.LevelFail, doctor.CheckSenderIDs: doctor.LevelWarn, doctor.CheckCampaigns: doctor.LevelWarn,
				doctor.CheckCampaignStatus: doctor.LevelSkip, doctor.CheckKeys: doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				c := find(t, r, doctor.CheckBalance)
				assert.True(t, strings.HasPrefix(c.Detail, "the SDK cannot read it: decoding the 200 response: "), c.Detail)
				assert.Equal(t, &doctor.Decode{JSON: true, SDK: false, SDKError: strings.TrimPrefix(c.Detail, "the SDK cannot read it: ")}, c.Decode)
			},
		},
		{
			name: "an empty request accepted",
			routes: routes(map[string]http.HandlerFunc{
				"POST /v1/sms/send": answer(202, `{"message":"SMS request accepted."}`),
			}),
			want: all(doctor.LevelOK, map[string]doctor.Level{
				"scope.sms": doctor.LevelFail, "scope.otp": doctor.LevelSkip, "scope.campaigns": doctor.LevelSkip,
				doctor.CheckSenderIDs: doctor.LevelWarn, doctor.CheckCampaigns: doctor.LevelWarn,
				doctor.CheckCampaignStatus: doctor.LevelSkip, doctor.CheckKeys: doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				assert.Equal(t, "the server accepted an empty write (202) instead of refusing it: check what it did; no other empty write was sent", find(t, r, "scope.sms").Detail)
				assert.Equal(t, "not checked: the server accepted an empty write to POST /v1/sms/send; no other was sent", find(t, r, "scope.otp").Detail)
			},
		},
		{
			name: "server text is made printable",
			routes: routes(map[string]http.HandlerFunc{
				"GET /v1/balance": func(w http.ResponseWriter, _ *http.Request) {
					writeBody(w, 500, `{"error":{"code":"server_error","message":"down\u001b[31m\nnow"},"requestId":"req\u001b[2J"}`)
				},
				"GET /v1/sender-ids": answer(200, `{"data":[],"count":0,"requestId":"r","bad\u001bname":1}`),
			}),
			want: all(doctor.LevelOK, map[string]doctor.Level{
				"scope.balance": doctor.LevelWarn, doctor.CheckBalance: doctor.LevelFail, doctor.CheckSenderIDs: doctor.LevelWarn, doctor.CheckCampaigns: doctor.LevelWarn,
				doctor.CheckCampaignStatus: doctor.LevelSkip, doctor.CheckKeys: doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				c := find(t, r, doctor.CheckBalance)
				assert.Equal(t, `server error: server_error: down\x1b[31m\nnow`, c.Detail)
				assert.Equal(t, `req\x1b[2J`, c.RequestID)
				assert.Equal(t, []string{`bad\x1bname`}, find(t, r, doctor.CheckSenderIDs).Decode.Unknown)
			},
		},
		{
			name: "a redirect is not followed",
			routes: map[string]http.HandlerFunc{
				"GET /v1/balance": func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, "https://elsewhere.example/v1/balance", http.StatusFound)
				},
			},
			want: all(doctor.LevelFail, map[string]doctor.Level{
				doctor.CheckCampaigns: doctor.LevelWarn, doctor.CheckCampaignStatus: doctor.LevelSkip, doctor.CheckKeys: doctor.LevelWarn,
				"scope.sender_ids": doctor.LevelWarn, "scope.balance": doctor.LevelWarn,
			}),
			check: func(t *testing.T, r *doctor.Report) {
				assert.Equal(t, `redirected to "https://elsewhere.example/v1/balance", which is not followed: is the base URL right?`, find(t, r, doctor.CheckBalance).Detail)
				assert.Equal(t, "not confirmed: no answer proved them (see the other checks)", find(t, r, doctor.CheckCredentials).Detail)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, srv := newFakeAPI(t, tt.routes)
			cfg := f.config(srv.URL)
			cfg.ProbeWrites = true // the fake has no key list: the write scopes come from its POSTs
			r, err := doctor.Run(context.Background(), cfg)
			require.NoError(t, err)
			if tt.want != nil {
				assert.Equal(t, tt.want, levels(t, r), "%+v", r.Checks)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
			assertNoSecret(t, cfg, r, f.secret, f.token)
		})
	}
}

// A server that is not there: one failure, and nothing else tried.
func TestRunAgainstNoServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	r, err := doctor.Run(context.Background(), doctor.Config{BaseURL: url, APIKey: "pk_live_abc", APISecret: "sk_live_def", DashboardToken: "a.b.c"})
	require.NoError(t, err)
	assert.Equal(t, all(doctor.LevelSkip, map[string]doctor.Level{
		doctor.CheckCredentials: doctor.LevelFail, doctor.CheckBalance: doctor.LevelFail, "scope.balance": doctor.LevelWarn,
	}), levels(t, r))
	assert.Regexp(t, `^no answer: dial tcp .*connection refused$`, find(t, r, doctor.CheckCredentials).Detail)
	assert.True(t, r.Failed())
}

// A configuration that cannot be used is an error before any request.
func TestRunRefusesABadConfig(t *testing.T) {
	t.Parallel()
	f, srv := newFakeAPI(t, nil)
	good := f.config(srv.URL)
	tests := []struct {
		name   string
		change func(*doctor.Config)
		want   string
	}{
		{"no base URL", func(c *doctor.Config) { c.BaseURL = " " }, "doctor: no base URL"},
		{"a relative base URL", func(c *doctor.Config) { c.BaseURL = "api.example.com" }, "sms: the base URL must be an absolute http:// or https:// URL"},
		{"plain http to another host", func(c *doctor.Config) { c.BaseURL = "http://api.example.com" }, "sms: refusing plain http://"},
		{"a malformed key", func(c *doctor.Config) { c.APIKey = "key" }, "sms: the API key must start with pk_live_ or pk_test_"},
		{"a secret of the other mode", func(c *doctor.Config) { c.APISecret = "sk_test_abc" }, "sms: the API secret must start with sk_live_"},
		{"a malformed token", func(c *doctor.Config) { c.DashboardToken = "token" }, "sms: the dashboard token must be a JWT"},
		{"an unknown scope", func(c *doctor.Config) { c.RequireScopes = sms.Scopes{"sms", "email"} }, `doctor: unknown scope "email"`},
		{"a negative timeout", func(c *doctor.Config) { c.Timeout = -time.Second }, "doctor: the timeout cannot be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := good
			tt.change(&cfg)
			r, err := doctor.Run(context.Background(), cfg)
			require.Error(t, err)
			assert.Nil(t, r)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), f.secret)
		})
	}
	assert.Empty(t, f.received(), "no request was sent")
}

// A run whose context ends returns the context's error.
func TestRunStopsWithTheContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		ws := srv.Default()
		require.NoError(t, srv.AddFaults(mockserver.FaultRule{Path: "/v1/sender-ids", Latency: time.Minute}))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r, err := doctor.Run(ctx, doctor.Config{
			BaseURL: "http://127.0.0.1", APIKey: ws.TestKey, APISecret: ws.TestSecret,
			HTTPClient: &http.Client{Transport: srv.Transport()}, Timeout: time.Hour,
		})
		assert.Nil(t, r)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.True(t, errors.Is(err, ctx.Err()))
	})
}

// The JSON form has the levels, the latencies in milliseconds, and the summary.
func TestReportJSON(t *testing.T) {
	t.Parallel()
	r := &doctor.Report{BaseURL: "https://api.example.com", Mode: "live", Checks: []doctor.Check{
		{Name: "balance", Level: doctor.LevelOK, Detail: "1.00 NGN", Endpoint: "GET /v1/balance", Documented: true, Status: 200, Latency: 1234567 * time.Nanosecond, RequestID: "req-1", Decode: &doctor.Decode{JSON: true, SDK: true}},
		{Name: "keys", Level: doctor.LevelSkip, Detail: "not checked", Endpoint: "GET /v1/keys"},
		{Name: "scope.sms", Level: doctor.LevelFail, Detail: "x", Endpoint: "POST /v1/sms/send", Documented: true, Status: 500},
	}}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"baseUrl": "https://api.example.com", "mode": "live", "passed": false,
		"counts": {"ok": 1, "warn": 0, "fail": 1, "skip": 1},
		"checks": [
			{"name": "balance", "level": "ok", "detail": "1.00 NGN", "endpoint": "GET /v1/balance", "documented": true,
			 "status": 200, "latencyMs": 1.235, "requestId": "req-1", "decode": {"json": true, "sdk": true}},
			{"name": "keys", "level": "skip", "detail": "not checked", "endpoint": "GET /v1/keys", "documented": false, "latencyMs": 0},
			{"name": "scope.sms", "level": "fail", "detail": "x", "endpoint": "POST /v1/sms/send", "documented": true, "status": 500, "latencyMs": 0}
		]}`, string(b))
	b2, err := json.Marshal(*r)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(b2), "a Report and a *Report marshal alike")
}

// A Config never shows its secret or its token, however it is printed or logged.
func TestConfigHidesSecrets(t *testing.T) {
	t.Parallel()
	cfg := doctor.Config{
		BaseURL: "https://api.example.com", APIKey: "pk_live_abc", APISecret: "sk_live_s3cr3t",
		DashboardToken: "aGVhZA.Ym9keQ.c2ln", RequireScopes: sms.Scopes{sms.ScopeSMS},
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("run", "config", cfg)
	for _, out := range []string{fmtAll(cfg), fmtAll(&cfg), logged.String()} {
		assert.NotContains(t, out, "s3cr3t")
		assert.NotContains(t, out, "Ym9keQ")
		assert.Contains(t, out, "[REDACTED]")
		assert.Contains(t, out, "pk_live_abc")
	}
	assert.Contains(t, doctor.Config{}.String(), `APISecret: "", DashboardToken: ""`, "an empty secret is shown empty")
}

// newServer returns a mock with opts, failing the test if New refuses them.
func newServer(t testing.TB, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	srv, err := mockserver.New(opts...)
	require.NoError(t, err)
	return srv
}
