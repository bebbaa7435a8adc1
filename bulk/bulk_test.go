package bulk_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

// The inputs and checks of bulk jobs below are shared by the tests of bulk.Send's public
// types (here), of its job engine (bulk_job_test.go), of its reader (bulk_read_test.go) and
// of bulk.Wait (wait_test.go).

const bulkMessage = "Hi {{name}}, your order has shipped."

// bulkInput is a job's input: n distinct valid recipients, with dups duplicates (the same
// numbers written the local way, so that only normalisation finds them) and bad invalid
// numbers spread through it. It is a function so that every run reads the same sequence.
type bulkInput struct {
	n, dups, bad int
}

func (in bulkInput) total() int { return in.n + in.dups + in.bad }

// phone is the i-th distinct number, international.
func bulkPhone(i int) string { return fmt.Sprintf("2348%09d", i) }

// badPositions are the input positions of the invalid numbers.
func (in bulkInput) badPositions() []int {
	out := make([]int, in.bad)
	for k := range out {
		out[k] = (k + 1) * in.total() / (in.bad + 1)
	}
	return out
}

func (in bulkInput) seq() iter.Seq2[sms.Recipient, error] {
	return func(yield func(sms.Recipient, error) bool) {
		bad := in.badPositions()
		next, dup := 0, 0
		for pos := range in.total() {
			var r sms.Recipient
			switch {
			case len(bad) > 0 && pos == bad[0]:
				bad = bad[1:]
				r = sms.Recipient{Phone: "12-34", Name: "Bad"}
			case dup < in.dups && next > 0 && pos%7 == 3:
				i := (dup * 31) % next
				dup++
				r = sms.Recipient{Phone: "0" + bulkPhone(i)[3:], Name: "Again"} // local form of an earlier number
			case next < in.n:
				r = sms.Recipient{Phone: "+" + bulkPhone(next), Name: fmt.Sprintf("Customer %d", next)}
				next++
			default:
				i := (dup * 31) % next
				dup++
				r = sms.Recipient{Phone: bulkPhone(i), Name: "Again"}
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// campaignsOf returns every campaign of the test mode with the multiplicity of every number
// sent, read through the API after the mock has had time to hand them to the provider.
func campaignsOf(t *testing.T, srv *mockserver.Server, c *sms.Client) ([]sms.Campaign, map[string]int) {
	t.Helper()
	srv.Advance(time.Second) // processing campaigns reach the provider
	ctx := context.Background()
	var camps []sms.Campaign
	for cp, err := range c.Campaigns.All(ctx, nil) {
		require.NoError(t, err)
		camps = append(camps, cp)
	}
	seen := map[string]int{}
	for _, cp := range camps {
		for r, err := range c.Campaigns.AllRecipients(ctx, cp.ID, nil) {
			require.NoError(t, err)
			seen[r.To]++
		}
	}
	return camps, seen
}

func bulkParams(jobID string, in bulkInput, batch int) *bulk.Params {
	return &bulk.Params{JobID: jobID, From: "MOCKSMS", Message: bulkMessage, Recipients: in.seq(), BatchSize: batch}
}

func sumBatches(r *bulk.Report) (recipients int, amount sms.Amount) {
	for _, b := range r.Batches {
		recipients += b.Recipients
		if !b.Replayed && b.Err == nil {
			amount = amount.Add(b.Amount)
		}
	}
	return recipients, amount
}

// Every parameter that bulk.Send refuses is a *ValidationError naming the field, before any
// request.
func TestSendBulkValidation(t *testing.T) {
	t.Parallel()
	seq := bulk.RecipientsFrom([]sms.Recipient{{Phone: "08030000001"}})
	ok := func() bulk.Params {
		return bulk.Params{JobID: "job", From: "MOCKSMS", Message: "hi", Recipients: seq}
	}
	tests := []struct {
		name  string
		edit  func(*bulk.Params)
		field string
	}{
		{"no job ID", func(p *bulk.Params) { p.JobID = "" }, "JobID"},
		{"job ID too long", func(p *bulk.Params) { p.JobID = strings.Repeat("j", bulk.MaxJobIDLen+1) }, "JobID"},
		{"job ID not ASCII", func(p *bulk.Params) { p.JobID = "job\n" }, "JobID"},
		{"no sender", func(p *bulk.Params) { p.From = "" }, "From"},
		{"no message", func(p *bulk.Params) { p.Message = "" }, "Message"},
		{"message too long", func(p *bulk.Params) { p.Message = strings.Repeat("x", 1531) }, "Message"},
		{"message too long whatever the names", func(p *bulk.Params) { p.Message = "{{name}}" + strings.Repeat("x", 1531) }, "Message"},
		{"message not UTF-8", func(p *bulk.Params) { p.Message = "Caf\xe9 opens at 9" }, "Message"},
		{"bad channel", func(p *bulk.Params) { p.Channel = "sms" }, "Channel"},
		{"no recipients", func(p *bulk.Params) { p.Recipients = nil }, "Recipients"},
		{"batch too large", func(p *bulk.Params) { p.BatchSize = 10_001 }, "BatchSize"},
		{"negative batch", func(p *bulk.Params) { p.BatchSize = -1 }, "BatchSize"},
		{"negative concurrency", func(p *bulk.Params) { p.Concurrency = -1 }, "Concurrency"},
		{"concurrency too high", func(p *bulk.Params) { p.Concurrency = bulk.MaxConcurrency + 1 }, "Concurrency"},
		{"concurrency that would not fit in memory", func(p *bulk.Params) { p.Concurrency = math.MaxInt }, "Concurrency"},
		{"negative pause", func(p *bulk.Params) { p.MaxRetryAfter = -time.Second }, "MaxRetryAfter"},
		{"rate not a number", func(p *bulk.Params) { p.Rate = math.NaN() }, "Rate"},
		{"negative rate", func(p *bulk.Params) { p.Rate = -1 }, "Rate"},
		{"shard past count", func(p *bulk.Params) { p.Shard = bulk.Shard{Index: 4, Count: 4} }, "Shard"},
		{"shard without count", func(p *bulk.Params) { p.Shard = bulk.Shard{Index: 1} }, "Shard"},
		{"negative shard", func(p *bulk.Params) { p.Shard = bulk.Shard{Index: -1, Count: 2} }, "Shard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, ct := offlineClients(t)
			p := ok()
			tt.edit(&p)
			r, err := bulk.Send(context.Background(), c, &p)
			var ve *sms.ValidationError
			require.True(t, errors.As(err, &ve), "got %v", err)
			assert.Equal(t, tt.field, ve.Field)
			assert.ErrorIs(t, err, sms.ErrInvalidParams)
			assert.Nil(t, r)
			assert.Zero(t, ct.N.Load())
		})
	}
	c, _, _ := offlineClients(t)
	_, err := bulk.Send(context.Background(), c, nil)
	assert.ErrorIs(t, err, sms.ErrInvalidParams)
}

// Every call of the package refuses a nil client as it refuses bad parameters, before
// anything else: no panic.
func TestNilClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := &bulk.Params{JobID: "job", From: "MOCKSMS", Message: "hi", Recipients: bulk.RecipientsFrom(nil)}
	_, sendErr := bulk.Send(ctx, nil, p)
	_, settleErr := bulk.Settle(ctx, nil, &bulk.SettleParams{})
	_, waitErr := bulk.Wait(ctx, nil, &bulk.Report{}, nil)
	_, waitCampaignErr := bulk.WaitCampaign(ctx, nil, "c1", nil)
	for _, err := range []error{sendErr, settleErr, waitErr, waitCampaignErr} {
		var ve *sms.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "Client", ve.Field)
	}
}
