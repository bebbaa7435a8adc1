package mockserver_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestFaultControls: adding, listing and clearing fault rules.
func TestFaultControls(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"path": "/v1/balance", "status": 503, "times": 2, "retryAfter": 3}}}).wantStatus(http.StatusOK)
	require.Len(t, r.list("rules"), 1)
	assert.Equal(t, 2, r.int("rules.0.times"))
	f := e.do(http.MethodGet, "/v1/balance", nil).wantError(503, "server_error")
	assert.Equal(t, "3", f.Header.Get("Retry-After"))
	assert.Equal(t, 1, e.do(http.MethodGet, "/_mock/faults", nil).wantStatus(200).int("rules.0.times"))
	e.do(http.MethodGet, "/v1/balance", nil).wantError(503, "server_error")
	e.do(http.MethodGet, "/v1/balance", nil).wantStatus(http.StatusOK)
	assert.Empty(t, e.do(http.MethodGet, "/_mock/faults", nil).wantStatus(200).list("rules"))

	// Method filter, path prefix, order, and DELETE.
	r = e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{
		{"method": "GET", "path": "/v1/sms/*", "status": 500},
		{"path": "/v1/sms/*", "status": 502, "times": 1},
	}}).wantStatus(http.StatusOK)
	assert.Len(t, r.list("rules"), 2)
	e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantError(500, "server_error")
	e.do(http.MethodPost, "/v1/sms/campaigns", sms([]string{num(1)})).wantError(502, "server_error")
	e.send(sms(num(1)))
	e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantError(500, "server_error") // no times: until cleared
	e.do(http.MethodGet, "/v1/balance", nil).wantStatus(http.StatusOK)
	r = e.do(http.MethodDelete, "/_mock/faults", nil).wantStatus(http.StatusOK)
	assert.Empty(t, r.list("rules"))
	assert.Equal(t, 1, e.campaignTotal())
	assert.Empty(t, e.srv.Faults())

	e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"status": 200}}}).wantError(400, "bad_request")
	e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"latency": "2m"}}}).wantError(400, "bad_request")
	e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"latency": "fast"}}}).wantError(400, "bad_request")
	e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"times": -1}}}).wantError(400, "bad_request")
	e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"colour": "red"}}}).wantError(400, "bad_request")
	assert.Empty(t, e.srv.Faults(), "a rejected list adds nothing")
}

// TestFaultLatency: a latency fault delays the request.
func TestFaultLatency(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const latency = 150 * time.Millisecond
	r := e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"path": "/v1/balance", "latency": "150ms", "times": 1}}}).wantStatus(http.StatusOK)
	assert.Equal(t, "150ms", r.str("rules.0.latency"))
	start := time.Now()
	e.do(http.MethodGet, "/v1/balance", nil).wantStatus(http.StatusOK)
	assert.GreaterOrEqual(t, time.Since(start), latency)
	assert.Empty(t, e.srv.Faults())
}

// TestFaultDrop: a drop fault commits the request and closes the connection.
func TestFaultDrop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"path": "/v1/sms/send", "drop": true, "times": 1}}}).wantStatus(http.StatusOK)
	body := sms([]string{num(1), num(2)}, "reference", "dropped-1")
	_, err := e.try(http.MethodPost, "/v1/sms/send", body)
	require.Error(t, err, "the client sees a broken connection")

	// Yet the campaign exists and was charged.
	assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.ModeLive))
	l := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	require.Equal(t, 1, l.int("pagination.total"))
	assert.Equal(t, "dropped-1", l.str("data.0.reference"))
	reqs := e.srv.Requests()
	require.NotEmpty(t, reqs)
	assert.Equal(t, "/v1/sms/send", reqs[0].Path)
	assert.Equal(t, http.StatusAccepted, reqs[0].Status)

	// A retry with the reference replays it: no second debit.
	r := e.send(body)
	assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, l.str("data.0._id"), r.str("campaign.id"))
	assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.ModeLive))
}

func TestFaultRules(t *testing.T) {
	t.Parallel()
	t.Run("at most MaxFaultRules", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		rules := make([]M, mockserver.MaxFaultRules+1)
		for i := range rules {
			rules[i] = M{"path": "/v1/balance", "status": 503, "times": 1}
		}
		r := e.do(http.MethodPost, "/_mock/faults", M{"rules": rules}).wantError(http.StatusBadRequest, "bad_request")
		assert.Equal(t, "rules", r.str("error.field"))
		assert.Empty(t, e.srv.Faults())

		e.do(http.MethodPost, "/_mock/faults", M{"rules": rules[:mockserver.MaxFaultRules-1]}).wantStatus(http.StatusOK)
		e.do(http.MethodPost, "/_mock/faults", M{"rules": rules[:2]}).wantError(http.StatusBadRequest, "bad_request")
		require.NoError(t, e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/balance", Status: 503}))
		assert.Error(t, e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/balance", Status: 503}))
		assert.Len(t, e.srv.Faults(), mockserver.MaxFaultRules)
	})

	t.Run("every rule is listed, whatever its probability", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		rules := make([]M, 50)
		for i := range rules {
			rules[i] = M{"path": "/v1/balance", "status": 503, "probability": 0.01}
		}
		r := e.do(http.MethodPost, "/_mock/faults", M{"rules": rules}).wantStatus(http.StatusOK)
		assert.Len(t, r.list("rules"), 50)
		assert.Len(t, e.do(http.MethodGet, "/_mock/faults", nil).list("rules"), 50)
		assert.Len(t, e.srv.Faults(), 50)
	})

	t.Run("a path must match a /v1 route", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		tests := []struct {
			path string
			ok   bool
		}{
			{"/v1/balance", true},
			{"/v1/sms/campaigns/65a1b2c3d4e5f60718293a4b/status", true},
			{"/v1/sms/campaigns/*", true},
			{"/v1/sms/campaigns/65a1*", true},
			{"/v1/sm*", true},
			{"/v1/*", true},
			{"*", true},
			{"/v2/balance", false},
			{"/v1/balanc", false},
			{"/v1/balance/", false},
			{"/v1/keys/x/y", false},
			{"/v1/sms/campaigns/x/statuses", false},
			{"/_mock/reset", false}, // faults never apply to controls
			{"/_mock/*", false},
			{"balance", false},
		}
		for _, tt := range tests {
			body := M{"rules": []M{{"path": "/v1/balance", "status": 503}, {"status": 500}, {"path": tt.path, "status": 503}}}
			r := e.do(http.MethodPost, "/_mock/faults", body)
			if tt.ok {
				r.wantStatus(http.StatusOK)
				e.srv.ClearFaults()
				continue
			}
			r.wantError(http.StatusBadRequest, "bad_request")
			assert.Equal(t, "rules[2].path", r.str("error.field"), tt.path)
			assert.Empty(t, e.srv.Faults(), "all or none: %s", tt.path)
		}
	})
}
