package sms

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"
)

// bulkJournal is what a run of Bulk.Send knows from BulkParams.Journal about the batches of
// its shard, and the batches it holds back until the input has been checked against it.
type bulkJournal struct {
	j       Journal
	batches map[int]*journaled // by index, this shard's only
	last    int                // the highest index in batches; -1 for none
	held    []*bulkBatch       // batches to send, below last, read before the input reached it
	holding bool               // the input has not been read past last yet
}

// journaled is a batch as the journal records it.
type journaled struct {
	digest     string
	recipients int
	attempts   int          // the highest Attempt of its intents
	state      JournalState // of the outcome of the latest intent; "" when it has none
	accepted   *JournalRecord
	reason     string // why it is in doubt, or was refused
	resend     bool   // in doubt, and to be sent again
}

// inDoubt reports whether the batch may or may not have been sent.
func (b *journaled) inDoubt() bool {
	return b.accepted == nil && (b.state == "" || b.state == JournalUnknown)
}

// journalCorrupt is the error of records that make no sense together, whatever Journal
// returned them.
func journalCorrupt(job string, format string, a ...any) error {
	return &JournalCorruptError{Path: "records of job " + strconv.Quote(job), Reason: fmt.Sprintf(format, a...)}
}

// loadJournal reads the records of job from jr and returns its batches, those of shard
// only when keep is not nil.
func loadJournal(ctx context.Context, jr Journal, job string, keep func(int) bool) (map[int]*journaled, map[int][]string, error) {
	recs, err := jr.Load(ctx, job)
	if err != nil {
		return nil, nil, fmt.Errorf("sms: bulk job %q: loading the journal: %w", job, err)
	}
	batches := make(map[int]*journaled)
	numbers := make(map[int][]string)
	for i := range recs {
		r := &recs[i]
		if err := checkRecord(r); err != nil {
			return nil, nil, journalCorrupt(job, "record %d: %v", i+1, err)
		}
		if r.JobID != job {
			return nil, nil, journalCorrupt(job, "record %d is of job %q", i+1, r.JobID)
		}
		if keep != nil && !keep(r.Index) {
			continue
		}
		b := batches[r.Index]
		switch r.Kind {
		case JournalIntent:
			if b == nil {
				b = &journaled{digest: r.Digest, recipients: r.Recipients}
				batches[r.Index] = b
			} else if b.digest != r.Digest {
				return nil, nil, journalCorrupt(job, "batch %d has intents of two digests", r.Index)
			}
			if r.Attempt > b.attempts {
				b.attempts, b.state, b.reason = r.Attempt, "", ""
			}
			numbers[r.Index] = r.Numbers
		case JournalOutcome:
			if b == nil || r.Attempt > b.attempts {
				return nil, nil, journalCorrupt(job, "record %d: an outcome of batch %d without its intent", i+1, r.Index)
			}
			if r.Recipients != b.recipients {
				return nil, nil, journalCorrupt(job, "record %d: an outcome of batch %d of %d recipients, its intent %d", i+1, r.Index, r.Recipients, b.recipients)
			}
			if r.State == JournalAccepted && b.accepted == nil {
				b.accepted = r // accepted once, never sent again
			}
			if r.Attempt == b.attempts {
				b.state, b.reason = r.State, r.Reason
			}
		}
	}
	return batches, numbers, nil
}

// openJournal loads the job's records into j, and settles the batches an earlier run left in
// doubt (see resolveInDoubt).
func (j *bulkJob) openJournal(ctx context.Context) error {
	p := j.p
	count := max(p.Shard.Count, 1)
	batches, _, err := loadJournal(ctx, p.Journal, p.JobID, func(k int) bool { return k%count == p.Shard.Index })
	if err != nil {
		return err
	}
	bj := &bulkJournal{j: p.Journal, batches: batches, last: -1}
	for k := range batches {
		bj.last = max(bj.last, k)
	}
	bj.holding = bj.last >= 0
	j.jr = bj
	if p.DryRun {
		return nil // a dry run asks the server nothing: what is in doubt stays so
	}
	return j.resolveInDoubt(ctx)
}

// resolveInDoubt settles the batches an earlier run left in doubt: sent again when the
// server deduplicates references (it answers a batch it took from the first attempt);
// otherwise looked up by reference in the server's campaign list, when it lists references:
// a batch found there is recorded as accepted, one not found is sent. What remains in doubt
// is sent again only with ResendInDoubt.
func (j *bulkJob) resolveInDoubt(ctx context.Context) error {
	doubt := make(map[string]int) // reference to index
	for k, b := range j.jr.batches {
		if b.inDoubt() {
			doubt[j.reference(k)] = k
		}
	}
	if len(doubt) == 0 {
		return nil
	}
	if j.s.c.dedup || j.p.ResendInDoubt {
		for _, k := range doubt {
			j.jr.batches[k].resend = true
		}
		return nil
	}
	lists := false // the server shows a campaign's reference in its list
	found := make(map[int]Campaign)
	for c, err := range j.s.All(ctx, nil) {
		if err != nil {
			return fmt.Errorf("sms: bulk job %q: looking for the batches in doubt in the campaign list: %w", j.p.JobID, err)
		}
		if c.Reference == "" {
			continue
		}
		lists = true
		if k, ok := doubt[c.Reference]; ok {
			if prev, dup := found[k]; dup && prev.ID != c.ID {
				return fmt.Errorf("sms: bulk job %q: the campaign list holds two campaigns of batch %d (reference %q): %s and %s",
					j.p.JobID, k, c.Reference, prev.ID, c.ID)
			}
			found[k] = c
		}
	}
	if !lists {
		return nil // nothing to tell by: they stay in doubt
	}
	for _, ref := range slices.Sorted(maps.Keys(doubt)) {
		k := doubt[ref]
		b := j.jr.batches[k]
		c, ok := found[k]
		if !ok {
			b.resend = true // the server lists references, and has none of this batch
			continue
		}
		if c.Recipients != 0 && c.Recipients != b.recipients {
			return fmt.Errorf("sms: bulk job %q: campaign %s of batch %d (reference %q) counts %d recipients, but the journal recorded %d",
				j.p.JobID, c.ID, k, c.Reference, c.Recipients, b.recipients)
		}
		rec := JournalRecord{
			Kind: JournalOutcome, JobID: j.p.JobID, Index: k, Reference: c.Reference, Attempt: b.attempts, Recipients: b.recipients,
			State: JournalAccepted, CampaignID: c.ID, Status: c.Status, Amount: val(c.Amount), AmountUnknown: c.Amount == nil,
			Resolved: "campaign list", Time: time.Now(),
		}
		if err := j.jr.j.Append(ctx, rec); err != nil {
			return fmt.Errorf("sms: bulk job %q: recording batch %d, found in the campaign list: %w", j.p.JobID, k, err)
		}
		b.accepted, b.state = &rec, JournalAccepted
	}
	return nil
}

// journalEmit hands a batch read from the input to the workers through the journal: a batch
// the journal records as accepted, or that stays in doubt, is reported without being sent; a
// batch that differs from its record stops the job; a batch to send below the last one the
// journal records is held until the input has been read up to it. It reports whether the
// job goes on.
func (j *bulkJob) journalEmit(ctx context.Context, b *bulkBatch, work chan<- *bulkBatch) bool {
	jr := j.jr
	b.digest = batchDigest(j.p, b.to)
	rec := jr.batches[b.index]
	if rec != nil {
		if rec.digest != b.digest || rec.recipients != len(b.to) {
			j.pool.put(b.to)
			j.stop(j.mismatch(b.index, fmt.Sprintf("its recipients or message differ from the %d the journal recorded", rec.recipients)))
			return false
		}
		b.attempt = rec.attempts + 1
		switch {
		case rec.accepted != nil:
			a := rec.accepted
			j.pool.put(b.to)
			j.record(BulkBatch{Index: b.index, Reference: j.reference(b.index), CampaignID: a.CampaignID, Status: a.Status,
				Recipients: len(b.to), Parts: b.parts, Amount: a.Amount, AmountUnknown: a.AmountUnknown, FromJournal: true}, b.total, nil)
			return true
		case rec.inDoubt() && !rec.resend:
			j.pool.put(b.to)
			why := cmp.Or(rec.reason, "its request was written, and no outcome was recorded")
			j.record(BulkBatch{Index: b.index, Reference: j.reference(b.index), Recipients: len(b.to), Parts: b.parts, InDoubt: true,
				Err: fmt.Errorf("%w: batch %d (reference %q) of an earlier run may have been sent: %s; the server is not known to deduplicate references "+
					"(see WithReferenceDeduplication) and its campaign list does not settle it: check for a campaign of that reference, "+
					"then run the job again with ResendInDoubt only if there is none", ErrBatchesInDoubt, b.index, j.reference(b.index), why)}, b.total, nil)
			return true
		}
	} else {
		b.attempt = 1
	}
	if j.p.DryRun { // a batch a run would send (again): reported as a dry run reports it
		j.record(BulkBatch{Index: b.index, Reference: j.reference(b.index), Recipients: len(b.to), Parts: b.parts}, b.total, nil)
		j.pool.put(b.to)
		return true
	}
	if jr.holding && b.index < jr.last {
		jr.held = append(jr.held, b)
		return true
	}
	if jr.holding && !j.releaseHeld(ctx, work) {
		j.pool.put(b.to)
		return false
	}
	return j.handOver(ctx, b, work)
}

// batchDigest is BatchDigest of a batch on its way to a worker.
func batchDigest(p *BulkParams, to []wireRecipient) string {
	rs := make([]Recipient, len(to))
	for i, r := range to {
		rs[i] = Recipient(r)
	}
	return BatchDigest(p.From, p.Channel, p.Message, rs)
}

// mismatch is the error of a batch that differs from the journal's record.
func (j *bulkJob) mismatch(index int, what string) error {
	return fmt.Errorf("sms: bulk job %q: batch %d (reference %q): %s: the input, the message, the sender, the channel or the batch size "+
		"changed since an earlier run of the job; nothing was sent. Run it with the same ones, or send the new input under a new JobID "+
		"with SkipSentBy: []string{%q} and the same Journal: %w", j.p.JobID, index, j.reference(index), what, j.p.JobID, ErrJournalMismatch)
}

// releaseHeld ends the holding: the input has been checked up to the journal's last batch.
// It hands the held batches over, and reports whether the job goes on.
func (j *bulkJob) releaseHeld(ctx context.Context, work chan<- *bulkBatch) bool {
	jr := j.jr
	jr.holding = false
	held := jr.held
	jr.held = nil
	for i, b := range held {
		if !j.handOver(ctx, b, work) {
			for _, rest := range held[i+1:] {
				j.pool.put(rest.to)
			}
			return false
		}
	}
	return true
}

// journalEnd is called once the whole input was read: a batch the journal records that the
// input no longer holds stops the job; otherwise the held batches go.
func (j *bulkJob) journalEnd(ctx context.Context, batches int, work chan<- *bulkBatch) bool {
	jr := j.jr
	if jr.last >= batches {
		j.dropHeld()
		j.stop(j.mismatch(jr.last, fmt.Sprintf("the journal records it, but the input now ends at batch %d", batches-1)))
		return false
	}
	if jr.holding {
		return j.releaseHeld(ctx, work)
	}
	return true
}

// dropHeld releases the held batches of a job that stops.
func (j *bulkJob) dropHeld() {
	if j.jr == nil {
		return
	}
	for _, b := range j.jr.held {
		j.pool.put(b.to)
	}
	j.jr.held = nil
}

// journalIntent records that batch b is about to be sent.
func (j *bulkJob) journalIntent(ctx context.Context, b *bulkBatch, ref string) error {
	nums := make([]string, len(b.to))
	for i := range b.to {
		nums[i] = b.to[i].Phone
	}
	return j.jr.j.Append(ctx, JournalRecord{
		Kind: JournalIntent, JobID: j.p.JobID, Index: b.index, Reference: ref, Attempt: b.attempt, Digest: b.digest,
		Recipients: len(b.to), Numbers: nums, Time: time.Now(),
	})
}

// journalOutcome records the outcome of batch b's request: res as the report holds it.
// It is written even when ctx has ended: what the answer said is known.
func (j *bulkJob) journalOutcome(ctx context.Context, b *bulkBatch, res *BulkBatch) error {
	rec := JournalRecord{Kind: JournalOutcome, JobID: j.p.JobID, Index: b.index, Reference: res.Reference, Attempt: b.attempt,
		Recipients: len(b.to), Time: time.Now()}
	switch {
	case res.Err == nil:
		rec.State, rec.CampaignID, rec.Status, rec.Amount, rec.AmountUnknown = JournalAccepted, res.CampaignID, res.Status, res.Amount, res.AmountUnknown
	case res.Unconfirmed: // the server took it: sent, at a cost unknown
		rec.State, rec.CampaignID, rec.Status, rec.AmountUnknown, rec.Reason = JournalAccepted, res.CampaignID, res.Status, true, journalReason(res.Err)
	case errors.Is(res.Err, ErrOutcomeUnknown):
		rec.State, rec.Reason = JournalUnknown, journalReason(res.Err)
	default:
		rec.State, rec.Reason = JournalRefused, journalReason(res.Err)
	}
	return j.jr.j.Append(context.WithoutCancel(ctx), rec)
}

// journalReason is err's text for a record, bounded.
func journalReason(err error) string {
	s := err.Error()
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// journalStop stops the job on a journal that cannot record a batch.
func (j *bulkJob) journalStop(index int, what string, err error) {
	j.stop(fmt.Errorf("sms: bulk job %q stopped at batch %d: the journal cannot record its %s: %w", j.p.JobID, index, what, err))
}

// sentByJournal returns the numbers that job, an earlier job of which the journal holds
// records, sent, and false when the journal has none of it.
func (s *CampaignsService) sentByJournal(ctx context.Context, p *BulkParams, job string, sent *numberSet) (bool, error) {
	batches, numbers, err := loadJournal(ctx, p.Journal, job, nil)
	if err != nil {
		return false, err
	}
	if len(batches) == 0 {
		return false, nil
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("sms: bulk job %q: SkipSentBy %q, from the journal: "+format+"; set SkipSentByPartial to send their numbers anyway",
			append([]any{p.JobID, job}, a...)...)
	}
	last := slices.Max(slices.Collect(maps.Keys(batches)))
	if !p.SkipSentByPartial && len(batches) != last+1 {
		for k := range last {
			if batches[k] == nil {
				return false, fail("the journal has no record of batch %d, though it has batch %d (a batch sent by another shard, or another journal)", k, last)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(batches)) {
		b := batches[k]
		switch {
		case b.accepted != nil && b.accepted.Status == CampaignStatusFailed: // refused by the provider and refunded: it reached nobody
			continue
		case b.accepted != nil:
		case b.inDoubt() && !p.SkipSentByPartial:
			return false, fail("batch %d is in doubt (it may have been sent): run job %q again with the journal to settle it first", k, job)
		case b.inDoubt(): // skipped: never sent twice
		default: // refused: nothing was sent
			continue
		}
		for _, n := range numbers[k] {
			x, _ := strconv.ParseUint(n, 10, 64) // checked by checkRecord
			sent.add(x)
		}
	}
	return true, nil
}
