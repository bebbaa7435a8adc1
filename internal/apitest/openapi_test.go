package apitest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	reqID  = "req-0123456789abcdef01234567"
	oid1   = "65a1b2c3d4e5f60718293a4b"
	oid2   = "65a1b2c3d4e5f60718293a4c"
	msgID  = "3017600245086449408013699"
	pinID  = "9f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
	pubKey = "pk_live_0123456789ABCDEFabcdefgh"
	secret = "sk_live_0123456789ABCDEFGHIJabcdefghij0123456789"
)

// newRequest is a request to any host: routing uses only the method and the path.
func newRequest(method, target string) *http.Request {
	return httptest.NewRequest(method, "http://api.example.test"+target, nil)
}

// contentJSON is the header of a response that carries no X-Request-Id, as the service's
// documented samples show none.
func contentJSON() http.Header { return http.Header{"Content-Type": {"application/json"}} }

func jsonHeader(extra ...string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Request-Id", reqID)
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

func errorBody(code string) string {
	return `{"error":{"code":"` + code + `","message":"Something went wrong."},"requestId":"` + reqID + `"}`
}

const keyJSON = `{"_id":"` + oid1 + `","name":"Backend","prefix":"pk_live","publicKey":"` + pubKey + `",
	"scopes":{"sms":true,"otp":false,"campaigns":true,"sender_ids":false,"balance":true},
	"createdAt":"2026-11-21T10:00:00Z","expiresAt":null,"revokedAt":null,"lastUsedAt":null}`

const keyWithSecretJSON = `{"_id":"` + oid1 + `","name":"Backend","prefix":"pk_live","publicKey":"` + pubKey + `",
	"secret":"` + secret + `",
	"scopes":{"sms":true,"otp":false,"campaigns":true,"sender_ids":false,"balance":true},
	"createdAt":"2026-11-21T10:00:00Z","expiresAt":"2027-02-19T10:00:00Z","revokedAt":null,"lastUsedAt":null}`

const acceptedJSON = `{"message":"SMS request accepted.","campaign":{"id":"` + oid1 + `","status":"processing",
	"message_id":null,"recipients":2,"amount":6.40,"currency":"NGN","sms_parts":1},"requestId":"` + reqID + `"}`

const campaignItemJSON = `{"_id":"` + oid2 + `","senderId":"MOCKSMS","recipientCount":2,"amount":6.40,
	"status":"sent","currency":"NGN","channel":"generic","smsParts":1,"messageId":"` + msgID + `",
	"reference":"order-1042","createdAt":"2026-11-21T10:00:01.123456Z"}`

const senderIDJSON = `{"_id":"` + oid1 + `","title":"MYBRAND","status":"pending","country":"Nigeria",
	"usecase":"Order notifications.","company":"My Brand Ltd","createdAt":"2026-11-21T10:00:00Z"}`

const workspaceJSON = `{"url":"http://127.0.0.1:4010","workspaceId":"` + oid1 + `","dashboardToken":"eyJ.e30.c2ln",
	"liveKey":"` + pubKey + `","liveSecret":"` + secret + `","testKey":"pk_test_0123456789ABCDEFabcdefgh",
	"testSecret":"sk_test_0123456789ABCDEFGHIJabcdefghij0123456789","senderId":"MOCKSMS","requestId":"` + reqID + `"}`

const messageJSON = `{"id":"` + oid2 + `-0","to":"2348025671695","from":"MOCKSMS","text":"Your code is 482913.","kind":"otp",
	"channel":"generic","parts":1,"encoding":"GSM-7","campaignId":null,"reference":null,"status":"delivered","cost":3.20,"currency":"NGN",
	"pinId":"` + pinID + `","pin":"482913","verified":false,"createdAt":"2026-11-21T10:00:00Z",
	"updatedAt":"2026-11-21T10:00:00Z","workspaceId":"` + oid1 + `","mode":"test"}`

const smsMessageJSON = `{"id":"` + oid2 + `-1","to":"2348025671695","from":"MOCKSMS","text":"Hello Ada","kind":"sms",
	"channel":"generic","parts":1,"encoding":"GSM-7","campaignId":"` + oid2 + `","reference":"order-7","status":"sent","cost":3.20,"currency":"NGN",
	"createdAt":"2026-11-21T10:00:00Z","updatedAt":"2026-11-21T10:00:00Z","workspaceId":"` + oid1 + `","mode":"live"}`

const workspaceCampaignJSON = `{"_id":"` + oid2 + `","senderId":"MOCKSMS","recipientCount":2,"amount":6.40,
	"status":"sent","currency":"NGN","channel":"generic","smsParts":1,"messageId":"` + msgID + `",
	"reference":null,"createdAt":"2026-11-21T10:00:01.123456Z","mode":"test","delivery":"sent",
	"counts":{"sent":1,"delivered":0,"failed":1,"dnd":0}}`

type responseCase struct {
	name   string
	method string
	path   string
	status int
	header http.Header
	body   string
}

func TestDocumentLoadsAndValidates(t *testing.T) {
	t.Parallel()
	v := NewValidator(t)
	require.NotNil(t, v)
	doc := v.Document()
	require.NotNil(t, doc)
	assert.Equal(t, "3.0.3", doc.OpenAPI)
	assert.Nil(t, doc.Servers, "servers are removed so any host routes")
	assert.Same(t, v, NewValidator(t), "the document is loaded once per process")

	ops := map[string][]int{
		"POST /v1/keys":                     {400, 401, 405, 413, 415, 500, 502, 503},
		"GET /v1/keys":                      {401, 405, 500, 502, 503},
		"DELETE /v1/keys/{id}":              {401, 404, 405, 500, 502, 503},
		"POST /v1/sms/send":                 {400, 401, 402, 403, 405, 409, 413, 415, 429, 500, 502, 503},
		"POST /v1/sms/campaigns":            {400, 401, 402, 403, 405, 409, 413, 415, 429, 500, 502, 503},
		"GET /v1/sms/campaigns":             {400, 401, 403, 405, 429, 500, 502, 503},
		"GET /v1/sms/campaigns/{id}/status": {400, 401, 403, 404, 405, 409, 429, 500, 502, 503},
		"POST /v1/otp/send":                 {400, 401, 402, 403, 405, 413, 415, 429, 500, 502, 503},
		"POST /v1/otp/verify":               {400, 401, 403, 404, 405, 413, 415, 429, 500, 502, 503},
		"GET /v1/balance":                   {401, 403, 405, 429, 500, 502, 503},
		"POST /v1/sender-ids":               {400, 401, 403, 405, 409, 413, 415, 429, 500, 502, 503},
		"GET /v1/sender-ids":                {400, 401, 403, 405, 429, 500, 502, 503},
	}
	found := 0
	for path, item := range doc.Paths.Map() {
		assert.True(t, strings.HasPrefix(path, "/v1/"), "path %s", path)
		for method, op := range item.Operations() {
			name := method + " " + path
			statuses, ok := ops[name]
			if !assert.True(t, ok, "undocumented operation %s", name) {
				continue
			}
			found++
			assert.NotEmpty(t, op.OperationID, name)
			assert.NotNil(t, op.Responses.Default(), "%s: default response", name)
			for _, s := range statuses {
				ref := op.Responses.Status(s)
				if assert.NotNil(t, ref, "%s: %d", name, s) {
					mt := ref.Value.Content.Get("application/json")
					if assert.NotNil(t, mt, "%s: %d content", name, s) {
						assert.Equal(t, "#/components/schemas/Error", mt.Schema.Ref, "%s: %d schema", name, s)
					}
				}
			}
			if strings.HasPrefix(path, "/v1/keys") {
				require.NotNil(t, op.Security, name)
				assert.Contains(t, (*op.Security)[0], "DashboardJWT", name)
			} else {
				assert.Nil(t, op.Security, "%s uses the document's API-key security", name)
			}
		}
	}
	assert.Equal(t, len(ops), found)
	require.Len(t, doc.Security, 1)
	assert.Len(t, doc.Security[0], 2, "X-API-Key and X-API-Secret are required together")
}

// TestDocumentLinks checks that the links stateful tools follow (create -> status, send OTP ->
// verify, create key -> revoke) name operations that exist and read members the answers have.
func TestDocumentLinks(t *testing.T) {
	t.Parallel()
	doc := NewValidator(t).Document()
	ops := map[string]bool{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ops[op.OperationID] = true
		}
	}
	want := map[string]string{ // link name -> the operation it leads to
		"GetCampaignStatus": "getCampaignStatus", "VerifyOtp": "verifyOtp", "RevokeKey": "revokeKey",
	}
	found := map[string]bool{}
	check := func(where string, links openapi3.Links) {
		for name, l := range links {
			require.NotNil(t, l.Value, "%s: link %s", where, name)
			assert.True(t, ops[l.Value.OperationID], "%s: link %s names unknown operation %q", where, name, l.Value.OperationID)
			if op, ok := want[name]; ok {
				assert.Equal(t, op, l.Value.OperationID, "%s: link %s", where, name)
				found[name] = true
			}
		}
	}
	for name, r := range doc.Components.Responses {
		check("response "+name, r.Value.Links)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, r := range op.Responses.Map() {
				check(method+" "+path+" "+status, r.Value.Links)
			}
		}
	}
	for name := range want {
		assert.True(t, found[name], "link %s is missing", name)
	}
}

func TestMockDocumentLoadsAndValidates(t *testing.T) {
	t.Parallel()
	doc := NewValidator(t).MockDocument()
	require.NotNil(t, doc)
	assert.Equal(t, "3.0.3", doc.OpenAPI)
	assert.Nil(t, doc.Servers, "servers are removed so any host routes")
	require.NotNil(t, doc.Security)
	assert.Empty(t, doc.Security, "the controls need no credentials")

	want := []string{
		"POST /_mock/workspaces", "POST /_mock/workspaces/{id}/balance",
		"POST /_mock/sender-ids/{id}/approve", "POST /_mock/sender-ids/{id}/block",
		"POST /_mock/campaigns/{id}/deliver", "POST /_mock/dnd", "GET /_mock/otps/latest",
		"POST /_mock/clock", "POST /_mock/faults", "GET /_mock/faults", "DELETE /_mock/faults",
		"GET /_mock/requests", "POST /_mock/reset", "GET /_mock/messages", "DELETE /_mock/messages",
		"GET /_mock/events", "GET /", "GET /_mock/conversations", "GET /_mock/workspaces",
		"GET /_mock/workspaces/{id}/campaigns", "GET /_mock/workspaces/{id}/sender-ids", "GET /_mock/inbox/{asset}",
		"POST /_mock/deliver", "GET /_mock/messages/{id}",
	}
	var got []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name := method + " " + path
			got = append(got, name)
			assert.NotEmpty(t, op.OperationID, name)
			assert.NotNil(t, op.Responses.Default(), "%s: default response", name)
			assert.NotNil(t, op.Responses.Status(http.StatusForbidden), "%s: the 403 of the Host and Origin checks", name)
			if method == http.MethodPost {
				assert.NotNil(t, op.Responses.Status(http.StatusUnsupportedMediaType), "%s: 415", name)
			}
		}
	}
	assert.ElementsMatch(t, want, got)
}

// TestDocumentsHaveExamples checks that every parameter, request body and response of both
// documents has an example (contract-testing tools such as Dredd need them), and that each
// example matches its schema.
func TestDocumentsHaveExamples(t *testing.T) {
	t.Parallel()
	v := NewValidator(t)
	for _, doc := range []*openapi3.T{v.Document(), v.MockDocument()} {
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				name := method + " " + path
				for _, p := range append(item.Parameters, op.Parameters...) {
					param := p.Value
					ex := param.Example
					if ex == nil && param.Schema != nil {
						ex = param.Schema.Value.Example
					}
					if assert.NotNil(t, ex, "%s: parameter %s has no example", name, param.Name) && param.Schema != nil {
						assert.NoError(t, param.Schema.Value.VisitJSON(ex), "%s: example of parameter %s", name, param.Name)
					}
				}
				if op.RequestBody != nil {
					for ct, mt := range op.RequestBody.Value.Content {
						checkExample(t, fmt.Sprintf("%s request %s", name, ct), mt)
					}
				}
				for status, ref := range op.Responses.Map() {
					for ct, mt := range ref.Value.Content {
						checkExample(t, fmt.Sprintf("%s %s %s", name, status, ct), mt)
					}
				}
			}
		}
	}
}

func checkExample(t *testing.T, where string, mt *openapi3.MediaType) {
	t.Helper()
	ex := mt.Example
	if ex == nil && mt.Schema != nil {
		ex = mt.Schema.Value.Example
	}
	if !assert.NotNil(t, ex, "%s has no example", where) || mt.Schema == nil {
		return
	}
	// Through JSON, as a tool would send it: YAML's numbers and maps become JSON's.
	data, err := json.Marshal(ex)
	require.NoError(t, err, where)
	var value any
	require.NoError(t, json.Unmarshal(data, &value), where)
	assert.NoError(t, mt.Schema.Value.VisitJSON(value), "%s: example does not match its schema", where)
}

// TestDocumentSchemasAreClosedOverRequired checks that every required member of every object
// schema is also declared, so that a typo in either list cannot go unnoticed.
func TestDocumentSchemasAreClosedOverRequired(t *testing.T) {
	t.Parallel()
	v := NewValidator(t)
	seen := map[*openapi3.Schema]bool{}
	var walk func(where string, ref *openapi3.SchemaRef)
	walk = func(where string, ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if len(s.Properties) > 0 {
			for _, name := range s.Required {
				assert.Contains(t, s.Properties, name, "%s: required %q is not a property", where, name)
			}
		}
		for name, p := range s.Properties {
			walk(where+"."+name, p)
		}
		walk(where+"[]", s.Items)
		for i, sub := range s.AllOf {
			walk(fmt.Sprintf("%s/allOf[%d]", where, i), sub)
		}
		for i, sub := range s.OneOf {
			walk(fmt.Sprintf("%s/oneOf[%d]", where, i), sub)
		}
	}
	for _, doc := range []*openapi3.T{v.Document(), v.MockDocument()} {
		for name, ref := range doc.Components.Schemas {
			walk(name, ref)
		}
		for name, ref := range doc.Components.Responses {
			for mt, m := range ref.Value.Content {
				walk(name+" "+mt, m.Schema)
			}
		}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				for status, ref := range op.Responses.Map() {
					for _, m := range ref.Value.Content {
						walk(fmt.Sprintf("%s %s %s", method, path, status), m.Schema)
					}
				}
			}
		}
	}
	assert.NotEmpty(t, seen)
}

func TestValidResponses(t *testing.T) {
	t.Parallel()
	v := NewValidator(t)
	cases := []responseCase{
		// The service's own samples, verbatim (LIVE-DOCS: sms-send, otp-send, otp-verify,
		// sender-ids, balance, errors), with no X-Request-Id header: the document must accept
		// what the live service documents.
		{"live send sample", "POST", "/v1/sms/send", 202, contentJSON(),
			`{"message":"SMS request accepted.","campaign":{"id":"667000000000000000000001","status":"sent","message_id":"3017600245086449408013699","recipients":1,"amount":3.2,"currency":"NGN","sms_parts":1},"requestId":"req-123"}`},
		{"live otp send sample", "POST", "/v1/otp/send", 200, contentJSON(),
			`{"data":{"smsStatus":"Message Sent","phone_number":"2348025671695","pinId":"c8dcd048-5e7f-4347-8c89-4470c3af0b","status":"200"}}`},
		{"live otp verify sample", "POST", "/v1/otp/verify", 200, contentJSON(),
			`{"data":{"pinId":"c8dcd048-5e7f-4347-8c89-4470c3af0b","verified":true,"msisdn":"2348025671695"}}`},
		{"live sender ids sample", "GET", "/v1/sender-ids", 200, contentJSON(),
			`{"data":[{"title":"ACME","status":"active","country":"Nigeria"}],"count":1}`},
		{"provider sender id timestamp", "GET", "/v1/sender-ids", 200, contentJSON(),
			`{"data":[{"title":"ACME","status":"active","country":"Nigeria","createdAt":"2025-05-12 10:20:27"}],"count":1}`},
		{"live balance sample", "GET", "/v1/balance", 200, contentJSON(),
			`{"data":{"balance":15000,"cashback":0,"currency":"NGN"},"requestId":"req-123"}`},
		{"live error sample", "POST", "/v1/sms/send", 402, contentJSON(),
			`{"error":{"code":"insufficient_balance","message":"Insufficient wallet balance."},"requestId":"req-123"}`},
		{"create key", "POST", "/v1/keys", 201, jsonHeader(),
			`{"data":` + keyWithSecretJSON + `,"requestId":"` + reqID + `"}`},
		{"list keys", "GET", "/v1/keys", 200, jsonHeader(),
			`{"data":[` + keyJSON + `],"count":1,"requestId":"` + reqID + `"}`},
		{"list keys empty", "GET", "/v1/keys", 200, jsonHeader(),
			`{"data":[],"count":0,"requestId":"` + reqID + `"}`},
		{"revoke key", "DELETE", "/v1/keys/" + oid1, 200, jsonHeader(),
			`{"data":` + strings.Replace(keyJSON, `"revokedAt":null`, `"revokedAt":"2026-11-21T11:00:00Z"`, 1) +
				`,"requestId":"` + reqID + `"}`},
		{"send processing", "POST", "/v1/sms/send", 202, jsonHeader(), acceptedJSON},
		{"send sent", "POST", "/v1/sms/send", 202, jsonHeader(),
			`{"message":"SMS request accepted.","campaign":{"id":"` + oid1 + `","status":"sent","message_id":"` + msgID +
				`","recipients":1,"amount":3.2,"currency":"NGN","sms_parts":1},"requestId":"` + reqID + `"}`},
		{"send replayed", "POST", "/v1/sms/send", 202, jsonHeader("Idempotent-Replayed", "true"), acceptedJSON},
		{"send failed refunded", "POST", "/v1/sms/send", 202, jsonHeader(),
			strings.Replace(strings.Replace(acceptedJSON, `"processing"`, `"failed"`, 1), "6.40", "0.00", 1)},
		{"send rate-limit headers", "POST", "/v1/sms/send", 202,
			jsonHeader("X-RateLimit-Limit", "60", "X-RateLimit-Remaining", "59", "X-RateLimit-Reset", "1795262460"), acceptedJSON},
		{"create campaign", "POST", "/v1/sms/campaigns", 202, jsonHeader(), acceptedJSON},
		{"list campaigns", "GET", "/v1/sms/campaigns?page=1&limit=20", 200, jsonHeader(),
			`{"data":[` + campaignItemJSON + `,` +
				strings.NewReplacer(`"messageId":"`+msgID+`"`, `"messageId":null`, `"reference":"order-1042"`, `"reference":null`,
					`"status":"sent"`, `"status":"processing"`).Replace(campaignItemJSON) +
				`],"pagination":{"page":1,"limit":20,"total":2},"requestId":"` + reqID + `"}`},
		{"list campaigns, the spec's members only", "GET", "/v1/sms/campaigns", 200, contentJSON(),
			`{"data":[{"_id":"` + oid2 + `","senderId":"MOCKSMS","recipientCount":2,"amount":6.4,"status":"sent"}],"pagination":{"page":1,"limit":20,"total":1}}`},
		{"list campaigns past the end", "GET", "/v1/sms/campaigns?page=9", 200, jsonHeader(),
			`{"data":[],"pagination":{"page":9,"limit":20,"total":2},"requestId":"` + reqID + `"}`},
		{"delivery status", "GET", "/v1/sms/campaigns/" + oid1 + "/status", 200, jsonHeader(),
			`{"data":{"campaignId":"` + oid1 + `","messageId":"` + msgID + `","status":"partially_delivered",
			"counts":{"sent":0,"delivered":1,"failed":0,"dnd":1},
			"recipients":[{"to":"2348025671695","status":"delivered","updatedAt":"2026-11-21T10:00:05Z"},
			{"to":"2348031234567","status":"dnd","updatedAt":"2026-11-21T10:00:00Z"}]},
			"pagination":{"page":1,"limit":20,"total":2},"requestId":"` + reqID + `"}`},
		{"delivery status processing", "GET", "/v1/sms/campaigns/" + oid1 + "/status", 200, jsonHeader(),
			`{"data":{"campaignId":"` + oid1 + `","messageId":null,"status":"processing",
			"counts":{"sent":0,"delivered":0,"failed":0,"dnd":0},"recipients":[]},
			"pagination":{"page":1,"limit":20,"total":0},"requestId":"` + reqID + `"}`},
		{"delivery status failed", "GET", "/v1/sms/campaigns/" + oid1 + "/status", 200, jsonHeader(),
			`{"data":{"campaignId":"` + oid1 + `","messageId":null,"status":"failed",
			"counts":{"sent":0,"delivered":0,"failed":1,"dnd":0},
			"recipients":[{"to":"2348025671695","status":"failed","updatedAt":"2026-11-21T10:00:00Z"}]},
			"pagination":{"page":1,"limit":20,"total":1},"requestId":"` + reqID + `"}`},
		{"otp send", "POST", "/v1/otp/send", 200, jsonHeader(),
			`{"data":{"smsStatus":"Message Sent","phone_number":"2348025671695","pinId":"` + pinID +
				`","status":"200","amount":3.20,"currency":"NGN"},"requestId":"` + reqID + `"}`},
		{"otp verify", "POST", "/v1/otp/verify", 200, jsonHeader(),
			`{"data":{"pinId":"` + pinID + `","verified":true,"msisdn":"2348025671695","attemptsRemaining":5},"requestId":"` + reqID + `"}`},
		{"otp verify wrong pin", "POST", "/v1/otp/verify", 200, jsonHeader(),
			`{"data":{"pinId":"` + pinID + `","verified":false,"msisdn":"2348025671695","attemptsRemaining":0},"requestId":"` + reqID + `"}`},
		{"balance", "GET", "/v1/balance", 200, jsonHeader(),
			`{"data":{"balance":10000.00,"cashback":0.00,"currency":"NGN"},"requestId":"` + reqID + `"}`},
		{"request sender ID", "POST", "/v1/sender-ids", 201, jsonHeader(),
			`{"message":"Sender ID request submitted.","data":` + senderIDJSON + `,"requestId":"` + reqID + `"}`},
		{"list sender IDs", "GET", "/v1/sender-ids?status=pending", 200, jsonHeader(),
			`{"data":[` + senderIDJSON + `],"count":1,"requestId":"` + reqID + `"}`},
		{"content type with charset", "GET", "/v1/balance", 200,
			jsonHeader("Content-Type", "application/json; charset=utf-8"),
			`{"data":{"balance":1.5,"cashback":0,"currency":"NGN"},"requestId":"` + reqID + `"}`},

		// Errors.
		{"400 with field", "POST", "/v1/sms/send", 400, jsonHeader(),
			`{"error":{"code":"bad_request","message":"to[3] is not a phone number.","field":"to[3]"},"requestId":"` + reqID + `"}`},
		{"401", "GET", "/v1/balance", 401, jsonHeader(), errorBody("unauthorized")},
		{"401 keys", "GET", "/v1/keys", 401, jsonHeader(), errorBody("unauthorized")},
		{"402", "POST", "/v1/sms/campaigns", 402, jsonHeader(), errorBody("insufficient_balance")},
		{"403 with scope", "GET", "/v1/balance", 403, jsonHeader(),
			`{"error":{"code":"insufficient_scope","message":"This key lacks the balance scope.","scope":"balance"},"requestId":"` + reqID + `"}`},
		{"404 id", "DELETE", "/v1/keys/" + oid2, 404, jsonHeader(), errorBody("not_found")},
		{"404 unknown path", "GET", "/v1/nope", 404, jsonHeader(), errorBody("not_found")},
		{"405 declared", "POST", "/v1/balance", 405, jsonHeader("Allow", "GET"), errorBody("method_not_allowed")},
		{"409", "GET", "/v1/sms/campaigns/" + oid1 + "/status", 409, jsonHeader(), errorBody("conflict")},
		{"413", "POST", "/v1/sender-ids", 413, jsonHeader(), errorBody("payload_too_large")},
		{"415", "POST", "/v1/otp/send", 415, jsonHeader(), errorBody("unsupported_media_type")},
		{"429", "POST", "/v1/otp/verify", 429, jsonHeader("Retry-After", "30"), errorBody("rate_limited")},
		{"500", "GET", "/v1/sender-ids", 500, jsonHeader(), errorBody("server_error")},
		{"502", "POST", "/v1/sms/send", 502, jsonHeader(), errorBody("server_error")},
		{"503 with Retry-After", "POST", "/v1/sms/send", 503, jsonHeader("Retry-After", "2"), errorBody("server_error")},
		{"default status", "GET", "/v1/balance", 504, jsonHeader(), errorBody("server_error")},
		{"HEAD of a GET path", "HEAD", "/v1/balance", 200, jsonHeader(), ``},

		// The mock's controls, against api/mock.openapi.yaml.
		{"mock reset", "POST", "/_mock/reset", 200, jsonHeader(), `{"reset":true,"requestId":"` + reqID + `"}`},
		{"mock workspace", "POST", "/_mock/workspaces", 201, jsonHeader(), workspaceJSON},
		{"mock balance", "POST", "/_mock/workspaces/" + oid1 + "/balance", 200, jsonHeader(),
			`{"workspaceId":"` + oid1 + `","mode":"test","balance":50.50,"currency":"NGN","requestId":"` + reqID + `"}`},
		{"mock approve", "POST", "/_mock/sender-ids/" + oid1 + "/approve", 200, jsonHeader(),
			strings.TrimSuffix(senderIDJSON, "}") + `,"requestId":"` + reqID + `"}`},
		{"mock deliver", "POST", "/_mock/campaigns/" + oid1 + "/deliver", 200, jsonHeader(),
			`{"campaignId":"` + oid1 + `","status":"delivered","counts":{"sent":0,"delivered":2,"failed":0,"dnd":0},"requestId":"` + reqID + `"}`},
		{"mock latest OTP", "GET", "/_mock/otps/latest?to=08025671695", 200, jsonHeader(),
			`{"pinId":"` + pinID + `","pin":"A1B2C3","requestId":"` + reqID + `"}`},
		{"mock clock", "POST", "/_mock/clock", 200, jsonHeader(), `{"now":"2026-11-21T10:10:00Z","requestId":"` + reqID + `"}`},
		{"mock faults", "GET", "/_mock/faults", 200, jsonHeader(),
			`{"rules":[{"path":"/v1/*","latency":"150ms","times":1},{"method":"POST","status":503,"retryAfter":2,"probability":0.5}],"requestId":"` + reqID + `"}`},
		{"mock requests", "GET", "/_mock/requests", 200, jsonHeader(),
			`{"data":[{"method":"POST","path":"/v1/otp/verify","query":"","status":200,"requestId":"` + reqID +
				`","time":"2026-11-21T10:00:00Z","headers":{"X-Api-Secret":["[REDACTED]"]},"body":{"pin":"[REDACTED]"}}],"requestId":"` + reqID + `"}`},
		{"mock messages", "GET", "/_mock/messages?to=08025671695&kind=otp&wait=5s", 200, jsonHeader(),
			`{"data":[` + messageJSON + `],"pagination":{"page":1,"limit":20,"total":1},"requestId":"` + reqID + `"}`},
		{"mock messages cleared", "DELETE", "/_mock/messages", 200, jsonHeader(), `{"cleared":1,"requestId":"` + reqID + `"}`},
		{"mock conversations", "GET", "/_mock/conversations?mode=live&workspaceId=" + oid1 + "&page=1&limit=5", 200, jsonHeader(),
			`{"data":[{"to":"2348025671695","count":2,"latest":` + smsMessageJSON + `}],"pagination":{"page":1,"limit":5,"total":1},"requestId":"` + reqID + `"}`},
		{"mock workspaces", "GET", "/_mock/workspaces", 200, jsonHeader(),
			`{"data":[{"workspaceId":"` + oid1 + `","country":"Nigeria","default":true,"liveBalance":9990.40,"testBalance":10000.00,"currency":"NGN"}],"count":1,"requestId":"` + reqID + `"}`},
		{"mock workspace campaigns", "GET", "/_mock/workspaces/" + oid1 + "/campaigns?mode=test", 200, jsonHeader(),
			`{"data":[` + workspaceCampaignJSON + `],"pagination":{"page":1,"limit":20,"total":1},"requestId":"` + reqID + `"}`},
		{"mock workspace sender IDs", "GET", "/_mock/workspaces/" + oid1 + "/sender-ids", 200, jsonHeader(),
			`{"data":[` + senderIDJSON + `],"count":1,"requestId":"` + reqID + `"}`},
		{"mock inbox script", "GET", "/_mock/inbox/app.js", 200, http.Header{"Content-Type": {"text/javascript; charset=utf-8"}}, "new EventSource('/_mock/events');"},
		{"mock inbox style sheet", "GET", "/_mock/inbox/app.css", 200, http.Header{"Content-Type": {"text/css; charset=utf-8"}}, "body{margin:0}"},
		{"mock inbox icon", "GET", "/_mock/inbox/icon.svg", 200, http.Header{"Content-Type": {"image/svg+xml"}}, "<svg></svg>"},
		{"mock inbox unknown file", "GET", "/_mock/inbox/index.html", 404, jsonHeader(), errorBody("not_found")},
		{"mock 429 of a long poll", "GET", "/_mock/messages?wait=10s", 429, jsonHeader("Retry-After", "1"), errorBody("rate_limited")},
		{"mock events", "GET", "/_mock/events", 200, http.Header{"Content-Type": {"text/event-stream"}},
			"id: 1\nevent: reset\ndata: {}\n\n"},
		{"mock inbox page", "GET", "/", 200, http.Header{"Content-Type": {"text/html; charset=utf-8"}}, "<!doctype html>"},
		{"mock 403 host", "POST", "/_mock/reset", 403, jsonHeader(), errorBody("forbidden")},
		{"mock 404 unknown control", "POST", "/_mock/nothing", 404, jsonHeader(), errorBody("not_found")},
		{"mock 405", "PUT", "/_mock/faults", 405, jsonHeader("Allow", "GET, POST, DELETE"), errorBody("method_not_allowed")},
		{"mock 409", "POST", "/_mock/sender-ids/" + oid1 + "/block", 409, jsonHeader(), errorBody("conflict")},
		{"mock 415", "POST", "/_mock/dnd", 415, jsonHeader(), errorBody("unsupported_media_type")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := v.Response(newRequest(tc.method, tc.path), tc.status, tc.header, []byte(tc.body))
			assert.NoError(t, err)
		})
	}
}

func TestInvalidResponses(t *testing.T) {
	t.Parallel()
	v := NewValidator(t)
	cases := []responseCase{
		{"missing requestId", "GET", "/v1/balance", 401, jsonHeader(),
			`{"error":{"code":"unauthorized","message":"No."}}`},
		{"unknown error code", "GET", "/v1/balance", 401, jsonHeader(), errorBody("no_such_code")},
		{"unknown scope", "GET", "/v1/balance", 403, jsonHeader(),
			`{"error":{"code":"insufficient_scope","message":"No.","scope":"admin"},"requestId":"` + reqID + `"}`},
		{"429 without Retry-After", "POST", "/v1/sms/send", 429, jsonHeader(), errorBody("rate_limited")},
		{"405 without Allow", "POST", "/v1/balance", 405, jsonHeader(), errorBody("method_not_allowed")},
		{"money as string", "GET", "/v1/balance", 200, jsonHeader(),
			`{"data":{"balance":"10000.00","cashback":0,"currency":"NGN"},"requestId":"` + reqID + `"}`},
		{"other currency", "GET", "/v1/balance", 200, jsonHeader(),
			`{"data":{"balance":1,"cashback":0,"currency":"USD"},"requestId":"` + reqID + `"}`},
		{"missing message_id", "POST", "/v1/sms/send", 202, jsonHeader(),
			strings.Replace(acceptedJSON, `"message_id":null,`, ``, 1)},
		{"recipients not integer", "POST", "/v1/sms/send", 202, jsonHeader(),
			strings.Replace(acceptedJSON, `"recipients":2`, `"recipients":2.5`, 1)},
		{"bad Idempotent-Replayed", "POST", "/v1/sms/send", 202, jsonHeader("Idempotent-Replayed", "yes"), acceptedJSON},
		{"unknown campaign status", "GET", "/v1/sms/campaigns", 200, jsonHeader(),
			`{"data":[` + strings.Replace(campaignItemJSON, `"status":"sent"`, `"status":"queued"`, 1) +
				`],"pagination":{"page":1,"limit":20,"total":1},"requestId":"` + reqID + `"}`},
		{"delivery status without messageId", "GET", "/v1/sms/campaigns/" + oid1 + "/status", 200, jsonHeader(),
			`{"data":{"campaignId":"` + oid1 + `","status":"processing","counts":{"sent":0,"delivered":0,"failed":0,"dnd":0},
			"recipients":[]},"pagination":{"page":1,"limit":20,"total":0},"requestId":"` + reqID + `"}`},
		{"missing pagination", "GET", "/v1/sms/campaigns", 200, jsonHeader(),
			`{"data":[],"requestId":"` + reqID + `"}`},
		{"listed campaign without recipientCount", "GET", "/v1/sms/campaigns", 200, jsonHeader(),
			`{"data":[` + strings.Replace(campaignItemJSON, `"recipientCount":2,`, ``, 1) +
				`],"pagination":{"page":1,"limit":20,"total":1},"requestId":"` + reqID + `"}`},
		{"key without lastUsedAt", "GET", "/v1/keys", 200, jsonHeader(),
			`{"data":[` + strings.Replace(keyJSON, `,"lastUsedAt":null`, ``, 1) + `],"count":1,"requestId":"` + reqID + `"}`},
		{"create key without secret", "POST", "/v1/keys", 201, jsonHeader(),
			`{"data":` + keyJSON + `,"requestId":"` + reqID + `"}`},
		{"bad timestamp", "GET", "/v1/sender-ids", 200, jsonHeader(),
			`{"data":[` + strings.Replace(senderIDJSON, "2026-11-21T10:00:00Z", "21/11/2026", 1) + `],"count":1,"requestId":"` + reqID + `"}`},
		{"otp without pinId", "POST", "/v1/otp/send", 200, contentJSON(),
			`{"data":{"smsStatus":"Message Sent","phone_number":"2348025671695","status":"200"}}`},
		{"verify without verified", "POST", "/v1/otp/verify", 200, contentJSON(),
			`{"data":{"pinId":"c8dcd048-5e7f-4347-8c89-4470c3af0b","msisdn":"2348025671695"}}`},
		{"sender id without title", "GET", "/v1/sender-ids", 200, contentJSON(),
			`{"data":[{"status":"active","country":"Nigeria"}],"count":1}`},
		{"sender id timestamp in another format", "GET", "/v1/sender-ids", 200, contentJSON(),
			`{"data":[{"title":"ACME","status":"active","country":"Nigeria","createdAt":"12/05/2025 10:20"}],"count":1}`},
		{"balance without requestId", "GET", "/v1/balance", 200, contentJSON(),
			`{"data":{"balance":15000,"cashback":0,"currency":"NGN"}}`},
		{"otp status as number", "POST", "/v1/otp/send", 200, jsonHeader(),
			`{"data":{"smsStatus":"Message Sent","phone_number":"2348025671695","pinId":"` + pinID +
				`","status":200,"amount":3.20,"currency":"NGN"},"requestId":"` + reqID + `"}`},
		{"phone not normalized", "POST", "/v1/otp/verify", 200, jsonHeader(),
			`{"data":{"pinId":"` + pinID + `","verified":true,"msisdn":"+2348025671695","attemptsRemaining":5},"requestId":"` + reqID + `"}`},
		{"undeclared status", "GET", "/v1/balance", 201, jsonHeader(),
			`{"data":{"balance":1,"cashback":0,"currency":"NGN"},"requestId":"` + reqID + `"}`},
		{"undeclared status success body", "POST", "/v1/sms/send", 200, jsonHeader(), acceptedJSON},
		{"not JSON", "GET", "/v1/balance", 200, jsonHeader(), `<html>`},
		{"empty body", "GET", "/v1/balance", 200, jsonHeader(), ``},
		{"wrong content type", "GET", "/v1/balance", 200, jsonHeader("Content-Type", "text/plain"),
			`{"data":{"balance":1,"cashback":0,"currency":"NGN"},"requestId":"` + reqID + `"}`},
		{"unknown route", "GET", "/v1/nope", 200, jsonHeader(), `{"requestId":"` + reqID + `"}`},
		{"undeclared method", "PUT", "/v1/balance", 200, jsonHeader(), `{"requestId":"` + reqID + `"}`},
		{"HEAD of an unknown path", "HEAD", "/v1/nope", 200, jsonHeader(), ``},
		{"unknown route 404 with bad body", "GET", "/v1/nope", 404, jsonHeader(), `{"error":"not found"}`},

		// The mock's controls.
		{"mock reset without requestId", "POST", "/_mock/reset", 200, jsonHeader(), `{"reset":true}`},
		{"mock reset false", "POST", "/_mock/reset", 200, jsonHeader(), `{"reset":false,"requestId":"` + reqID + `"}`},
		{"mock workspace without secret", "POST", "/_mock/workspaces", 201, jsonHeader(),
			strings.Replace(workspaceJSON, `"liveSecret":"`+secret+`",`, ``, 1)},
		{"mock balance as string", "POST", "/_mock/workspaces/" + oid1 + "/balance", 200, jsonHeader(),
			`{"workspaceId":"` + oid1 + `","mode":"test","balance":"50.50","currency":"NGN","requestId":"` + reqID + `"}`},
		{"mock deliver unknown rollup", "POST", "/_mock/campaigns/" + oid1 + "/deliver", 200, jsonHeader(),
			`{"campaignId":"` + oid1 + `","status":"done","counts":{"sent":0,"delivered":2,"failed":0,"dnd":0},"requestId":"` + reqID + `"}`},
		{"mock fault with unknown member", "GET", "/_mock/faults", 200, jsonHeader(),
			`{"rules":[{"path":"/v1/*","colour":"red"}],"requestId":"` + reqID + `"}`},
		{"mock message of unknown kind", "GET", "/_mock/messages", 200, jsonHeader(),
			`{"data":[` + strings.Replace(messageJSON, `"kind":"otp"`, `"kind":"email"`, 1) + `],"pagination":{"page":1,"limit":20,"total":1},"requestId":"` + reqID + `"}`},
		{"mock message without cost", "GET", "/_mock/messages", 200, jsonHeader(),
			`{"data":[` + strings.Replace(smsMessageJSON, `"cost":3.20,`, ``, 1) + `],"pagination":{"page":1,"limit":20,"total":1},"requestId":"` + reqID + `"}`},
		{"mock messages without pagination", "GET", "/_mock/messages", 200, jsonHeader(),
			`{"data":[` + messageJSON + `],"requestId":"` + reqID + `"}`},
		{"mock conversation without latest", "GET", "/_mock/conversations", 200, jsonHeader(),
			`{"data":[{"to":"2348025671695","count":2}],"pagination":{"page":1,"limit":20,"total":1},"requestId":"` + reqID + `"}`},
		{"mock workspaces with a negative wallet", "GET", "/_mock/workspaces", 200, jsonHeader(),
			`{"data":[{"workspaceId":"` + oid1 + `","country":"Nigeria","default":true,"liveBalance":-1.00,"testBalance":0.00,"currency":"NGN"}],"count":1,"requestId":"` + reqID + `"}`},
		{"mock workspace campaign without counts", "GET", "/_mock/workspaces/" + oid1 + "/campaigns", 200, jsonHeader(),
			`{"data":[` + strings.Replace(workspaceCampaignJSON, `"counts":`, `"tally":`, 1) +
				`],"pagination":{"page":1,"limit":20,"total":1},"requestId":"` + reqID + `"}`},
		{"mock workspace campaign of unknown delivery", "GET", "/_mock/workspaces/" + oid1 + "/campaigns", 200, jsonHeader(),
			`{"data":[` + strings.Replace(workspaceCampaignJSON, `"delivery":"sent"`, `"delivery":"done"`, 1) +
				`],"pagination":{"page":1,"limit":20,"total":1},"requestId":"` + reqID + `"}`},
		{"mock workspace sender IDs without count", "GET", "/_mock/workspaces/" + oid1 + "/sender-ids", 200, jsonHeader(),
			`{"data":[` + senderIDJSON + `],"requestId":"` + reqID + `"}`},
		{"mock inbox asset as JSON", "GET", "/_mock/inbox/app.js", 200, jsonHeader(), `{"requestId":"` + reqID + `"}`},
		{"mock 429 without Retry-After", "GET", "/_mock/events", 429, jsonHeader(), errorBody("rate_limited")},
		{"mock inbox page as JSON", "GET", "/", 200, jsonHeader(), `{"requestId":"` + reqID + `"}`},
		{"mock undeclared status", "POST", "/_mock/reset", 202, jsonHeader(), `{"reset":true,"requestId":"` + reqID + `"}`},
		{"mock 405 without Allow", "PUT", "/_mock/faults", 405, jsonHeader(), errorBody("method_not_allowed")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := v.Response(newRequest(tc.method, tc.path), tc.status, tc.header, []byte(tc.body))
			assert.Error(t, err)
		})
	}
}

func TestRequests(t *testing.T) {
	t.Parallel()
	v := NewValidator(t)
	cases := []struct {
		name   string
		method string
		path   string
		body   string // "" = no body
		valid  bool
	}{
		{"send one number", "POST", "/v1/sms/send",
			`{"to":"08025671695","from":"MOCKSMS","message":"Hello"}`, true},
		{"send many, all members", "POST", "/v1/sms/send",
			`{"to":["+2348025671695","2348031234567"],"from":"MOCKSMS","message":"Hi","channel":"dnd","reference":"order 1042"}`, true},
		{"send missing from", "POST", "/v1/sms/send", `{"to":"2348025671695","message":"Hi"}`, false},
		{"send unknown member", "POST", "/v1/sms/send",
			`{"to":"2348025671695","from":"MOCKSMS","message":"Hi","priority":1}`, false},
		{"send bad phone", "POST", "/v1/sms/send", `{"to":"12345","from":"MOCKSMS","message":"Hi"}`, false},
		{"send numbers as people write them", "POST", "/v1/sms/send",
			`{"to":["+234 803 123 4567","0803-123-4567","(0803) 1234567","8031234567","+234 (0)803 123 4567","0803.123.4567"],"from":"MOCKSMS","message":"Hi"}`, true},
		{"send local number with a zero after the trunk zero", "POST", "/v1/sms/send", `{"to":"00803123456","from":"MOCKSMS","message":"Hi"}`, false},
		{"send separators only", "POST", "/v1/sms/send", `{"to":"(((( -- ))))","from":"MOCKSMS","message":"Hi"}`, false},
		{"send letters in a number", "POST", "/v1/sms/send", `{"to":"0803 CALL ME","from":"MOCKSMS","message":"Hi"}`, false},
		{"send empty array", "POST", "/v1/sms/send", `{"to":[],"from":"MOCKSMS","message":"Hi"}`, false},
		{"send recipient objects", "POST", "/v1/sms/send",
			`{"to":[{"phone":"2348025671695"}],"from":"MOCKSMS","message":"Hi"}`, false},
		{"send bad channel", "POST", "/v1/sms/send",
			`{"to":"2348025671695","from":"MOCKSMS","message":"Hi","channel":"flash"}`, false},
		{"send empty message", "POST", "/v1/sms/send", `{"to":"2348025671695","from":"MOCKSMS","message":""}`, false},
		{"send reference not ASCII", "POST", "/v1/sms/send",
			`{"to":"2348025671695","from":"MOCKSMS","message":"Hi","reference":"ré"}`, false},
		{"send no body", "POST", "/v1/sms/send", "", false},
		{"campaign mixed recipients", "POST", "/v1/sms/campaigns",
			`{"to":["08025671695",{"phone":"2348031234567","name":"Ada"},{"phone":"2348031234568"}],"from":"MOCKSMS","message":"Hi {{name}}"}`, true},
		{"campaign string to", "POST", "/v1/sms/campaigns",
			`{"to":"2348025671695","from":"MOCKSMS","message":"Hi"}`, false},
		{"campaign recipient unknown member", "POST", "/v1/sms/campaigns",
			`{"to":[{"phone":"2348025671695","nick":"A"}],"from":"MOCKSMS","message":"Hi"}`, false},
		{"create key", "POST", "/v1/keys",
			`{"name":"Backend","scopes":{"sms":true,"balance":false},"prefix":"pk_test","expiresInDays":30}`, true},
		{"create key minimal", "POST", "/v1/keys", `{"name":"B","scopes":{"otp":true}}`, true},
		{"create key unknown scope", "POST", "/v1/keys", `{"name":"B","scopes":{"sms":true,"foo":true}}`, false},
		{"create key no true scope", "POST", "/v1/keys", `{"name":"B","scopes":{"sms":false}}`, false},
		{"create key empty scopes", "POST", "/v1/keys", `{"name":"B","scopes":{}}`, false},
		{"create key bad prefix", "POST", "/v1/keys", `{"name":"B","scopes":{"sms":true},"prefix":"pk_prod"}`, false},
		{"create key expiry too long", "POST", "/v1/keys", `{"name":"B","scopes":{"sms":true},"expiresInDays":3651}`, false},
		{"create key missing name", "POST", "/v1/keys", `{"scopes":{"sms":true}}`, false},
		{"create key long name", "POST", "/v1/keys", `{"name":"` + strings.Repeat("n", 101) + `","scopes":{"sms":true}}`, false},
		{"otp send", "POST", "/v1/otp/send",
			`{"to":"08025671695","from":"MOCKSMS","message_text":"Code: < 1234 >","pin_type":"alphanumeric","pin_length":8,"pin_time_to_live":60}`, true},
		{"otp send pin too short", "POST", "/v1/otp/send",
			`{"to":"08025671695","from":"MOCKSMS","message_text":"< 1234 >","pin_length":3}`, false},
		{"otp verify", "POST", "/v1/otp/verify", `{"pin_id":"` + pinID + `","pin":"123456"}`, true},
		{"otp verify pin as number", "POST", "/v1/otp/verify", `{"pin_id":"` + pinID + `","pin":123456}`, false},
		{"sender ID", "POST", "/v1/sender-ids", `{"sender_id":"MyBrand1","usecase":"Alerts","company":"Me"}`, true},
		{"sender ID too long", "POST", "/v1/sender-ids", `{"sender_id":"MyBrand12345","usecase":"Alerts","company":"Me"}`, false},
		{"list campaigns", "GET", "/v1/sms/campaigns?page=2&limit=100", "", true},
		{"list campaigns limit too big", "GET", "/v1/sms/campaigns?limit=101", "", false},
		{"list campaigns page zero", "GET", "/v1/sms/campaigns?page=0", "", false},
		{"list campaigns page not a number", "GET", "/v1/sms/campaigns?page=x", "", false},
		{"status of campaign", "GET", "/v1/sms/campaigns/" + oid1 + "/status?limit=5", "", true},
		{"sender IDs filter", "GET", "/v1/sender-ids?status=active", "", true},
		{"sender IDs bad filter", "GET", "/v1/sender-ids?status=approved", "", false},
		{"revoke key", "DELETE", "/v1/keys/" + oid1, "", true},
		{"balance", "GET", "/v1/balance", "", true},
		{"unknown path", "GET", "/v1/nope", "", false},
		{"mock clock", "POST", "/_mock/clock", `{"advance":"10m"}`, true},
		{"mock clock without body", "POST", "/_mock/clock", "", true},
		{"mock clock advance as number", "POST", "/_mock/clock", `{"advance":600}`, false},
		{"mock workspace", "POST", "/_mock/workspaces", `{"liveBalance":50.5,"country":"Ghana"}`, true},
		{"mock workspace unknown member", "POST", "/_mock/workspaces", `{"liveBalance":1,"extra":1}`, false},
		{"mock balance without mode", "POST", "/_mock/workspaces/" + oid1 + "/balance", `{"balance":1}`, false},
		{"mock faults", "POST", "/_mock/faults", `{"rules":[{"path":"/v1/sms/send","status":503,"times":2,"latency":"1s"}]}`, true},
		{"mock fault status out of range", "POST", "/_mock/faults", `{"rules":[{"status":200}]}`, false},
		{"mock dnd", "POST", "/_mock/dnd", `{"numbers":["08025671695","+2348031234567"]}`, true},
		{"mock dnd bad number", "POST", "/_mock/dnd", `{"numbers":["123"]}`, false},
		{"mock latest OTP", "GET", "/_mock/otps/latest?to=08025671695", "", true},
		{"mock latest OTP without to", "GET", "/_mock/otps/latest", "", false},
		{"mock messages filtered", "GET", "/_mock/messages?kind=sms&mode=live&page=2&limit=50&wait=10s", "", true},
		{"mock messages bad kind", "GET", "/_mock/messages?kind=email", "", false},
		{"mock messages limit too big", "GET", "/_mock/messages?limit=101", "", false},
		{"mock inbox page", "GET", "/", "", true},
		{"mock conversations filtered", "GET", "/_mock/conversations?to=08025671695&mode=test&page=1&limit=100", "", true},
		{"mock conversations bad mode", "GET", "/_mock/conversations?mode=prod", "", false},
		{"mock conversations page 0", "GET", "/_mock/conversations?page=0", "", false},
		{"mock workspaces", "GET", "/_mock/workspaces", "", true},
		{"mock workspace campaigns", "GET", "/_mock/workspaces/" + oid1 + "/campaigns?mode=test&page=2&limit=10", "", true},
		{"mock workspace campaigns bad mode", "GET", "/_mock/workspaces/" + oid1 + "/campaigns?mode=prod", "", false},
		{"mock workspace sender IDs", "GET", "/_mock/workspaces/" + oid1 + "/sender-ids", "", true},
		{"mock inbox script", "GET", "/_mock/inbox/app.js", "", true},
		{"mock inbox unknown file", "GET", "/_mock/inbox/index.html", "", false},
		{"mock events resumed", "GET", "/_mock/events?lastEventId=42", "", true},
		{"mock unknown control", "POST", "/_mock/nothing", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := newRequest(tc.method, tc.path)
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
				req.Header.Set("Content-Type", "application/json")
			}
			err := v.Request(req, body)
			if tc.valid {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}

// recorder is a testing.TB that collects Errorf calls instead of failing.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func TestTransport(t *testing.T) {
	t.Parallel()
	const balanceOK = `{"data":{"balance":10000.00,"cashback":0.00,"currency":"NGN"},"requestId":"` + reqID + `"}`
	var (
		mu       sync.Mutex
		received []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		received = append(received, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", reqID)
		switch r.URL.Path {
		case "/v1/balance":
			if r.URL.Query().Get("bad") != "" {
				_, _ = io.WriteString(w, `{"data":{"balance":"lots"},"requestId":"`+reqID+`"}`)
				return
			}
			_, _ = io.WriteString(w, balanceOK)
		case "/v1/sms/send":
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, acceptedJSON)
		case "/_mock/events":
			// A stream that stays open until the client goes away.
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "id: 1\nevent: reset\ndata: {}\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		default:
			_, _ = io.WriteString(w, `{"not":"described"}`)
		}
	}))
	t.Cleanup(srv.Close)

	t.Run("valid exchange keeps bodies whole", func(t *testing.T) {
		rec := &recorder{TB: t}
		client := &http.Client{Transport: Transport(rec, nil, true)}
		sendBody := `{"to":"2348025671695","from":"MOCKSMS","message":"Hello"}`
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/sms/send", strings.NewReader(sendBody))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer func() { _ = resp.Body.Close() }()
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, http.StatusAccepted, resp.StatusCode)
		assert.JSONEq(t, acceptedJSON, string(got))
		assert.Same(t, req, resp.Request)
		mu.Lock()
		assert.Contains(t, received, sendBody, "the server got the whole request body")
		mu.Unlock()
		assert.Empty(t, rec.errors())
	})

	t.Run("invalid request and response are reported", func(t *testing.T) {
		rec := &recorder{TB: t}
		client := &http.Client{Transport: Transport(rec, http.DefaultTransport, true)}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/sms/send", strings.NewReader(`{"to":"1"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()

		resp, err = client.Get(srv.URL + "/v1/balance?bad=1")
		require.NoError(t, err)
		got, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.NoError(t, err)
		assert.Contains(t, string(got), `"lots"`, "the caller still reads the invalid body")

		errs := rec.errors()
		require.Len(t, errs, 2)
		assert.Contains(t, errs[0], "request does not match")
		assert.Contains(t, errs[1], "response does not match")
	})

	t.Run("requests unchecked when asked", func(t *testing.T) {
		rec := &recorder{TB: t}
		client := &http.Client{Transport: Transport(rec, nil, false)}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/sms/send", strings.NewReader(`{"to":"1"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Empty(t, rec.errors())
	})

	t.Run("mock controls are validated against their document", func(t *testing.T) {
		rec := &recorder{TB: t}
		client := &http.Client{Transport: Transport(rec, nil, false)}
		resp, err := client.Post(srv.URL+"/_mock/reset", "application/json", nil)
		require.NoError(t, err)
		_ = resp.Body.Close()
		errs := rec.errors()
		require.Len(t, errs, 1, "the answer {\"not\":\"described\"} is not a reset's")
		assert.Contains(t, errs[0], "POST /_mock/reset -> 200: response does not match")
	})

	t.Run("event streams are handed over as they come", func(t *testing.T) {
		rec := &recorder{TB: t}
		client := &http.Client{Transport: Transport(rec, nil, true)}
		resp, err := client.Get(srv.URL + "/_mock/events")
		require.NoError(t, err, "the transport returns before the stream ends")
		defer func() { _ = resp.Body.Close() }()
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, "id: 1\n", line)
		assert.Empty(t, rec.errors())
	})

	t.Run("unknown routes", func(t *testing.T) {
		rec := &recorder{TB: t}
		client := &http.Client{Transport: Transport(rec, nil, true)}
		resp, err := client.Get(srv.URL + "/v1/undocumented")
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Len(t, rec.errors(), 2, "unknown route: request and response reported")
	})

	t.Run("transport errors pass through", func(t *testing.T) {
		rec := &recorder{TB: t}
		boom := errors.New("boom")
		base := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, boom })
		client := &http.Client{Transport: Transport(rec, base, true)}
		_, err := client.Get(srv.URL + "/v1/balance")
		require.ErrorIs(t, err, boom)
		assert.Empty(t, rec.errors())
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
