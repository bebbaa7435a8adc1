package mockserver_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestReferenceDeduplication: WithReferenceDeduplication decides whether a reused reference
// replays (and a changed body conflicts) or is a new campaign, sent and charged; its default
// follows the profile (full: on, documented: off), and the option wins in any order.
func TestReferenceDeduplication(t *testing.T) {
	t.Parallel()
	documented := mockserver.WithProfile(mockserver.ProfileDocumented)
	for _, tc := range []struct {
		name     string
		opts     []mockserver.Option
		dedup    bool
		conflict int    // the status of the same reference with other recipients, when dedup
		code     string // and its error code
	}{
		{"full by default", nil, true, http.StatusConflict, "conflict"},
		{"full, off", []mockserver.Option{mockserver.WithReferenceDeduplication(false)}, false, 0, ""},
		{"full, on", []mockserver.Option{mockserver.WithReferenceDeduplication(true)}, true, http.StatusConflict, "conflict"},
		{"documented by default", []mockserver.Option{documented}, false, 0, ""},
		{"documented, on", []mockserver.Option{documented, mockserver.WithReferenceDeduplication(true)}, true, http.StatusBadRequest, "bad_request"},
		{"documented, on given first", []mockserver.Option{mockserver.WithReferenceDeduplication(true), documented}, true, http.StatusBadRequest, "bad_request"},
		{"documented, off", []mockserver.Option{documented, mockserver.WithReferenceDeduplication(false)}, false, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, tc.opts...)
			for _, path := range []string{"/v1/sms/send", "/v1/sms/campaigns"} {
				ref := "order" + path
				body := sms([]string{num(1), num(2)}, "reference", ref)
				before := e.balance(mockserver.ModeLive)
				first := e.do(http.MethodPost, path, body).wantStatus(http.StatusAccepted)
				second := e.do(http.MethodPost, path, body).wantStatus(http.StatusAccepted)
				changed := e.do(http.MethodPost, path, with(body, "to", []string{num(1), num(3)}))
				campaigns, err := e.srv.Campaigns(e.ws.WorkspaceID, mockserver.ModeLive)
				require.NoError(t, err)
				var withRef []string
				for _, c := range campaigns {
					if c.Reference == ref {
						withRef = append(withRef, c.ID)
					}
				}
				if tc.dedup {
					assert.Equal(t, "true", second.Header.Get("Idempotent-Replayed"), path)
					assert.Equal(t, first.str("campaign.id"), second.str("campaign.id"), path)
					changed.wantError(tc.conflict, tc.code)
					assert.Equal(t, before-2*gp, e.balance(mockserver.ModeLive), "%s: one debit", path)
					assert.Equal(t, []string{first.str("campaign.id")}, withRef, path)
					continue
				}
				assert.Empty(t, second.Header.Get("Idempotent-Replayed"), path)
				assert.NotEqual(t, first.str("campaign.id"), second.str("campaign.id"), path)
				changed.wantStatus(http.StatusAccepted)
				assert.Empty(t, changed.Header.Get("Idempotent-Replayed"), path)
				// Three sends of two recipients each: the wallet moved exactly three times.
				assert.Equal(t, before-3*2*gp, e.balance(mockserver.ModeLive), "%s: every send charged", path)
				assert.ElementsMatch(t, []string{first.str("campaign.id"), second.str("campaign.id"), changed.str("campaign.id")}, withRef,
					"%s: every send a campaign carrying the reference", path)
			}
		})
	}
}

// TestNoDeduplicationConcurrent: without deduplication, identical requests sent at once are
// each a campaign, each charged, and the wallet ends exactly where their charges take it.
func TestNoDeduplicationConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithReferenceDeduplication(false))
	const n = 16
	body := sms(nums(1, 3), "reference", "same-ref")
	rs := e.parallel(n, func(int) call { return post("/v1/sms/campaigns", body) })
	seen := map[string]bool{}
	for i, r := range rs {
		r.wantStatus(http.StatusAccepted)
		assert.Empty(t, r.Header.Get("Idempotent-Replayed"), "request %d", i)
		seen[r.str("campaign.id")] = true
	}
	assert.Len(t, seen, n, "a campaign per request")
	assert.Equal(t, int64(mockserver.DefaultBalance-n*3*gp), e.balance(mockserver.ModeLive))
	assert.Equal(t, n, e.campaignTotal())
}

// TestDuplicateReferenceVisible: two campaigns with one reference show it in the /_mock/
// reads, the campaigns of a workspace and every message, so that a duplicate can be seen.
func TestDuplicateReferenceVisible(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithReferenceDeduplication(false))
	body := sms([]string{num(1)}, "reference", "job-7:0")
	a, b := e.campaign(body).str("campaign.id"), e.campaign(body).str("campaign.id")
	require.NotEqual(t, a, b)
	e.send(sms([]string{num(1)}, "message", "no reference"))

	list := e.do(http.MethodGet, "/_mock/workspaces/"+e.ws.WorkspaceID+"/campaigns?mode=live", nil).wantStatus(http.StatusOK)
	refs := map[string]any{}
	for _, c := range list.list("data") {
		c := c.(M)
		refs[c["_id"].(string)] = c["reference"]
	}
	assert.Len(t, refs, 3)
	assert.Equal(t, "job-7:0", refs[a])
	assert.Equal(t, "job-7:0", refs[b])

	msgs := e.do(http.MethodGet, "/_mock/messages?to="+num(1), nil).wantStatus(http.StatusOK)
	got := map[string]any{}
	for _, m := range msgs.list("data") {
		m := m.(M)
		require.Contains(t, m, "reference")
		got[m["campaignId"].(string)] = m["reference"]
	}
	assert.Len(t, got, 3)
	assert.Equal(t, "job-7:0", got[a])
	assert.Equal(t, "job-7:0", got[b])
	for id, ref := range got {
		if id != a && id != b {
			assert.Nil(t, ref, "a send without a reference")
		}
	}
	detail := e.do(http.MethodGet, "/_mock/messages/"+a+"-0", nil).wantStatus(http.StatusOK)
	assert.Equal(t, "job-7:0", detail.str("data.reference"))
	assert.Equal(t, "job-7:0", detail.str("data.campaign.reference"))

	for _, m := range e.srv.Messages(mockserver.Filter{To: num(1)}) {
		if m.CampaignID == a || m.CampaignID == b {
			assert.Equal(t, "job-7:0", m.Reference)
		} else {
			assert.Empty(t, m.Reference)
		}
	}
	// An OTP has no reference.
	e.otp(otpBody(num(2)))
	otps := e.do(http.MethodGet, "/_mock/messages?kind=otp", nil).wantStatus(http.StatusOK)
	require.Len(t, otps.list("data"), 1)
	assert.Nil(t, otps.get("data.0.reference"))
	assert.True(t, otps.has("data.0.reference"))
}
