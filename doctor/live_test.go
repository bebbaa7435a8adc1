package doctor_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/doctor"
)

// The sample answers of the live service's developer pages, verbatim.
const (
	liveBalance   = `{"data":{"balance":15000,"cashback":0,"currency":"NGN"},"requestId":"req-123"}`
	liveSenderIDs = `{"data":[{"title":"ACME","status":"active","country":"Nigeria"}],"count":1}`
	liveSend      = `{"message":"SMS request accepted.","campaign":{"id":"667000000000000000000001","status":"sent","message_id":"3017600245086449408013699","recipients":1,"amount":3.2,"currency":"NGN","sms_parts":1},"requestId":"req-123"}`
	liveOTPSend   = `{"data":{"smsStatus":"Message Sent","phone_number":"2348025671695","pinId":"c8dcd048-5e7f-4347-8c89-4470c3af0b","status":"200"}}`
	liveOTPVerify = `{"data":{"pinId":"c8dcd048-5e7f-4347-8c89-4470c3af0b","verified":true,"msisdn":"2348025671695"}}`
)

// liveError is an error answer in the shape the live pages document.
func liveError(w http.ResponseWriter, status int, code, message string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": message}, "requestId": "req-123"})
	writeBody(w, status, string(b))
}

// liveRoutes answers the documented endpoints with the live pages' samples, and nothing else:
// the campaign list, a campaign's status and the key list are not documented, so the server
// has none (404). Each route checks its scope, then its body's required members (the pages do
// not say in which order the service checks them; this is the mock's order). A request that a
// real server would act on is counted in accepted.
func liveRoutes(granted sms.Scopes, accepted *atomic.Int32) map[string]http.HandlerFunc {
	route := func(scope sms.Scope, required []string, ok func(http.ResponseWriter)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if !granted.Has(scope) {
				liveError(w, http.StatusForbidden, "insufficient_scope", "This API key lacks the "+string(scope)+" scope.")
				return
			}
			if r.Method == http.MethodPost {
				var body map[string]any
				b, _ := io.ReadAll(r.Body)
				if json.Unmarshal(b, &body) != nil {
					liveError(w, http.StatusBadRequest, "bad_request", "Invalid JSON.")
					return
				}
				for _, name := range required {
					if _, ok := body[name]; !ok {
						liveError(w, http.StatusBadRequest, "bad_request", name+" is required.")
						return
					}
				}
				accepted.Add(1)
			}
			ok(w)
		}
	}
	send := []string{"to", "from", "message"}
	return map[string]http.HandlerFunc{
		"GET /v1/balance":    route(sms.ScopeBalance, nil, func(w http.ResponseWriter) { writeBody(w, 200, liveBalance) }),
		"GET /v1/sender-ids": route(sms.ScopeSenderIDs, nil, func(w http.ResponseWriter) { writeBody(w, 200, liveSenderIDs) }),
		"POST /v1/sms/send":  route(sms.ScopeSMS, send, func(w http.ResponseWriter) { writeBody(w, 202, liveSend) }),
		// The pages show no answer for a campaign; a send's is the closest.
		"POST /v1/sms/campaigns": route(sms.ScopeCampaigns, send, func(w http.ResponseWriter) { writeBody(w, 202, liveSend) }),
		"POST /v1/otp/send":      route(sms.ScopeOTP, []string{"to", "from"}, func(w http.ResponseWriter) { writeBody(w, 200, liveOTPSend) }),
		"POST /v1/otp/verify":    route(sms.ScopeOTP, []string{"pin_id", "pin"}, func(w http.ResponseWriter) { writeBody(w, 200, liveOTPVerify) }),
	}
}

// Against a server that answers exactly what the live pages show, the documented endpoints
// are checked, what this project assumes is reported as missing, and nothing is sent: by
// default with GETs only (the write scopes, which no GET shows and whose key list the service
// does not have, are not checked), and with ProbeWrites with empty POSTs that it refuses.
func TestRunAgainstTheLiveSamples(t *testing.T) {
	t.Parallel()
	for _, probe := range []bool{false, true} {
		t.Run(map[bool]string{false: "GETs only", true: "ProbeWrites"}[probe], func(t *testing.T) {
			t.Parallel()
			var accepted atomic.Int32
			f, srv := newFakeAPI(t, liveRoutes(sms.AllScopes(), &accepted))
			cfg := f.config(srv.URL)
			cfg.ProbeWrites = probe

			r, err := doctor.Run(context.Background(), cfg)
			require.NoError(t, err)

			got := levels(t, r)
			delete(got, doctor.CheckSenderIDs) // below
			want := all(doctor.LevelOK, map[string]doctor.Level{
				doctor.CheckCampaigns: doctor.LevelWarn, doctor.CheckCampaignStatus: doctor.LevelSkip, doctor.CheckKeys: doctor.LevelWarn,
			})
			if !probe {
				want["scope.sms"], want["scope.otp"], want["scope.campaigns"] = doctor.LevelSkip, doctor.LevelSkip, doctor.LevelWarn
			}
			delete(want, doctor.CheckSenderIDs)
			assert.Equal(t, want, got, "%+v", r.Checks)

			balance := find(t, r, doctor.CheckBalance)
			assert.Equal(t, "15000.00 NGN", balance.Detail)
			assert.Equal(t, &doctor.Decode{JSON: true, SDK: true}, balance.Decode, "the balance sample is all the SDK knows")
			assert.Equal(t, "req-123", balance.RequestID)
			assert.True(t, balance.Documented)

			for _, name := range []string{doctor.CheckCampaigns, doctor.CheckKeys} {
				c := find(t, r, name)
				assert.Equal(t, http.StatusNotFound, c.Status, name)
				assert.False(t, c.Documented, name)
				assert.Contains(t, c.Detail, "the service does not document this endpoint; this project assumes it", name)
			}

			// What the sample lacks of what the SDK knows, whether or not the SDK reads it.
			senderIDs := find(t, r, doctor.CheckSenderIDs)
			require.NotNil(t, senderIDs.Decode)
			assert.True(t, senderIDs.Decode.JSON)
			assert.Equal(t, []string{"data[0]._id", "data[0].usecase", "data[0].company", "data[0].createdAt", "requestId"}, senderIDs.Decode.Missing)
			assert.Empty(t, senderIDs.Decode.Unknown)

			assert.Zero(t, accepted.Load(), "no request the server would act on")
			for _, rq := range f.received() {
				if probe {
					assert.Regexp(t, `^(GET \S+ |POST \S+ \{\})$`, rq)
				} else {
					assert.Regexp(t, `^GET \S+ $`, rq)
				}
			}
			assertNoSecret(t, cfg, r, f.secret, f.token)

			t.Run("the SDK reads the sender IDs sample", func(t *testing.T) {
				assert.Equal(t, doctor.LevelWarn, senderIDs.Level)
				assert.True(t, senderIDs.Decode.SDK, senderIDs.Decode.SDKError)
				assert.Equal(t, "1 active sender ID; missing data[0]._id, data[0].usecase, data[0].company, data[0].createdAt, requestId", senderIDs.Detail)
				assert.False(t, r.Failed(), "what the live pages document passes: %+v", r.Checks)
			})
		})
	}
}

// The live pages' 403 insufficient_scope tells which scopes a key lacks, the write scopes'
// through ProbeWrites' empty POSTs.
func TestRunAgainstTheLiveSamplesWithLimitedScopes(t *testing.T) {
	t.Parallel()
	var accepted atomic.Int32
	f, srv := newFakeAPI(t, liveRoutes(sms.Scopes{sms.ScopeSMS, sms.ScopeCampaigns, sms.ScopeSenderIDs}, &accepted))

	r, err := doctor.Run(context.Background(), doctor.Config{BaseURL: srv.URL, APIKey: f.key, APISecret: f.secret, ProbeWrites: true})
	require.NoError(t, err)

	got := levels(t, r)
	for _, name := range []string{doctor.CheckCredentials, "scope.sms", "scope.campaigns", "scope.sender_ids"} {
		assert.Equal(t, doctor.LevelOK, got[name], name)
	}
	assert.Equal(t, "GET /v1/balance", find(t, r, doctor.CheckCredentials).Endpoint, "a 403 proves the credentials")
	for _, s := range []sms.Scope{sms.ScopeOTP, sms.ScopeBalance} {
		c := find(t, r, doctor.ScopeCheck(s))
		assert.Equal(t, doctor.LevelWarn, c.Level, c.Name)
		assert.Equal(t, "missing: the key lacks the "+string(s)+" scope", c.Detail)
	}
	assert.Equal(t, doctor.LevelSkip, got[doctor.CheckBalance])
	assert.Equal(t, doctor.LevelSkip, got[doctor.CheckKeys])
	assert.Zero(t, accepted.Load())
	for _, rq := range f.received() {
		assert.True(t, strings.HasPrefix(rq, "GET ") || strings.HasSuffix(rq, " {}"), rq)
	}
}
