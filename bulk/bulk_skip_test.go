package bulk_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

// customersOf returns the recipients of the numbers bulkPhone(i) for each i, then of extra.
func customersOf(is []int, extra ...string) []sms.Recipient {
	var out []sms.Recipient
	for _, i := range is {
		out = append(out, sms.Recipient{Phone: bulkPhone(i), Name: fmt.Sprint("Customer ", i)})
	}
	for _, p := range extra {
		out = append(out, sms.Recipient{Phone: p, Name: "Extra"})
	}
	return out
}

// A job whose input changed is finished by a new job that skips the numbers the first one
// reached: only the others are sent and charged, and the new job resumes like any other.
func TestSendBulkSkipSentBy(t *testing.T) {
	t.Parallel()
	const price = 320 // kobo, one GSM part on the generic channel
	tests := []struct {
		name    string
		first   []sms.Recipient // job "first", BatchSize 2
		second  []sms.Recipient // job "second", skipping "first"
		sent    []string        // the numbers job "second" sends
		skipped int
	}{
		{
			name:    "a row fixed and rows added",
			first:   customersOf([]int{1, 2, 3, 4, 5}, "0803-BAD"),
			second:  customersOf([]int{1, 2, 3, 6, 4, 5, 7, 8}),
			sent:    []string{bulkPhone(6), bulkPhone(7), bulkPhone(8)},
			skipped: 5,
		},
		{
			name:    "a refused batch was refunded: its numbers are sent",
			first:   customersOf([]int{1, 2, 3}, mockserver.MagicRefused, "+"+bulkPhone(5)),
			second:  customersOf([]int{1, 2, 3, 5, 6}),
			sent:    []string{bulkPhone(3), bulkPhone(6)},
			skipped: 3,
		},
		{
			name:    "a number that failed delivery was sent and charged: skipped",
			first:   customersOf([]int{1}, mockserver.MagicFailed),
			second:  customersOf([]int{1, 2}, mockserver.MagicFailed),
			sent:    []string{bulkPhone(2)},
			skipped: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := mockserver.NewTest(t)
			c := newClient(t, srv)
			ws := srv.Default()
			_, err := bulk.Send(ctx, c, &bulk.Params{JobID: "first", From: "MOCKSMS", Message: "Hi {{name}}",
				Recipients: bulk.RecipientsFrom(tt.first), BatchSize: 2})
			require.NoError(t, err)
			srv.DeliverAll() // the reports come in: delivered, and failed for MagicFailed
			srv.ClearMessages()
			before, err := srv.Balance(ws.WorkspaceID, mockserver.ModeTest)
			require.NoError(t, err)

			p := &bulk.Params{JobID: "second", From: "MOCKSMS", Message: "Hi {{name}}",
				Recipients: bulk.RecipientsFrom(tt.second), BatchSize: 2, SkipSentBy: []string{"first"}}
			r, err := bulk.Send(ctx, c, p)
			require.NoError(t, err)
			assert.True(t, r.Complete)
			assert.Equal(t, tt.skipped, r.Skipped)
			assert.Equal(t, len(tt.sent), r.Sent)
			var got []string
			for _, m := range srv.Messages(mockserver.Filter{}) {
				got = append(got, m.To)
			}
			assert.ElementsMatch(t, tt.sent, got, "only the numbers the first job did not reach")
			after, err := srv.Balance(ws.WorkspaceID, mockserver.ModeTest)
			require.NoError(t, err)
			assert.Equal(t, int64(len(tt.sent)*price), before-after, "the wallet moved for the new numbers only")
			assert.Equal(t, before-after, r.Amount.Kobo())

			// Run again, as after a crash: the same numbers are skipped, the batches replayed.
			p.Recipients = bulk.RecipientsFrom(tt.second)
			again, err := bulk.Send(ctx, c, p)
			require.NoError(t, err)
			assert.Equal(t, 0, again.Sent)
			assert.Equal(t, len(tt.sent), again.Replayed)
			assert.Equal(t, tt.skipped, again.Skipped)
			final, err := srv.Balance(ws.WorkspaceID, mockserver.ModeTest)
			require.NoError(t, err)
			assert.Equal(t, after, final, "nothing charged by the rerun")
		})
	}
}

// What SkipSentBy cannot rely on stops bulk.Send before anything is read or sent: no report,
// no charge. (On virtual time: the mock's campaign of 101 stays processing until Advance.)
func TestSendBulkSkipSentByRefused(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		srv := newServer(t)
		c := newClient(t, srv)
		ws := srv.Default()
		big := make([]int, 101) // a campaign of more than 100 is processing for a second
		for i := range big {
			big[i] = i
		}
		_, err := bulk.Send(ctx, c, &bulk.Params{JobID: "big", From: "MOCKSMS", Message: "Hi", Recipients: bulk.RecipientsFrom(customersOf(big))})
		require.NoError(t, err)
		before, err := srv.Balance(ws.WorkspaceID, mockserver.ModeTest)
		require.NoError(t, err)

		tests := []struct {
			name  string
			skip  []string
			field string // of a *ValidationError
			want  string
		}{
			{name: "an unknown job", skip: []string{"nope"}, want: `bulk: job "new": SkipSentBy: no campaign with the reference "nope:k" found`},
			{name: "one known, one unknown", skip: []string{"big", "nope"}, want: `"nope:k"`},
			{name: "a campaign still processing", skip: []string{"big"}, want: "is still processing"},
			{name: "the job itself", skip: []string{"new"}, field: "SkipSentBy[0]"},
			{name: "an empty job ID", skip: []string{"big", ""}, field: "SkipSentBy[1]"},
		}
		for _, tt := range tests {
			r, err := bulk.Send(ctx, c, &bulk.Params{JobID: "new", From: "MOCKSMS", Message: "Hi",
				Recipients: bulk.RecipientsFrom(customersOf([]int{1, 500})), SkipSentBy: tt.skip})
			require.Error(t, err, tt.name)
			assert.Nil(t, r, tt.name)
			if tt.field != "" {
				var ve *sms.ValidationError
				require.ErrorAs(t, err, &ve, tt.name)
				assert.Equal(t, tt.field, ve.Field, tt.name)
			} else {
				assert.ErrorContains(t, err, tt.want, tt.name)
			}
			after, err := srv.Balance(ws.WorkspaceID, mockserver.ModeTest)
			require.NoError(t, err)
			assert.Equal(t, before, after, tt.name)
		}

		// Once the provider has taken the campaign, its numbers are known.
		require.NoError(t, srv.Advance(time.Second))
		r, err := bulk.Send(ctx, c, &bulk.Params{JobID: "new", From: "MOCKSMS", Message: "Hi",
			Recipients: bulk.RecipientsFrom(customersOf([]int{1, 500})), SkipSentBy: []string{"big"}})
		require.NoError(t, err)
		assert.Equal(t, 1, r.Skipped)
		assert.Equal(t, 1, r.Sent)
	})
}

func ExampleParams_skipSentBy() {
	// SkipSentBy finds the earlier job's campaigns by the reference in the campaign list,
	// which the live service's pages do not show: this mock lists it whatever the profile
	// the other examples run under.
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	// The first export had a typo in Bola's number: the job sent the two others.
	first := "phone,name\n08025671695,Ada\n0803123456,Bola\n08051234567,Chi\n"
	if _, err := bulk.Send(ctx, client, &bulk.Params{
		JobID: "promo", From: ws.SenderID, Message: "Hi {{name}}", Recipients: bulk.NewCSVReader(strings.NewReader(first)).All(),
	}); err != nil {
		log.Fatal(err)
	}
	// Fixed, and with a new row: a new job that skips what "promo" reached.
	fixed := "phone,name\n08025671695,Ada\n08031234567,Bola\n08051234567,Chi\n08061234567,Dayo\n"
	report, err := bulk.Send(ctx, client, &bulk.Params{
		JobID: "promo-fixed", From: ws.SenderID, Message: "Hi {{name}}", Recipients: bulk.NewCSVReader(strings.NewReader(fixed)).All(),
		SkipSentBy: []string{"promo"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(report.Sent, "sent,", report.Skipped, "skipped; charged", report.Amount)
	// Output:
	// 2 sent, 2 skipped; charged 6.40
}
