package sms_test

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

func TestSenderIDs(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	ctx := context.Background()

	sid, err := client.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "Order updates", Company: "Acme Ltd"})
	require.NoError(t, err)
	assert.Len(t, sid.ID, 24)
	assert.Equal(t, "ACME", sid.Title)
	assert.Equal(t, sms.SenderIDStatusPending, sid.Status)
	assert.Equal(t, "Nigeria", sid.Country)
	assert.Equal(t, "Order updates", sid.UseCase)
	assert.Equal(t, "Acme Ltd", sid.Company)
	require.NotNil(t, sid.CreatedAt)
	assert.WithinDuration(t, srv.Now(), *sid.CreatedAt, time.Minute)

	_, err = client.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "acme", UseCase: "again", Company: "Acme Ltd"})
	require.ErrorIs(t, err, sms.ErrConflict, "a duplicate pending title, ignoring case")

	send := func() error {
		_, err := client.SMS.Send(ctx, &sms.SendParams{To: []string{"2348025671695"}, From: "ACME", Message: "hi"})
		return err
	}
	require.ErrorIs(t, send(), sms.ErrBadRequest, "pending sender IDs cannot send")
	require.NoError(t, srv.ApproveSenderID(sid.ID))
	require.NoError(t, send())

	blocked, err := client.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "SPAM", UseCase: "x", Company: "y"})
	require.NoError(t, err)
	require.NoError(t, srv.BlockSenderID(blocked.ID))

	titles := func(p *sms.ListSenderIDsParams) []string {
		list, err := client.SenderIDs.List(ctx, p)
		require.NoError(t, err)
		out := []string{}
		for _, s := range list.Items {
			out = append(out, s.Title)
		}
		return out
	}
	assert.Equal(t, []string{"SPAM", "ACME", "MOCKSMS"}, titles(nil), "newest first")
	assert.Equal(t, []string{"ACME", "MOCKSMS"}, titles(&sms.ListSenderIDsParams{Status: sms.SenderIDStatusActive}))
	assert.Equal(t, []string{"SPAM"}, titles(&sms.ListSenderIDsParams{Status: sms.SenderIDStatusBlocked}))
	assert.Equal(t, []string{"ACME", "MOCKSMS"}, titles(&sms.ListSenderIDsParams{Status: "Active"}), "a status word in any case, sent as the pages show it")
	assert.Equal(t, []string{}, titles(&sms.ListSenderIDsParams{Status: sms.SenderIDStatusPending}))
}

func TestSenderIDsRetryPolicy(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	p := &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "Order updates", Company: "Acme Ltd"}

	srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sender-ids", Status: 502, Times: 1})
	_, err := client.SenderIDs.Request(context.Background(), p)
	require.ErrorIs(t, err, sms.ErrServer)
	assert.Equal(t, 1, requestsTo(srv, "POST", "/v1/sender-ids"), "not retried on 502")

	srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sender-ids", Drop: true, Times: 1})
	_, err = client.SenderIDs.Request(context.Background(), p)
	require.ErrorIs(t, err, sms.ErrOutcomeUnknown)
	list, err := client.SenderIDs.List(context.Background(), &sms.ListSenderIDsParams{Status: sms.SenderIDStatusPending})
	require.NoError(t, err)
	assert.Len(t, list.Items, 1, "the dropped request was processed")

	_, err = newScopedClient(t, srv, sms.ScopeSMS).SenderIDs.List(context.Background(), nil)
	var se *sms.ScopeError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, sms.ScopeSenderIDs, se.Scope)
}

func TestSenderIDsCountry(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	ws, err := srv.NewWorkspace(mockserver.WorkspaceParams{Country: "Ghana"})
	require.NoError(t, err)
	c := newClientOf(t, srv, ws.LiveKey, ws.LiveSecret)
	list, err := c.SenderIDs.List(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "Ghana", list.Items[0].Country)
}

// collect returns the items of seq, failing t on an error.
func collect[T any](t *testing.T, seq iter.Seq2[T, error]) []T {
	t.Helper()
	out := []T{}
	for v, err := range seq {
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}

func TestListIterators(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client, dash := newClient(t, srv), newDashboardClient(t, srv)
	ctx := context.Background()
	_, err := client.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "alerts", Company: "Acme"})
	require.NoError(t, err)
	_, err = dash.Keys.Create(ctx, &sms.CreateKeyParams{Name: "ci", Scopes: sms.Scopes{sms.ScopeSMS}})
	require.NoError(t, err)

	keys, err := dash.Keys.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, keys.Items, 3)
	assert.Equal(t, sms.Pagination{Total: 3}, keys.Pagination, "the key list is not paged: its stated count is the total")
	assert.Equal(t, keys.Items, collect(t, dash.Keys.All(ctx, nil)))

	p := &sms.ListSenderIDsParams{Status: sms.SenderIDStatusPending}
	pending, err := client.SenderIDs.List(ctx, p)
	require.NoError(t, err)
	require.Len(t, pending.Items, 1)
	assert.Equal(t, sms.Pagination{Total: 1}, pending.Pagination, "the sender ID list is not paged: its stated count is the total")
	assert.Equal(t, pending.Items, collect(t, client.SenderIDs.All(ctx, p)))

	n := 0
	for range client.SenderIDs.All(ctx, nil) {
		n++
		break
	}
	assert.Equal(t, 1, n, "breaking out of the loop stops it")

	errs := 0
	for s, err := range newScopedClient(t, srv, sms.ScopeSMS).SenderIDs.All(ctx, nil) {
		require.ErrorIs(t, err, sms.ErrInsufficientScope)
		assert.Zero(t, s)
		errs++
	}
	assert.Equal(t, 1, errs, "the list's error is yielded once")
}
