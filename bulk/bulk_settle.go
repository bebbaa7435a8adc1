package bulk

import (
	"context"
	"errors"
	"fmt"
	"github.com/seedsms/sms-go"
	"strconv"
	"time"
)

// SettleParams is the input of Settle: one batch in doubt of a journaled job,
// and what became of it.
type SettleParams struct {
	// Journal is the job's journal: the one its runs used (for a sharded job with a file
	// per shard, MultiJournal over every shard's file, the shard's own first).
	Journal Journal
	// JobID and Index name the batch: its reference is JobID + ":" + Index.
	JobID string
	Index int
	// CampaignID is the campaign the batch created, found on the server: the batch is
	// recorded as accepted, and never sent again.
	CampaignID string
	// NotSent records that the batch was never processed (no campaign of it exists): a rerun
	// sends it. Set exactly one of CampaignID and NotSent.
	NotSent bool
}

// ErrNotInDoubt matches the error of Settle for a batch that is not in doubt: the
// journal records it as accepted or refused, or has no record of it (never started).
var ErrNotInDoubt = errors.New("bulk: the batch is not in doubt")

// Settle records the outcome of one batch that a journaled bulk job left in doubt (see
// ErrBatchesInDoubt), as a person found it on the server, and returns the record appended
// to the journal. It refuses a batch that is not in doubt (accepted, refused, or never
// started), a journal of another account than the client's (ErrJournalAccount), and what
// the server's campaign list contradicts: with CampaignID, a campaign it lists under another
// reference, with another number of recipients, or one the journal already records for
// another batch; with NotSent, a campaign it lists under the batch's reference. A campaign
// the list does not show (a server that forgot it) is recorded all the same, its amount
// unknown.
//
// To find a batch's campaign: with a server whose list shows references (sms campaigns
// list), look for JobID:Index. With one that shows none, look for a campaign created in the
// minutes after the batch's intent (the error of the job gives its time) with the batch's
// number of recipients, and compare its recipients (Campaigns.AllRecipients) with the
// batch's numbers, which the journal's intent holds; when no campaign of that time and size
// exists once the settle time has passed (Params.SettleAfter), it was not sent.
//
// Endpoints: GET /v1/sms/campaigns (scope campaigns), every page: see Campaigns.All.
func Settle(ctx context.Context, c *sms.Client, p *SettleParams) (*JournalRecord, error) {
	if err := checkClient(c); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, invalid("SettleParams", "parameters are required")
	}
	switch {
	case p.Journal == nil:
		return nil, invalid("Journal", "the job's journal is required")
	case p.JobID == "" || len(p.JobID) > maxJobIDLen || !printableASCII(p.JobID):
		return nil, invalid("JobID", "a job ID is 1 to "+strconv.Itoa(maxJobIDLen)+" printable ASCII characters")
	case p.Index < 0:
		return nil, invalid("Index", "a batch index is 0 or more")
	case p.NotSent == (p.CampaignID != ""):
		return nil, invalid("CampaignID", "give either the campaign the batch created, or NotSent")
	}
	s := over(c)
	ref := p.JobID + ":" + strconv.Itoa(p.Index)
	fail := func(format string, a ...any) error {
		return fmt.Errorf("bulk: settling batch %d of bulk job %q (reference %q): "+format, append([]any{p.Index, p.JobID, ref}, a...)...)
	}
	st, err := loadJournal(ctx, p.Journal, p.JobID, nil)
	if err != nil {
		return nil, err
	}
	if err := checkJobRecords(p.JobID, s.c.Account(), st.jobs, 0); err != nil {
		return nil, fail("%w", err)
	}
	jb := st.batches[p.Index]
	switch {
	case jb == nil:
		return nil, fail("the journal has no record of it: it was never started: %w", ErrNotInDoubt)
	case jb.accepted != nil:
		return nil, fail("the journal records it as accepted, campaign %s: %w", jb.accepted.CampaignID, ErrNotInDoubt)
	case !jb.inDoubt():
		return nil, fail("the journal records it as refused, and a rerun sends it: %w", ErrNotInDoubt)
	}
	if p.CampaignID != "" {
		for k, o := range st.batches {
			if o.accepted != nil && o.accepted.CampaignID == p.CampaignID {
				return nil, fail("the journal records campaign %s as batch %d's", p.CampaignID, k)
			}
		}
	}
	var camp *sms.Campaign
	for c, err := range s.All(ctx, nil) {
		if err != nil {
			return nil, fail("reading the campaign list: %w", err)
		}
		switch {
		case p.NotSent && c.Reference == ref:
			return nil, fail("the campaign list shows campaign %s of that reference: it was sent", c.ID)
		case p.CampaignID != "" && c.ID == p.CampaignID:
			camp = &c
		}
	}
	rec := JournalRecord{Kind: JournalKindOutcome, JobID: p.JobID, Index: p.Index, Reference: ref, Attempt: jb.attempts,
		Recipients: jb.recipients, Time: time.Now()}
	switch {
	case p.NotSent:
		rec.State, rec.Resolved, rec.Reason = JournalStateRefused, "settled: not sent", "settled by hand: no campaign of it exists"
	case camp == nil:
		rec.State, rec.CampaignID, rec.AmountUnknown, rec.Resolved = JournalStateAccepted, p.CampaignID, true, "settled: sent"
	default:
		if camp.Reference != "" && camp.Reference != ref {
			return nil, fail("campaign %s has the reference %q: it is not this batch's", camp.ID, camp.Reference)
		}
		if camp.Recipients != 0 && camp.Recipients != jb.recipients {
			return nil, fail("campaign %s counts %d recipients, but the batch has %d", camp.ID, camp.Recipients, jb.recipients)
		}
		rec.State, rec.CampaignID, rec.Status, rec.Resolved = JournalStateAccepted, camp.ID, camp.Status, "settled: sent"
		rec.Amount, rec.AmountUnknown = deref(camp.Amount), camp.Amount == nil
	}
	if err := p.Journal.Append(ctx, rec); err != nil {
		return nil, fail("recording it: %w", err)
	}
	return &rec, nil
}
