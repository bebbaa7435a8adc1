package mockserver_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// Every store of a long-running mock is bounded (docs/api.md, "Mock memory bounds"). These
// tests set small limits through the options.

// TestWorkspaceLimit: past WithWorkspaceLimit (the default workspace included) a new workspace
// is 409, over HTTP and in Go, and nothing is created; Reset frees the room.
func TestWorkspaceLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithWorkspaceLimit(3))
	created := make([]string, 0, 2)
	for range 2 {
		created = append(created, e.do(http.MethodPost, "/_mock/workspaces", nil).wantStatus(http.StatusCreated).str("workspaceId"))
	}
	r := e.do(http.MethodPost, "/_mock/workspaces", nil).wantError(http.StatusConflict, "conflict")
	assert.Contains(t, r.str("error.message"), "3 workspaces")
	_, err := e.srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "limit")
	for _, id := range created {
		_, err := e.srv.Balance(id, mockserver.Live)
		require.NoError(t, err, "the workspaces made before the limit stay")
	}

	e.srv.Reset()
	e.newWorkspace()
	e.newWorkspace()
	_, err = e.srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.Error(t, err, "the limit holds after a reset too")
}

// TestDNDLimit: the register holds at most WithDNDLimit numbers; numbers already on it do not
// count twice, and a request that would go past the limit is 400 naming numbers and adds
// none of its numbers.
func TestDNDLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithDNDLimit(3))
	steps := []struct {
		name    string
		numbers []string
		status  int
		count   int
	}{
		{"two", []string{num(1), num(2)}, http.StatusOK, 2},
		{"the same two and one more", []string{num(1), "+234" + num(2)[3:], num(3)}, http.StatusOK, 3},
		{"only numbers already on it", []string{num(3), num(1)}, http.StatusOK, 3},
		{"one past the limit, with one on it", []string{num(1), num(4)}, http.StatusBadRequest, 0},
		{"one new number, twice", []string{num(5), num(5)}, http.StatusBadRequest, 0},
	}
	for _, s := range steps {
		r := e.do(http.MethodPost, "/_mock/dnd", M{"numbers": s.numbers})
		if s.status != http.StatusOK {
			r.wantError(s.status, "bad_request")
			assert.Equal(t, "numbers", r.str("error.field"), s.name)
			assert.Contains(t, r.str("error.message"), "at most 3", s.name)
			continue
		}
		r.wantStatus(http.StatusOK)
		assert.Equal(t, s.count, r.int("count"), s.name)
	}
	require.Error(t, e.srv.AddDND(num(6)))

	// A refused request added nothing: num(4) is not on the register, num(1) is.
	e.send(sms([]string{num(1), num(4)}))
	got := map[string]string{}
	for _, m := range e.srv.Messages(mockserver.Filter{}) {
		got[m.To] = string(m.Status)
	}
	assert.Equal(t, map[string]string{num(1): "dnd", num(4): "sent"}, got)
}

// TestOTPRecordsExpire: an OTP's pin record, its per-number bookkeeping and its latest-pin
// entry go two hours after it was sent (an hour at least after any pin expired), once the
// workspace sends again; until then an expired pin says so. Its message stays, verified or not.
func TestOTPRecordsExpire(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	verifiedID, verifiedPin := e.otp(otpBody(num(1)))
	e.verify(verifiedID, verifiedPin).wantStatus(http.StatusOK)
	expiredID, expiredPin := e.otp(otpBody(num(2), "pin_time_to_live", 60))

	require.NoError(t, e.srv.Advance(2*time.Hour-time.Second))
	e.otp(otpBody(num(3)))
	r := e.verify(expiredID, expiredPin).wantError(http.StatusBadRequest, "bad_request")
	assert.Contains(t, r.str("error.message"), "expired", "kept a little under two hours")
	_, _, err := e.srv.LatestOTP(num(2))
	require.NoError(t, err)

	require.NoError(t, e.srv.Advance(time.Second))
	e.otp(otpBody(num(3))) // sending is what forgets the old records
	e.verify(expiredID, expiredPin).wantError(http.StatusNotFound, "not_found")
	e.verify(verifiedID, verifiedPin).wantError(http.StatusNotFound, "not_found")
	for _, n := range []string{num(1), num(2)} {
		_, _, err := e.srv.LatestOTP(n)
		require.Error(t, err, n)
		e.do(http.MethodGet, "/_mock/otps/latest?to="+n, nil).wantError(http.StatusNotFound, "not_found")
	}
	_, _, err = e.srv.LatestOTP(num(3))
	require.NoError(t, err, "the newest pin stays")

	msgs := e.srv.Messages(mockserver.Filter{Kind: "otp", To: num(1)})
	require.Len(t, msgs, 1, "the message outlives its pin record")
	assert.True(t, msgs[0].Verified)
	msgs = e.srv.Messages(mockserver.Filter{Kind: "otp", To: num(2)})
	require.Len(t, msgs, 1)
	assert.False(t, msgs[0].Verified)
}

// TestMessageLimitAcrossWorkspaces: the limit counts every workspace and mode together, and
// forgets the oldest first whichever workspace, mode or kind (campaign or OTP) they are.
func TestMessageLimitAcrossWorkspaces(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithMessageLimit(4))
	other := e.newWorkspace()
	otherLive, otherTest := withKey(other.LiveKey, other.LiveSecret), withKey(other.TestKey, other.TestSecret)

	first := e.send(sms(num(1)), e.live()).str("campaign.id")
	second := e.send(sms(num(2)), otherTest).str("campaign.id")
	e.otp(otpBody(num(3)), e.test())
	fourth := e.send(sms(num(4)), otherLive).str("campaign.id")
	fifth := e.send(sms([]string{num(5), num(6)}), e.live()).str("campaign.id")

	var to []string
	for _, m := range e.srv.Messages(mockserver.Filter{}) {
		to = append(to, m.To)
	}
	assert.Equal(t, []string{num(6), num(5), num(4), num(3)}, to, "the two oldest went, newest first")
	for _, c := range []struct {
		id     string
		key    reqOpt
		status int
	}{
		{first, e.live(), http.StatusNotFound},
		{second, otherTest, http.StatusNotFound},
		{fourth, otherLive, http.StatusOK},
		{fifth, e.live(), http.StatusOK},
	} {
		e.do(http.MethodGet, "/v1/sms/campaigns/"+c.id+"/status", nil, c.key).wantStatus(c.status)
	}
}
