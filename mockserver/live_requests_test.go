package mockserver_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// liveRequests are the request samples of the live service's pages, verbatim (compacted), as
// testdata/live keeps them.
var liveRequests = map[string]string{
	"request-keys-create.json":   `{"name":"Production website","prefix":"pk_live","scopes":{"sms":true,"otp":true,"campaigns":true,"sender_ids":true,"balance":true}}`,
	"request-sms-send.json":      `{"to":"08025671695","from":"NairaSMS","message":"Your order has shipped.","channel":"generic","reference":"order_1001"}`,
	"request-sms-campaigns.json": `{"to":["08025671695","08100000000"],"from":"NairaSMS","message":"Hi {{name}}, your appointment is tomorrow.","channel":"generic","reference":"clinic_batch_42"}`,
	"request-otp-send.json":      `{"to":"08025671695","from":"NairaSMS","pin_type":"numeric","pin_length":6,"pin_time_to_live":10,"message_text":"Your NairaSMS code is < 1234 >"}`,
	"request-otp-verify.json":    `{"pin_id":"c8dcd048-5e7f-4347-8c89-4470c3af0b","pin":"195558"}`,
	"request-sender-ids.json":    `{"sender_id":"ACME","usecase":"Customer transaction alerts","company":"Acme Stores"}`,
}

// liveRequest returns a request sample of testdata/live, checked to be the page's.
func liveRequest(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "live", name))
	require.NoError(t, err)
	require.Equal(t, liveRequests[name], strings.TrimSuffix(string(b), "\n"), "%s is the page's sample, verbatim", name)
	return b
}

// The request samples are kept verbatim: they are what the pages show, not what a test needs.
func TestLiveRequestSamplesAreVerbatim(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "live", "request-*.json"))
	require.NoError(t, err)
	require.Len(t, files, len(liveRequests), "one file per sample, no other")
	for _, f := range files {
		liveRequest(t, filepath.Base(f))
	}
}

// Each request sample of the live pages, sent as it is, is accepted by the mock under both
// profiles, in the quickstart's order: a key from the dashboard, a sender ID requested (and
// approved), an SMS, a campaign, an OTP and its check. The sample's pin ID is not one the mock
// issued: its verify is read and answered 404 for that pin, not refused as malformed.
func TestLiveRequestSamplesAreAccepted(t *testing.T) {
	t.Parallel()
	for _, profile := range []mockserver.Profile{mockserver.ProfileFull, mockserver.ProfileDocumented} {
		t.Run(profile.String(), func(t *testing.T) {
			t.Parallel()
			documented := profile == mockserver.ProfileDocumented
			created := map[bool]int{false: http.StatusCreated, true: http.StatusOK}[documented]
			submitted := map[bool]int{false: http.StatusCreated, true: http.StatusAccepted}[documented]
			e := newEnv(t, mockserver.WithProfile(profile))
			// exchange checks each answer against api/openapi.yaml (the documented profile
			// leaves requestId out where the pages' samples do).
			post := func(path string, body any, opts ...reqOpt) (int, map[string]any) {
				t.Helper()
				return e.exchange(http.MethodPost, path, body, opts...)
			}
			data := func(m map[string]any) map[string]any {
				t.Helper()
				d, ok := m["data"].(map[string]any)
				require.True(t, ok, "%v", m)
				return d
			}

			status, key := post("/v1/keys", liveRequest(t, "request-keys-create.json"))
			require.Equal(t, created, status, "%v", key)
			assert.Equal(t, "Production website", data(key)["name"])
			assert.Equal(t, "pk_live", data(key)["prefix"])
			asKey := withKey(data(key)["publicKey"].(string), data(key)["secret"].(string))

			status, acme := post("/v1/sender-ids", liveRequest(t, "request-sender-ids.json"), asKey)
			require.Equal(t, submitted, status, "%v", acme)
			assert.Equal(t, "ACME", data(acme)["title"])
			assert.Equal(t, "pending", data(acme)["status"])
			// The samples send from NairaSMS: the workspace asks for it, and the mock approves it.
			status, naira := post("/v1/sender-ids", M{"sender_id": "NairaSMS", "usecase": "Alerts", "company": "NairaSMS"}, asKey)
			require.Equal(t, submitted, status, "%v", naira)
			require.NoError(t, e.srv.ApproveSenderID(data(naira)["_id"].(string)))

			status, send := post("/v1/sms/send", liveRequest(t, "request-sms-send.json"), asKey)
			require.Equal(t, http.StatusAccepted, status, "%v", send)
			assert.Equal(t, "SMS request accepted.", send["message"])
			status, campaign := post("/v1/sms/campaigns", liveRequest(t, "request-sms-campaigns.json"), asKey)
			require.Equal(t, http.StatusAccepted, status, "%v", campaign)

			status, otp := post("/v1/otp/send", liveRequest(t, "request-otp-send.json"), asKey)
			require.Equal(t, http.StatusOK, status, "%v", otp)
			assert.Equal(t, "2348025671695", data(otp)["phone_number"])
			_, pin, err := e.srv.LatestOTP("08025671695")
			require.NoError(t, err)
			assert.Regexp(t, `^[0-9]{6}$`, pin, "pin_type numeric, pin_length 6")

			status, verify := post("/v1/otp/verify", liveRequest(t, "request-otp-verify.json"), asKey)
			require.Equal(t, http.StatusNotFound, status, "read, and no such pin: %v", verify)
			assert.Equal(t, "not_found", verify["error"].(map[string]any)["code"])

			msgs := e.srv.Messages(mockserver.Filter{})
			assert.Len(t, msgs, 4, "the SMS, the campaign's two, the OTP")
		})
	}
}
