package sms_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// sendN sends n single-recipient campaigns and returns their IDs, oldest first.
func sendN(t *testing.T, srv *mockserver.Server, client *sms.Client, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range n {
		res, err := client.SMS.Send(context.Background(), &sms.SendParams{
			To: []string{fmt.Sprintf("23480300%05d", i)}, From: srv.Default().SenderID, Message: "hi",
		})
		require.NoError(t, err)
		ids[i] = res.Campaign.ID
	}
	return ids
}

func TestCampaignsCreate(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	before := balance(t, srv)

	res, err := client.Campaigns.Create(context.Background(), &sms.CreateCampaignParams{
		To: []sms.Recipient{
			{Phone: "08025671695", Name: "Ada"},
			{Phone: "2348030000001", Name: strings.Repeat("N", 100)},
			{Phone: "+2348030000002"},
			{Phone: "2348025671695", Name: "duplicate, dropped"},
		},
		From:      srv.Default().SenderID,
		Message:   "Hello {{name}}, " + strings.Repeat("x", 100),
		Reference: "campaign-1",
	})
	require.NoError(t, err)
	c := res.Campaign
	assert.Equal(t, sms.CampaignStatusSent, c.Status)
	assert.Equal(t, 3, c.Recipients)
	assert.Equal(t, ptr(2), c.Parts, "the 100-character name makes that message two parts")
	assert.Equal(t, "12.80", c.Amount.String(), "(1 + 2 + 1) parts x 3.20")
	assert.Equal(t, "campaign-1", c.Reference)
	assert.Equal(t, before-1280, balance(t, srv))

	var body struct {
		To []json.RawMessage `json:"to"`
	}
	reqs := srv.Requests()
	require.NoError(t, json.Unmarshal(reqs[len(reqs)-1].Body, &body))
	require.Len(t, body.To, 4)
	assert.JSONEq(t, `{"phone":"2348025671695","name":"Ada"}`, string(body.To[0]), "named recipients are objects")
	assert.JSONEq(t, `"2348030000002"`, string(body.To[2]), "unnamed recipients are numbers")
}

func TestCampaignsCreateLargeIsProcessing(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	ctx := context.Background()

	res, err := client.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: numbers(150), From: srv.Default().SenderID, Message: "hi"})
	require.NoError(t, err)
	assert.Equal(t, sms.CampaignStatusProcessing, res.Campaign.Status)
	assert.Empty(t, res.Campaign.MessageID)
	assert.Equal(t, 150, res.Campaign.Recipients)

	st, err := client.Campaigns.Delivery(ctx, res.Campaign.ID, nil)
	require.NoError(t, err, "a processing campaign has a status too")
	require.NotNil(t, st.Response)
	st.Response, st.Recipients.Response = nil, nil
	assert.Equal(t, sms.Delivery{CampaignID: res.Campaign.ID, Status: sms.DeliveryStatusProcessing, Counts: &sms.DeliveryCounts{},
		Recipients: sms.Page[sms.RecipientDelivery]{Items: []sms.RecipientDelivery{}, Pagination: sms.Pagination{Page: 1, Limit: 20}}}, *st, "no message ID, nothing counted, no recipients yet")
	assert.False(t, st.Final())

	srv.Advance(time.Second)
	page, err := client.Campaigns.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, sms.CampaignStatusSent, page.Items[0].Status)
	assert.NotEmpty(t, page.Items[0].MessageID)
}

func TestCampaignsCreateErrors(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	ctx := context.Background()
	p := &sms.CreateCampaignParams{To: numbers(3), From: srv.Default().SenderID, Message: "hi", Reference: "c-1"}

	require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.ModeTest, 959))
	_, err := client.Campaigns.Create(ctx, p)
	require.ErrorIs(t, err, sms.ErrInsufficientBalance, "3 x 3.20 > 9.59")
	assert.Equal(t, int64(959), balance(t, srv), "nothing charged")

	require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.ModeTest, 960))
	_, err = client.Campaigns.Create(ctx, p)
	require.NoError(t, err, "the failed request left its reference free")
	assert.Equal(t, int64(0), balance(t, srv))

	other := *p
	other.To = numbers(2)
	_, err = client.Campaigns.Create(ctx, &other)
	require.ErrorIs(t, err, sms.ErrConflict)

	other.Reference, other.From = "c-2", "NOTACTIVE"
	_, err = client.Campaigns.Create(ctx, &other)
	require.ErrorIs(t, err, sms.ErrBadRequest)
	assert.Equal(t, "from", asAPIError(t, err).Field)
}

// A campaign whose connection dropped twice after the mock committed it is retried and
// answered from the committed campaign: one campaign, one debit.
func TestCampaignsCreateDroppedAfterCommitIsReplayed(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := newClient(t, srv, sms.WithRetryWait(time.Millisecond, 5*time.Millisecond), sms.WithReferenceDeduplication())
	before := balance(t, srv)
	srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Drop: true, Times: 2})

	res, err := c.Campaigns.Create(context.Background(), &sms.CreateCampaignParams{
		To:      []sms.Recipient{{Phone: "08025671695", Name: "Ada"}, {Phone: "08025671696", Name: "Obi"}},
		From:    "MOCKSMS",
		Message: "Hi {{name}}",
	})
	require.NoError(t, err)
	assert.Equal(t, 3, requestsTo(srv, "POST", "/v1/sms/campaigns"))
	assert.Equal(t, 1, campaignTotal(t, c))
	assert.Equal(t, before-res.Campaign.Amount.Kobo(), balance(t, srv))
	assert.False(t, res.Replayed, "the answer is this call's own dropped attempt's: it sent and charged")
}

// Without WithReferenceDeduplication, a 5xx to a send is not retried and may have been
// processed; a 429 or a refused connection, which prove nothing was processed, are retried.
func TestCampaignsCreateRetriedOnlyWhenUnprocessedByDefault(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		srv.AddFaults(
			mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Status: 429, RetryAfter: 1, Times: 1},
			mockserver.FaultRule{Method: "POST", Path: "/v1/sms/campaigns", Status: 502, Times: 1},
		)
		_, err := c.Campaigns.Create(context.Background(), &sms.CreateCampaignParams{
			To: []sms.Recipient{{Phone: "08025671695"}}, From: "MOCKSMS", Message: "hi", Reference: "spring",
		})
		require.ErrorIs(t, err, sms.ErrServer)
		assert.ErrorIs(t, err, sms.ErrOutcomeUnknown)
		assert.Contains(t, err.Error(), `Reference "spring"`)
		assert.Equal(t, 2, requestsTo(srv, "POST", "/v1/sms/campaigns"), "the 429 was retried, the 502 was not")
	})
}

func TestCampaignsList(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	ctx := context.Background()
	ids := sendN(t, srv, client, 5)

	tests := []struct {
		params *sms.ListCampaignsParams
		want   []string
		page   sms.Pagination
	}{
		{nil, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, sms.Pagination{Page: 1, Limit: 20, Total: 5}},
		{&sms.ListCampaignsParams{Limit: 2}, []string{ids[4], ids[3]}, sms.Pagination{Page: 1, Limit: 2, Total: 5}},
		{&sms.ListCampaignsParams{Page: 3, Limit: 2}, []string{ids[0]}, sms.Pagination{Page: 3, Limit: 2, Total: 5}},
		{&sms.ListCampaignsParams{Page: 4, Limit: 2}, []string{}, sms.Pagination{Page: 4, Limit: 2, Total: 5}},
	}
	for _, tt := range tests {
		page, err := client.Campaigns.List(ctx, tt.params)
		require.NoError(t, err)
		got := []string{}
		for _, c := range page.Items {
			got = append(got, c.ID)
		}
		assert.Equal(t, tt.want, got)
		assert.Equal(t, tt.page, page.Pagination)
	}

	page, err := client.Campaigns.List(ctx, &sms.ListCampaignsParams{Limit: 1})
	require.NoError(t, err)
	c := page.Items[0]
	assert.Equal(t, srv.Default().SenderID, c.SenderID)
	assert.Equal(t, sms.ChannelGeneric, c.Channel)
	assert.Equal(t, 1, c.Recipients)
	require.NotNil(t, c.Parts)
	assert.Equal(t, 1, *c.Parts)
	assert.Equal(t, ptr(sms.AmountFromKobo(320)), c.Amount)
	assert.Equal(t, "NGN", c.Currency)
	assert.True(t, strings.HasPrefix(c.Reference, "sms-go-"))
	require.NotNil(t, c.CreatedAt)
	assert.WithinDuration(t, srv.Now(), *c.CreatedAt, time.Minute)

	// Live data is separate from test data.
	ws := srv.Default()
	live := newClientOf(t, srv, ws.LiveKey, ws.LiveSecret)
	page, err = live.Campaigns.List(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	assert.Equal(t, 0, page.Total)
}

func TestCampaignsAll(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	ctx := context.Background()
	ids := sendN(t, srv, client, 7)
	list := func() int { return requestsTo(srv, "GET", "/v1/sms/campaigns") }

	t.Run("every campaign once, newest first", func(t *testing.T) {
		var got []string
		for c, err := range client.Campaigns.All(ctx, &sms.ListCampaignsParams{Limit: 3}) {
			require.NoError(t, err)
			got = append(got, c.ID)
		}
		assert.Equal(t, []string{ids[6], ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]}, got)
	})

	t.Run("lazy", func(t *testing.T) {
		before := list()
		seq := client.Campaigns.All(ctx, &sms.ListCampaignsParams{Limit: 3})
		assert.Equal(t, before, list(), "nothing fetched before the loop")
		for range seq {
			break
		}
		assert.Equal(t, before+1, list(), "break stops fetching")
	})

	t.Run("break on a later page", func(t *testing.T) {
		before := list()
		n := 0
		for _, err := range client.Campaigns.All(ctx, &sms.ListCampaignsParams{Limit: 2}) {
			require.NoError(t, err)
			if n++; n == 3 {
				break
			}
		}
		assert.Equal(t, before+2, list())
	})

	t.Run("campaigns created while iterating", func(t *testing.T) {
		// After each page, more campaigns than a page holds are created: they push the
		// campaigns not yet seen down by more than a page.
		seen := map[string]int{}
		n := 0
		for c, err := range client.Campaigns.All(ctx, &sms.ListCampaignsParams{Limit: 2}) {
			require.NoError(t, err)
			seen[c.ID]++
			if n++; n%2 == 0 {
				sendN(t, srv, client, 3)
			}
		}
		for _, id := range ids {
			assert.Equal(t, 1, seen[id], "campaign %s", id)
		}
		for id, k := range seen {
			assert.Equal(t, 1, k, "campaign %s yielded %d times", id, k)
		}
	})

	t.Run("error", func(t *testing.T) {
		srv.AddFaults(mockserver.FaultRule{Method: "GET", Path: "/v1/sms/campaigns", Status: 401, Times: 1})
		n := 0
		for c, err := range client.Campaigns.All(ctx, nil) {
			n++
			require.ErrorIs(t, err, sms.ErrUnauthorized)
			assert.Empty(t, c.ID)
		}
		assert.Equal(t, 1, n, "an error is yielded once and ends the loop")
	})
}

// pageIgnorer answers GET /v1/sms/campaigns with the same two campaigns whatever the page, a
// total of a million, and the page asked for echoed back. After 50 requests it fails, so that
// a walk that never stops ends.
type pageIgnorer struct{ n atomic.Int32 }

func (p *pageIgnorer) RoundTrip(req *http.Request) (*http.Response, error) {
	if p.n.Add(1) > 50 {
		return nil, errors.New("fetched forever")
	}
	body := `{"data":[` +
		`{"_id":"c2","senderId":"ACME","recipientCount":1,"amount":3.20,"status":"sent","currency":"NGN","channel":"generic","smsParts":1,"messageId":"m2","reference":null,"createdAt":"2026-01-02T00:00:00Z"},` +
		`{"_id":"c1","senderId":"ACME","recipientCount":1,"amount":3.20,"status":"sent","currency":"NGN","channel":"generic","smsParts":1,"messageId":"m1","reference":null,"createdAt":"2026-01-01T00:00:00Z"}` +
		`],"pagination":{"page":` + req.URL.Query().Get("page") + `,"limit":2,"total":1000000},"requestId":"req_1"}`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

// A server that answers the same page whatever page is asked for ends Campaigns.All with an
// error after a few pages that add nothing, each campaign yielded once.
func TestCampaignsAllStopsWhenServerIgnoresPage(t *testing.T) {
	t.Parallel()
	p := &pageIgnorer{}
	c := newClientFor(t, p)
	var ids []string
	var walkErr error
	for camp, err := range c.Campaigns.All(context.Background(), &sms.ListCampaignsParams{Limit: 2}) {
		if err != nil {
			walkErr = err
			break
		}
		ids = append(ids, camp.ID)
	}
	require.Error(t, walkErr)
	assert.Contains(t, walkErr.Error(), "added no new item")
	assert.Equal(t, []string{"c2", "c1"}, ids, "each campaign once")
	assert.Equal(t, int32(4), p.n.Load(), "the first page and three that added nothing")
}

func TestCampaignsStatusAndRecipients(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	ctx := context.Background()
	dnd := "2348039999999"
	require.NoError(t, srv.AddDND(dnd))
	to := append(numbers(4), sms.Recipient{Phone: dnd})

	res, err := client.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: to, From: srv.Default().SenderID, Message: "hi"})
	require.NoError(t, err)
	id := res.Campaign.ID

	st, err := client.Campaigns.Delivery(ctx, id, nil)
	require.NoError(t, err)
	assert.Equal(t, sms.DeliveryStatusSent, st.Status)
	assert.Equal(t, &sms.DeliveryCounts{Sent: 4, DND: 1}, st.Counts)
	assert.Equal(t, res.Campaign.MessageID, st.MessageID)
	assert.Equal(t, id, st.CampaignID)

	require.NoError(t, srv.Deliver(id, &mockserver.DeliverCounts{Delivered: 2, Failed: 1}))
	st, err = client.Campaigns.Delivery(ctx, id, &sms.DeliveryParams{Page: 1, Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, sms.DeliveryStatusSent, st.Status, "one recipient has no report yet")
	assert.Equal(t, &sms.DeliveryCounts{Sent: 1, Delivered: 2, Failed: 1, DND: 1}, st.Counts)
	assert.Equal(t, sms.Pagination{Page: 1, Limit: 2, Total: 5}, st.Recipients.Pagination)
	assert.Same(t, st.Response, st.Recipients.Response, "one answer")
	require.Len(t, st.Recipients.Items, 2)
	assert.Equal(t, "2348030000000", st.Recipients.Items[0].To)
	assert.Equal(t, sms.RecipientStatusDelivered, st.Recipients.Items[0].Status)
	assert.NotNil(t, st.Recipients.Items[0].UpdatedAt)

	require.NoError(t, srv.Deliver(id, nil))
	st, err = client.Campaigns.Delivery(ctx, id, nil)
	require.NoError(t, err)
	assert.Equal(t, sms.DeliveryStatusPartiallyDelivered, st.Status)

	var got []sms.RecipientStatus
	for r, err := range client.Campaigns.AllRecipients(ctx, id, &sms.DeliveryParams{Limit: 2}) {
		require.NoError(t, err)
		got = append(got, r.Status)
	}
	assert.Equal(t, []sms.RecipientStatus{sms.RecipientStatusDelivered, sms.RecipientStatusDelivered, sms.RecipientStatusFailed, sms.RecipientStatusDelivered, sms.RecipientStatusDND}, got)

	_, err = client.Campaigns.Delivery(ctx, "0123456789abcdef01234567", nil)
	require.ErrorIs(t, err, sms.ErrNotFound)
	_, err = client.Campaigns.Delivery(ctx, "not/an-id", nil)
	require.ErrorIs(t, err, sms.ErrNotFound, "the id is one escaped path segment")
}

// A delivery status, which the service's pages do not show, needs only its status: the rest
// is read when present, and absent counts are nil rather than zeros.
func TestDeliveryStatusMinimal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		body  string
		final bool
	}{
		{`{"data":{"status":"delivered"}}`, true},
		{`{"data":{"status":"partially_delivered"}}`, true},
		{`{"data":{"status":"failed"}}`, true},
		{`{"data":{"status":"sent"}}`, false},
		{`{"data":{"status":"processing"}}`, false},
		{`{"data":{"status":"Message Sent"}}`, false}, // a provider's word: kept, not final without counts
	}
	for _, tt := range tests {
		a := &answer{status: 200, body: []byte(tt.body)}
		st, err := newClientFor(t, a, sms.WithMaxRetries(0)).Campaigns.Delivery(ctx, "c1", nil)
		require.NoError(t, err, tt.body)
		assert.Equal(t, "c1", st.CampaignID, "the id asked for, when the answer does not repeat it")
		assert.Nil(t, st.Counts, tt.body)
		assert.Empty(t, st.Recipients.Items)
		assert.Equal(t, sms.Pagination{Total: -1}, st.Recipients.Pagination, "no pagination sent: the total is unknown")
		assert.Equal(t, tt.final, st.Final(), tt.body)
	}
	// With counts, they decide, as before.
	st := &sms.Delivery{Status: sms.DeliveryStatusSent, Counts: &sms.DeliveryCounts{Delivered: 2}}
	assert.True(t, st.Final())
	st = &sms.Delivery{Status: sms.DeliveryStatusDelivered, Counts: &sms.DeliveryCounts{Sent: 1}}
	assert.False(t, st.Final())
}

func TestDeliveryCountsTotal(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 10, sms.DeliveryCounts{Sent: 1, Delivered: 2, Failed: 3, DND: 4}.Total())
	assert.Equal(t, 0, sms.DeliveryCounts{}.Total())
}

func TestCampaignsRecipientsManyPages(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	ctx := context.Background()
	res, err := client.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: numbers(250), From: srv.Default().SenderID, Message: "hi"})
	require.NoError(t, err)
	srv.Advance(time.Second)

	before := requestsTo(srv, "GET", "/v1/sms/campaigns/"+res.Campaign.ID+"/status")
	seen := map[string]bool{}
	for r, err := range client.Campaigns.AllRecipients(ctx, res.Campaign.ID, nil) {
		require.NoError(t, err)
		assert.False(t, seen[r.To], "recipient %s twice", r.To)
		seen[r.To] = true
	}
	assert.Len(t, seen, 250)
	assert.Equal(t, 3, requestsTo(srv, "GET", "/v1/sms/campaigns/"+res.Campaign.ID+"/status")-before, "pages of 100")
}

// The recipients of a delivery status without pagination are walked when they fit one page;
// a full page without pagination cannot be walked further and is an error, not a silent end.
func TestCampaignsRecipientsWithoutPagination(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	body := func(n int) []byte {
		var b strings.Builder
		b.WriteString(`{"data":{"status":"sent","recipients":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"to":"23480256716` + string(rune('0'+i/10)) + string(rune('0'+i%10)) + `","status":"sent"}`)
		}
		b.WriteString(`]}}`)
		return []byte(b.String())
	}
	n := 0
	for r, err := range newClientFor(t, &answer{status: 200, body: body(3)}, sms.WithMaxRetries(0)).Campaigns.AllRecipients(ctx, "c1", &sms.DeliveryParams{Limit: 5}) {
		require.NoError(t, err)
		assert.Nil(t, r.UpdatedAt)
		n++
	}
	assert.Equal(t, 3, n)

	// A server that answers every page with the same full page, stating no total: the walk
	// goes on past the full page, and ends with an error once pages add nothing new.
	n, last := drain(newClientFor(t, &answer{status: 200, body: body(5)}, sms.WithMaxRetries(0)).Campaigns.AllRecipients(ctx, "c1", &sms.DeliveryParams{Limit: 5}))
	require.Error(t, last)
	assert.Contains(t, last.Error(), "ignoring the page asked for")
	assert.Equal(t, 5, n, "each recipient once")
}

func TestCampaignsScope(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newScopedClient(t, srv, sms.ScopeSMS)
	ctx := context.Background()
	calls := map[string]func() error{
		"Create": func() error {
			_, err := client.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: numbers(1), From: srv.Default().SenderID, Message: "hi"})
			return err
		},
		"List": func() error { _, err := client.Campaigns.List(ctx, nil); return err },
		"Status": func() error {
			_, err := client.Campaigns.Delivery(ctx, "0123456789abcdef01234567", nil)
			return err
		},
		"All": func() error {
			for _, err := range client.Campaigns.All(ctx, nil) {
				return err
			}
			return nil
		},
	}
	for name, call := range calls {
		err := call()
		var se *sms.ScopeError
		require.ErrorAs(t, err, &se, name)
		assert.Equal(t, sms.ScopeCampaigns, se.Scope, name)
		assert.Equal(t, 403, se.Err.StatusCode, name)
		assert.ErrorIs(t, err, sms.ErrInsufficientScope, name)
	}
}

// Known tells the statuses a campaign's delivery can have from a word no constant names,
// which no wait can take as final or not.
func TestDeliveryStatusKnown(t *testing.T) {
	t.Parallel()
	for _, s := range []sms.DeliveryStatus{sms.DeliveryStatusProcessing, sms.DeliveryStatusSent, "pending", sms.DeliveryStatusDelivered,
		sms.DeliveryStatusPartiallyDelivered, sms.DeliveryStatusFailed, sms.DeliveryStatusDND} {
		assert.True(t, s.Known(), "%q", s)
	}
	for _, s := range []sms.DeliveryStatus{"", "completed", "Delivered", "unknown"} {
		assert.False(t, s.Known(), "%q", s)
	}
}
