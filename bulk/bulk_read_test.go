package bulk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

func TestSendBulkShards(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		c := newClient(t, srv)
		fund(t, srv, 100_000_000)
		in := bulkInput{n: 2_050, dups: 60, bad: 3}
		ctx := context.Background()
		run := func(i int) *bulk.Report {
			p := bulkParams("sharded", in, 100)
			p.Shard = bulk.Shard{Index: i, Count: 4}
			r, err := bulk.Send(ctx, c, p)
			require.NoError(t, err)
			require.True(t, r.Complete)
			return r
		}
		reports := make([]*bulk.Report, 4)
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() { reports[i] = run(i) })
		}
		wg.Wait()
		total := 0
		for i, r := range reports {
			for _, b := range r.Batches {
				assert.Equal(t, i, b.Index%4, "shard %d sends only its batches", i)
			}
			assert.Equal(t, 60, r.Duplicates, "every shard reads the whole input")
			assert.Equal(t, 3, r.Invalid)
			total += r.Sent
		}
		assert.Equal(t, 2_050, total)
		assert.Len(t, reports[0].Batches, 6, "21 batches: 0, 4, ..., 20")
		assert.Len(t, reports[3].Batches, 5)

		again := run(2) // a crashed shard is run again
		assert.Equal(t, 0, again.Sent)
		assert.Equal(t, reports[2].Sent, again.Replayed)

		camps, seen := campaignsOf(t, srv, c)
		assert.Len(t, camps, 21)
		assert.Len(t, seen, 2_050)
		for phone, k := range seen {
			if k != 1 {
				t.Errorf("%s was sent %d times", phone, k)
			}
		}
		var charged int64
		for _, r := range append(reports, again) {
			charged += r.Amount.Kobo()
		}
		assert.Equal(t, int64(100_000_000)-charged, balance(t, srv))
	})
}

func TestSendBulkSkipsNamesThatDoNotFit(t *testing.T) {
	t.Parallel()
	c, _, _ := offlineClients(t)
	people := []sms.Recipient{
		{Phone: "08030000001", Name: "Ada"},
		{Phone: "08030000002", Name: strings.Repeat("n", 101)}, // too long a name
		{Phone: "08030000003", Name: strings.Repeat("€", 100)}, // the message takes 11 parts
		{Phone: "08030000002", Name: "Obi"},                    // the number's first valid entry
		{Phone: "2348030000001", Name: "Ada again"},            // duplicate
	}
	r, err := bulk.Send(context.Background(), c, &bulk.Params{
		JobID: "names", From: "MOCKSMS", Message: "{{name}} " + strings.Repeat("{{name}}", 6) + strings.Repeat("x", 160),
		Recipients: bulk.RecipientsFrom(people), DryRun: true,
	})
	require.NoError(t, err)
	assert.Equal(t, 2, r.Recipients)
	assert.Equal(t, 1, r.Duplicates)
	require.Len(t, r.InvalidRecipients, 2)
	assert.Equal(t, bulk.InvalidRecipient{Position: 1, Field: "Name", Reason: `the name "` + strings.Repeat("n", 40) + `"… is 101 characters; at most 100 are allowed`}, r.InvalidRecipients[0])
	assert.Equal(t, 2, r.InvalidRecipients[1].Position)
	assert.Contains(t, r.InvalidRecipients[1].Reason, "11 SMS parts")
}

// A name that is not valid UTF-8 (from a Latin-1 file, say) would reach the server with
// U+FFFD in place of each bad byte, and be charged as UCS-2: its recipient is invalid,
// skipped and reported like a bad number. (Such a message is refused before any request:
// see TestSendBulkValidation.)
func TestSendBulkSkipsNamesThatAreNotUTF8(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newServer(t)
	c := newClient(t, srv)
	people := []sms.Recipient{
		{Phone: "08030000001", Name: "Ada"},
		{Phone: "08030000002", Name: "Jos\xe9"}, // Latin-1
		{Phone: "08030000003", Name: "Obi"},
		{Phone: "08030000002", Name: "José"}, // the number's first valid entry
	}
	r, err := bulk.Send(ctx, c, &bulk.Params{JobID: "names", From: "MOCKSMS", Message: "Hi {{name}}", Recipients: bulk.RecipientsFrom(people)})
	require.NoError(t, err)
	assert.True(t, r.Complete)
	assert.Equal(t, 3, r.Sent)
	assert.Equal(t, 0, r.Duplicates)
	assert.Equal(t, []bulk.InvalidRecipient{{Position: 1, Field: "Name", Reason: `the name "Jos\xe9" is not valid UTF-8`}}, r.InvalidRecipients)
	assert.Equal(t, int64(3*320), r.Amount.Kobo(), "one GSM part each")
	msgs := srv.Messages(mockserver.Filter{To: "2348030000002"})
	require.Len(t, msgs, 1)
	assert.Equal(t, "Hi José", msgs[0].Text)
}

// A message that is empty once {{name}} is filled, for a recipient without a name, would
// make the server refuse the whole batch on every run: that recipient is invalid, skipped
// and reported. A message that is not empty without a name is sent to such recipients.
func TestSendBulkEmptyMessageWithoutName(t *testing.T) {
	t.Parallel()
	people := []sms.Recipient{{Phone: "08030000001", Name: "Ada"}, {Phone: "08030000002"}, {Phone: "08030000003", Name: "Obi"}}
	tests := []struct {
		message string
		sent    int
		invalid []bulk.InvalidRecipient
	}{
		{"{{name}}", 2, []bulk.InvalidRecipient{{Position: 1, Field: "Name", Reason: "the message is empty without a name"}}},
		{"{{name}}{{name}}", 2, []bulk.InvalidRecipient{{Position: 1, Field: "Name", Reason: "the message is empty without a name"}}},
		{"Hi {{name}}", 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.message, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			c := newClient(t, srv)
			r, err := bulk.Send(context.Background(), c, &bulk.Params{
				JobID: "unnamed", From: "MOCKSMS", Message: tt.message, Recipients: bulk.RecipientsFrom(people),
			})
			require.NoError(t, err)
			assert.True(t, r.Complete)
			assert.Equal(t, tt.sent, r.Sent)
			assert.Equal(t, tt.invalid, r.InvalidRecipients)
			assert.Equal(t, len(tt.invalid), r.Invalid)
		})
	}
}

// Large names are escaped by encoding/json up to six times their size, and so is a JobID
// of <, >, & (as \u003c and so on), " or \ in every batch's reference: batches are cut so
// that every request body stays within the API's 1 MiB, whatever the JobID.
func TestSendBulkCutsBatchesUnderOneMiB(t *testing.T) {
	t.Parallel()
	for _, jobID := range []string{"big-names", strings.Repeat("<", bulk.MaxJobIDLen), strings.Repeat(`&"\>`, bulk.MaxJobIDLen/4)} {
		t.Run(jobID[:min(len(jobID), 10)], func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			rec := &recorder{Base: srv.Transport()}
			c := newClient(t, srv, sms.WithHTTPClient(&http.Client{Transport: rec}))
			fund(t, srv, 100_000_000)
			names := []string{strings.Repeat("<&>", 33), strings.Repeat("é\"", 50), strings.Repeat("\u2028", 100)}
			seq := func(yield func(sms.Recipient, error) bool) {
				for i := range 5000 { // about 500 bytes each: three batches
					if !yield(sms.Recipient{Phone: bulkPhone(i), Name: names[i%len(names)]}, nil) {
						return
					}
				}
			}
			r, err := bulk.Send(context.Background(), c, &bulk.Params{
				JobID: jobID, From: "MOCKSMS", Message: "{{name}}", Recipients: seq, Concurrency: 2,
			})
			require.NoError(t, err)
			require.True(t, r.Complete)
			bodies := rec.Sent()
			require.Greater(t, len(bodies), 2, "cut before 10,000")
			total, sizes := 0, map[string]int{}
			for _, b := range bodies {
				var v struct {
					To        []json.RawMessage
					Reference string
				}
				require.NoError(t, json.Unmarshal([]byte(b), &v))
				total += len(v.To)
				sizes[v.Reference] = len(b)
			}
			assert.Equal(t, 5000, total)
			require.Len(t, sizes, len(bodies), "one request per batch")
			for k := range len(bodies) {
				size := sizes[fmt.Sprintf("%s:%d", jobID, k)]
				assert.LessOrEqual(t, size, 1<<20, "batch %d", k)
				if k < len(bodies)-1 {
					assert.Greater(t, size, 1<<20-2000, "batch %d is cut only when the next recipient would not fit", k)
				}
			}
		})
	}
}
