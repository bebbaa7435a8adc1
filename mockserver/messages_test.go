package mockserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

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

// messages is GET /_mock/messages with the query q, required to answer 200.
func (e *env) messages(q string) *resp {
	e.t.Helper()
	return e.do(http.MethodGet, "/_mock/messages?"+q, nil).wantStatus(http.StatusOK)
}

func TestMessagesAreWhatThePhonesReceived(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	require.NoError(t, e.srv.AddDND("2348000000003"))
	campaignID := e.campaign(M{"to": []any{
		M{"phone": "08000000001", "name": "Ada"},
		M{"phone": "+2348000000002", "name": "Émile"},
		"2348000000003",
	}, "from": "MOCKSMS", "message": "Hi {{name}}, your order shipped."}).str("campaign.id")
	sendID := e.send(sms("2348000000004", "message", "Literal {{name}} here", "channel", "dnd"), e.test()).str("campaign.id")
	pinID, pin := e.otp(otpBody("2348000000005", "message_text", "Your code is < 1234 >. Do not share it."))

	all := e.srv.Messages(mockserver.Filter{})
	require.Len(t, all, 5)
	// Newest first: the OTP, the single send, then the campaign's recipients from the last.
	otp, single, third, second, first := all[0], all[1], all[2], all[3], all[4]

	assert.Equal(t, "2348000000001", first.To)
	assert.Equal(t, "Hi Ada, your order shipped.", first.Text)
	assert.Equal(t, "Hi Émile, your order shipped.", second.Text)
	assert.Equal(t, "Hi , your order shipped.", third.Text, "no name: {{name}} is empty")
	assert.Equal(t, campaignID+"-0", first.ID)
	assert.Equal(t, campaignID+"-2", third.ID)
	for _, m := range []mockserver.Message{first, second, third} {
		assert.Equal(t, mockserver.KindSMS, m.Kind)
		assert.Equal(t, "MOCKSMS", m.From)
		assert.Equal(t, campaignID, m.CampaignID)
		assert.Equal(t, "generic", m.Channel)
		assert.Equal(t, e.ws.WorkspaceID, m.WorkspaceID)
		assert.Equal(t, mockserver.ModeLive, m.Mode)
		assert.Equal(t, 1, m.Parts)
		assert.Equal(t, fixedNow, m.CreatedAt)
	}
	assert.Equal(t, "GSM-7", first.Encoding)
	assert.Equal(t, "GSM-7", second.Encoding, "É is in the GSM alphabet")
	assert.Equal(t, mockserver.StatusSent, first.Status)
	assert.Equal(t, mockserver.StatusDND, third.Status, "a number on the DND register")
	assert.Equal(t, int64(gp), first.CostKobo)

	assert.Equal(t, "Literal {{name}} here", single.Text, "/v1/sms/send does not personalize")
	assert.Equal(t, "dnd", single.Channel)
	assert.Equal(t, mockserver.ModeTest, single.Mode)
	assert.Equal(t, sendID, single.CampaignID)
	assert.Equal(t, int64(dp), single.CostKobo)

	assert.Equal(t, mockserver.KindOTP, otp.Kind)
	assert.Equal(t, "Your code is "+pin+". Do not share it.", otp.Text)
	assert.Equal(t, pin, otp.Pin)
	assert.Equal(t, pinID, otp.PinID)
	assert.Empty(t, otp.CampaignID)
	assert.False(t, otp.Verified)
	e.verify(pinID, pin).wantStatus(http.StatusOK)
	otp = e.srv.Messages(mockserver.Filter{Kind: "otp"})[0]
	assert.True(t, otp.Verified)

	// The same messages over HTTP.
	r := e.messages("limit=100")
	require.Equal(t, 5, r.int("pagination.total"))
	assert.Equal(t, "Hi Ada, your order shipped.", r.str("data.4.text"))
	assert.Equal(t, "3.20", string(r.get("data.4.cost").(json.Number)))
	assert.Equal(t, pin, r.str("data.0.pin"))
	assert.Equal(t, true, r.get("data.0.verified"))
	assert.Nil(t, r.get("data.0.campaignId"))
	assert.False(t, r.has("data.1.verified"), "only OTPs say whether they were verified")
}

func TestMessageStatusFollowsDelivery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.campaign(M{"to": nums(1, 4), "from": "MOCKSMS", "message": "Hello"}).str("campaign.id")
	e.srv.Advance(time.Minute)
	require.NoError(t, e.srv.Deliver(id, &mockserver.DeliverCounts{Delivered: 1, Failed: 1, DND: 1}))
	got := map[string]string{}
	for _, m := range e.srv.Messages(mockserver.Filter{CampaignID: id}) {
		got[m.To] = string(m.Status)
		if m.Status != "sent" {
			assert.Equal(t, fixedNow.Add(time.Minute), m.UpdatedAt, m.To)
		}
	}
	assert.Equal(t, map[string]string{num(1): "delivered", num(2): "failed", num(3): "dnd", num(4): "sent"}, got)
}

func TestMessageFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other := e.newWorkspace()
	e.send(sms(num(1), "message", "Your code is 482913"))                                   // 0
	e.send(sms([]string{num(1), num(2)}, "message", "Sale today"), e.test())                // 1, 2
	e.srv.Advance(time.Hour)                                                                //
	cid := e.campaign(M{"to": []string{num(2), num(3)}, "from": "MOCKSMS", "message": "x"}) // 3, 4
	e.send(sms(num(3), "message", "Other workspace"), withKey(other.LiveKey, other.LiveSecret))
	e.otp(otpBody(num(1)))
	campaignID := cid.str("campaign.id")
	later := url.QueryEscape(fixedNow.Add(time.Hour).Format(time.RFC3339))

	cases := []struct {
		query  string
		filter mockserver.Filter
		want   []string // texts, newest first
	}{
		{"", mockserver.Filter{}, []string{"Your code is", "Other workspace", "x", "x", "Sale today", "Sale today", "Your code is 482913"}},
		{"to=0800000001", mockserver.Filter{To: "0800000001"}, nil}, // not a valid local number
		{"to=08000000001", mockserver.Filter{To: "08000000001"}, []string{"Your code is", "Sale today", "Your code is 482913"}},
		{"to=%2B2348000000002", mockserver.Filter{To: "+2348000000002"}, []string{"x", "Sale today"}},
		{"from=mocksms&kind=sms&workspaceId=" + other.WorkspaceID, mockserver.Filter{From: "mocksms", Kind: "sms", WorkspaceID: other.WorkspaceID}, []string{"Other workspace"}},
		{"campaignId=" + campaignID, mockserver.Filter{CampaignID: campaignID}, []string{"x", "x"}},
		{"kind=otp", mockserver.Filter{Kind: "otp"}, []string{"Your code is"}},
		{"contains=CODE", mockserver.Filter{Contains: "CODE"}, []string{"Your code is", "Your code is 482913"}},
		{"mode=test", mockserver.Filter{Mode: mockserver.ModeTest}, []string{"Sale today", "Sale today"}},
		{"since=" + later + "&workspaceId=" + e.ws.WorkspaceID, mockserver.Filter{Since: fixedNow.Add(time.Hour), WorkspaceID: e.ws.WorkspaceID}, []string{"Your code is", "x", "x"}},
		{"from=NOSUCH", mockserver.Filter{From: "NOSUCH"}, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			if tc.want == nil { // a bad value: 400 over HTTP, nothing from Go
				r := e.do(http.MethodGet, "/_mock/messages?"+tc.query, nil).wantError(http.StatusBadRequest, "bad_request")
				assert.Equal(t, strings.SplitN(tc.query, "=", 2)[0], r.str("error.field"))
				assert.Empty(t, e.srv.Messages(tc.filter))
				return
			}
			var goTexts, httpTexts []string
			for _, m := range e.srv.Messages(tc.filter) {
				goTexts = append(goTexts, m.Text)
			}
			r := e.messages(tc.query + "&limit=100")
			for _, item := range r.list("data") {
				httpTexts = append(httpTexts, item.(map[string]any)["text"].(string))
			}
			require.Len(t, goTexts, len(tc.want))
			for i, w := range tc.want {
				assert.True(t, strings.HasPrefix(goTexts[i], w), "message %d: %q, want %q...", i, goTexts[i], w)
			}
			assert.Equal(t, goTexts, httpTexts, "Go and HTTP agree")
			assert.Equal(t, len(tc.want), r.int("pagination.total"))
		})
	}
}

func TestMessagesBadQueries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, q := range []string{
		"kind=mms", "mode=prod", "since=yesterday", "campaignId=abc", "workspaceId=xyz",
		"wait=forever", "wait=61s", "wait=-1s", "page=0", "limit=101", "to=12",
		// Past what nanoseconds since 1970 hold in an int64: refused, not wrapped round to
		// select everything (or, with wait, to answer at once).
		"since=2262-04-11T23:47:17Z", "since=9999-12-31T23:59:59Z&wait=3s", "since=1677-09-21T00:12:43Z",
	} {
		for _, path := range []string{"/_mock/messages?", "/_mock/conversations?"} {
			if strings.HasPrefix(q, "wait=") && path == "/_mock/conversations?" {
				continue // no wait there
			}
			r := e.do(http.MethodGet, path+q, nil).wantError(http.StatusBadRequest, "bad_request")
			assert.Equal(t, strings.SplitN(q, "=", 2)[0], r.str("error.field"), path+q)
		}
	}
}

// TestMessagesSinceBounds: the times since= takes run to the last int64 nanosecond, and one
// there selects nothing sent now.
func TestMessagesSinceBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.send(sms(num(1), "message", "now"))
	for q, want := range map[string]int{
		"since=2262-04-11T23:47:16.854775807Z": 0,
		"since=1677-09-21T00:12:43.145224192Z": 1,
		"since=1970-01-01T00:00:00Z":           1,
	} {
		assert.Equal(t, want, e.messages(q).int("pagination.total"), q)
		assert.Equal(t, want, e.do(http.MethodGet, "/_mock/conversations?"+q, nil).wantStatus(http.StatusOK).int("pagination.total"), q)
	}
	_, err := e.srv.WaitMessage(context.Background(), mockserver.Filter{Since: time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)})
	assert.ErrorContains(t, err, "since")
}

func TestMessagesPagedNewestFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := range 5 {
		e.send(sms(num(i), "message", "n"+string(rune('0'+i))))
	}
	var got []string
	for page := 1; page <= 3; page++ {
		r := e.messages("limit=2&page=" + string(rune('0'+page)))
		assert.Equal(t, 5, r.int("pagination.total"))
		for _, item := range r.list("data") {
			got = append(got, item.(map[string]any)["text"].(string))
		}
	}
	assert.Equal(t, []string{"n4", "n3", "n2", "n1", "n0"}, got)
	assert.Empty(t, e.messages("limit=2&page=4").list("data"), "past the end")
}

func TestRejectedOrReplayedSendsStoreNoMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setBalance(mockserver.ModeLive, 100)
	e.do(http.MethodPost, "/v1/sms/send", sms(num(1))).wantError(http.StatusPaymentRequired, "insufficient_balance")
	e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "from", "NOTMINE")).wantError(http.StatusBadRequest, "bad_request")
	e.do(http.MethodPost, "/v1/otp/send", otpBody(num(1))).wantError(http.StatusPaymentRequired, "insufficient_balance")
	assert.Empty(t, e.srv.Messages(mockserver.Filter{}))

	e.setBalance(mockserver.ModeLive, 100_000)
	body := sms(num(1), "reference", "order-1")
	e.send(body)
	replay := e.send(body)
	assert.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"))
	assert.Len(t, e.srv.Messages(mockserver.Filter{}), 1, "a replay sends nothing again")
}

func TestClearMessagesKeepsCampaignsAndWallets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.send(sms([]string{num(1), num(2)})).str("campaign.id")
	e.otp(otpBody(num(3)))
	before := e.state()
	r := e.do(http.MethodDelete, "/_mock/messages", nil).wantStatus(http.StatusOK)
	assert.Equal(t, 3, r.int("cleared"))
	assert.Empty(t, e.srv.Messages(mockserver.Filter{}))
	after := e.state()
	assert.Equal(t, before.Live, after.Live)
	assert.Equal(t, before.LiveCampaigns, after.LiveCampaigns)
	require.NoError(t, e.srv.Deliver(id, nil), "the campaign is still there")
	e.send(sms(num(4)))
	assert.Len(t, e.srv.Messages(mockserver.Filter{}), 1, "new messages are kept again")
}

// TestMessageLimitForgetsTheOldest: past WithMessageLimit the oldest campaigns are forgotten
// entirely, messages and campaign together, so the store stays bounded; newer ones stay whole.
func TestMessageLimitForgetsTheOldest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithMessageLimit(5))
	first := e.send(sms([]string{num(1), num(2)})).str("campaign.id")
	e.otp(otpBody(num(3)))
	second := e.send(sms([]string{num(4), num(5)})).str("campaign.id")
	require.Len(t, e.srv.Messages(mockserver.Filter{}), 5)
	require.Equal(t, 2, e.campaignTotal(e.live()))

	third := e.send(sms(num(6))).str("campaign.id")
	got := e.srv.Messages(mockserver.Filter{})
	require.Len(t, got, 4, "the oldest campaign's two messages went")
	for _, m := range got {
		assert.NotEqual(t, first, m.CampaignID)
	}
	assert.Equal(t, 2, e.campaignTotal(e.live()), "the oldest campaign went too")
	e.do(http.MethodGet, "/v1/sms/campaigns/"+first+"/status", nil).wantError(http.StatusNotFound, "not_found")
	require.ErrorContains(t, e.srv.Deliver(first, nil), "not found")
	for _, id := range []string{second, third} {
		e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
	}

	// Cleared campaign messages do not free the limit, their campaigns are still stored; the
	// cleared OTP message does: 3 stored after the clear, 6 with the next campaign.
	e.do(http.MethodDelete, "/_mock/messages", nil).wantStatus(http.StatusOK)
	e.send(sms([]string{num(7), num(8), num(9)}))
	assert.Equal(t, 2, e.campaignTotal(e.live()), "the second campaign went for the newest")
	e.do(http.MethodGet, "/v1/sms/campaigns/"+second+"/status", nil).wantError(http.StatusNotFound, "not_found")
	e.do(http.MethodGet, "/v1/sms/campaigns/"+third+"/status", nil).wantStatus(http.StatusOK)
}

// TestLongPoll waits on virtual time: a message sent 300 ms into a 5 s wait answers at 300 ms,
// and a wait that finds nothing answers, empty, when it ends.
func TestLongPoll(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		e := newInProcessEnv(t, mockserver.WithClock(time.Now)) // the bubble's clock
		get := func(q string) (*resp, time.Duration) {
			start := time.Now()
			r := e.do(http.MethodGet, "/_mock/messages?"+q, nil).wantStatus(http.StatusOK)
			return r, time.Since(start)
		}
		send := func(to, text string) { e.send(sms(to, "message", text)) }

		go func() {
			time.Sleep(300 * time.Millisecond)
			send("2348000000009", "Someone else")
			send("08025671695", "Your code is 482913")
		}()
		r, took := get("to=2348025671695&wait=5s")
		assert.Equal(t, 300*time.Millisecond, took)
		require.Len(t, r.list("data"), 1)
		assert.Equal(t, "Your code is 482913", r.str("data.0.text"))

		r, took = get("to=2348000000001&wait=2s")
		assert.Equal(t, 2*time.Second, took)
		assert.Empty(t, r.list("data"))

		// Already there: no wait at all.
		_, took = get("contains=482913&wait=5s")
		assert.Zero(t, took)

		// The Go API waits the same way, until its context ends.
		go func() {
			time.Sleep(time.Second)
			send("2348000000002", "Later")
		}()
		start := time.Now()
		m, err := e.srv.WaitMessage(t.Context(), mockserver.Filter{To: "2348000000002"})
		require.NoError(t, err)
		assert.Equal(t, "Later", m.Text)
		assert.Equal(t, time.Second, time.Since(start))

		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		_, err = e.srv.WaitMessage(ctx, mockserver.Filter{Kind: "otp"})
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		_, err = e.srv.WaitMessage(ctx, mockserver.Filter{Kind: "fax"})
		assert.ErrorContains(t, err, "kind")
	})
}

func TestInboxListings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other := e.newWorkspace()
	e.send(sms(num(1), "message", "first"))
	id := e.send(sms([]string{num(2), num(1)}, "message", "second")).str("campaign.id")
	e.send(sms(num(3), "message", "test mode"), e.test())
	sid := e.requestSender("ACME")

	conv := e.do(http.MethodGet, "/_mock/conversations?mode=live&workspaceId="+e.ws.WorkspaceID, nil).wantStatus(http.StatusOK)
	require.Equal(t, 2, conv.int("pagination.total"))
	assert.Equal(t, num(1), conv.str("data.0.to"), "the newest conversation first")
	assert.Equal(t, 2, conv.int("data.0.count"))
	assert.Equal(t, "second", conv.str("data.0.latest.text"))
	assert.Equal(t, num(2), conv.str("data.1.to"))
	assert.Equal(t, 1, conv.int("data.1.count"))

	ws := e.do(http.MethodGet, "/_mock/workspaces", nil).wantStatus(http.StatusOK)
	require.Equal(t, 2, ws.int("count"))
	assert.Equal(t, e.ws.WorkspaceID, ws.str("data.0.workspaceId"))
	assert.Equal(t, true, ws.get("data.0.default"))
	assert.Equal(t, other.WorkspaceID, ws.str("data.1.workspaceId"))
	assert.Equal(t, e.balance(mockserver.ModeLive), ws.kobo("data.0.liveBalance"))
	assert.NotContains(t, string(ws.Raw), e.ws.LiveKey, "no credentials")

	require.NoError(t, e.srv.Deliver(id, &mockserver.DeliverCounts{Failed: 1}))
	cs := e.do(http.MethodGet, "/_mock/workspaces/"+e.ws.WorkspaceID+"/campaigns", nil).wantStatus(http.StatusOK)
	require.Equal(t, 2, cs.int("pagination.total"), "live by default")
	assert.Equal(t, id, cs.str("data.0._id"))
	assert.Equal(t, "live", cs.str("data.0.mode"))
	assert.Equal(t, "sent", cs.str("data.0.delivery"))
	assert.Equal(t, 1, cs.int("data.0.counts.failed"))
	assert.Equal(t, 1, cs.int("data.0.counts.sent"))
	test := e.do(http.MethodGet, "/_mock/workspaces/"+e.ws.WorkspaceID+"/campaigns?mode=test", nil).wantStatus(http.StatusOK)
	assert.Equal(t, 1, test.int("pagination.total"))
	e.do(http.MethodGet, "/_mock/workspaces/"+e.ws.WorkspaceID+"/campaigns?mode=prod", nil).wantError(http.StatusBadRequest, "bad_request")
	e.do(http.MethodGet, "/_mock/workspaces/0123456789abcdef01234567/campaigns", nil).wantError(http.StatusNotFound, "not_found")

	senders := e.do(http.MethodGet, "/_mock/workspaces/"+e.ws.WorkspaceID+"/sender-ids", nil).wantStatus(http.StatusOK)
	require.Equal(t, 2, senders.int("count"))
	assert.Equal(t, sid, senders.str("data.0._id"))
	assert.Equal(t, "pending", senders.str("data.0.status"))
	assert.Equal(t, "MOCKSMS", senders.str("data.1.title"))
}

// TestMessagesUnderConcurrency: sends, deliveries, reads, clears and the limit at once; run
// with -race. The limit holds, and every kept message is whole.
func TestMessagesUnderConcurrency(t *testing.T) {
	t.Parallel()
	e := newInProcessEnv(t, mockserver.WithMessageLimit(50))
	srv := e.srv
	post := func(to []any) string {
		r, err := e.try(http.MethodPost, "/v1/sms/campaigns", sms(to, "message", "Hi {{name}}"))
		if err != nil || r.Status != http.StatusAccepted {
			return ""
		}
		return r.str("campaign.id")
	}
	done := make(chan struct{})
	ids := make(chan string, 400)
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 50 {
				to := []any{M{"phone": "23480" + strconv.Itoa(10000000+g*1000+i), "name": "N" + strconv.Itoa(i)}, "2348099999999"}
				if id := post(to); id != "" {
					ids <- id
				}
			}
		}()
	}
	go func() {
		defer func() { done <- struct{}{} }()
		for range 100 {
			select {
			case id := <-ids:
				_ = srv.Deliver(id, nil)
			default:
			}
			for _, m := range srv.Messages(mockserver.Filter{Contains: "hi"}) {
				if m.Text != "Hi " && !strings.HasPrefix(m.Text, "Hi N") {
					t.Errorf("a torn message: %+v", m)
				}
			}
		}
	}()
	go func() {
		defer func() { done <- struct{}{} }()
		for range 10 {
			srv.ClearMessages()
		}
	}()
	for range 6 {
		<-done
	}
	got := srv.Messages(mockserver.Filter{})
	assert.LessOrEqual(t, len(got), 50)
	e.campaign(sms([]string{num(1)}, "message", "last"))
	assert.Equal(t, "last", srv.Messages(mockserver.Filter{})[0].Text)
}

func TestMessageFormattingHidesThePin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, pin := e.otp(otpBody(num(1), "pin_length", 8, "pin_type", "alphanumeric"))
	m := e.srv.Messages(mockserver.Filter{Kind: "otp"})[0]
	require.Equal(t, pin, m.Pin)
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(format, m)
		assert.NotContains(t, out, pin, format)
		assert.Contains(t, out, "Your code is [REDACTED]", format)
	}
	plain := e.srv.Messages(mockserver.Filter{Kind: "otp"})[0]
	assert.Equal(t, "Your code is "+pin, plain.Text, "the fields themselves are untouched")
}
