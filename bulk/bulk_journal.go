package bulk

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/seedsms/sms-go"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// bulkJournal is what a run of Send knows from Params.Journal about the batches of
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
	intent     time.Time    // when the latest intent was made
	state      JournalState // of the outcome of the latest intent; "" when it has none
	accepted   *JournalRecord
	reason     string // why it is in doubt, or was refused
	resend     bool   // in doubt, and to be sent again
}

// inDoubt reports whether the batch may or may not have been sent.
func (b *journaled) inDoubt() bool {
	return b.accepted == nil && (b.state == "" || b.state == JournalStateUnknown)
}

// journalCorrupt is the error of records that make no sense together, whatever Journal
// returned them.
func journalCorrupt(job string, format string, a ...any) error {
	return &JournalCorruptError{Path: "records of job " + strconv.Quote(job), Reason: fmt.Sprintf(format, a...)}
}

// kindRank orders the records of one attempt of a batch: its intent before its outcomes.
func kindRank(k JournalKind) int {
	if k == JournalKindIntent {
		return 0
	}
	return 1
}

// journalState is what a journal records of a job: its batches (those of one shard when
// loaded for one), their numbers, and its job records.
type journalState struct {
	batches map[int]*journaled
	numbers map[int][]string
	jobs    []JournalRecord // the JournalKindJob records, one per shard and layout
}

// loadJournal reads the records of job from jr and returns its batches, those of shard
// only when keep is not nil. The records of each batch are taken in the order of their
// attempts, intent first, whatever order the journal returns them in (a MultiJournal
// returns those of several files one file after the other).
func loadJournal(ctx context.Context, jr Journal, job string, keep func(int) bool) (*journalState, error) {
	recs, err := jr.Load(ctx, job)
	if err != nil {
		return nil, fmt.Errorf("bulk: job %q: loading the journal: %w", job, err)
	}
	st := &journalState{batches: make(map[int]*journaled), numbers: make(map[int][]string)}
	order := make([]*JournalRecord, 0, len(recs))
	for i := range recs {
		r := &recs[i]
		if err := checkRecord(r); err != nil {
			return nil, journalCorrupt(job, "record %d: %v", i+1, err)
		}
		if r.JobID != job {
			return nil, journalCorrupt(job, "record %d is of job %q", i+1, r.JobID)
		}
		if r.Kind == JournalKindJob {
			st.jobs = append(st.jobs, *r)
			continue
		}
		if keep == nil || keep(r.Index) {
			order = append(order, r)
		}
	}
	slices.SortStableFunc(order, func(a, b *JournalRecord) int {
		return cmp.Or(cmp.Compare(a.Index, b.Index), cmp.Compare(a.Attempt, b.Attempt), cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)))
	})
	for _, r := range order {
		b := st.batches[r.Index]
		switch r.Kind {
		case JournalKindIntent:
			if b == nil {
				b = &journaled{digest: r.Digest, recipients: r.Recipients}
				st.batches[r.Index] = b
			} else if b.digest != r.Digest {
				return nil, journalCorrupt(job, "batch %d has intents of two digests", r.Index)
			}
			if r.Attempt > b.attempts {
				b.attempts, b.state, b.reason, b.intent = r.Attempt, "", "", r.Time
			}
			st.numbers[r.Index] = r.Numbers
		case JournalKindOutcome:
			if b == nil || r.Attempt > b.attempts {
				if r.State == JournalStateRefused {
					continue // an intent that could not be recorded: its request was never written
				}
				return nil, journalCorrupt(job, "an outcome of batch %d (attempt %d) without its intent", r.Index, r.Attempt)
			}
			if r.Recipients != b.recipients {
				return nil, journalCorrupt(job, "an outcome of batch %d of %d recipients, its intent %d", r.Index, r.Recipients, b.recipients)
			}
			if r.State == JournalStateAccepted && b.accepted == nil {
				b.accepted = r // accepted once, never sent again
			}
			if r.Attempt == b.attempts {
				b.state, b.reason = r.State, r.Reason
			}
		}
	}
	return st, nil
}

// ErrJournalAccount matches the error of a bulk job whose Journal records that the job was
// sent to another account (another server, key mode or key: see sms.Account) than the client's:
// nothing is sent. A journal belongs to one account: what it records as sent was sent there,
// and says nothing of this one. To send the same input to this account (a rehearsal in the
// sandbox, then the live service), give the job a new JobID.
var ErrJournalAccount = errors.New("bulk: job journaled against another account")

// ErrJournalShards matches the error of a bulk job whose Journal records that the job was
// run in another number of shards and lacks the records of some of them: their batches would
// be sent again. Nothing is sent. Run it in the shards it had, or give it a journal that
// holds every shard's records (one SQL table, or MultiJournal over every shard's file).
var ErrJournalShards = errors.New("bulk: job journal lacks shards of the job")

// checkJobRecords refuses the job records of job when they name another account than acct,
// or a shard layout of which some shards' records are missing, except the layout of count
// shards (0: none excepted).
func checkJobRecords(job string, acct sms.Account, jobs []JournalRecord, count int) error {
	layouts := make(map[int]map[int]bool) // shard count -> the shards whose records are here
	for _, r := range jobs {
		if r.Server != acct.Server || r.Mode != acct.Mode || r.Key != acct.Key {
			was := sms.Account{Server: r.Server, Mode: r.Mode, Key: r.Key}
			return fmt.Errorf("bulk: job %q: its journal records that it was sent with %s, but this client sends with %s; nothing was sent. "+
				"What the journal records as sent was sent there: to send this input here, give it a new JobID: %w", job, was, acct, ErrJournalAccount)
		}
		if layouts[r.Shards] == nil {
			layouts[r.Shards] = make(map[int]bool)
		}
		layouts[r.Shards][r.Index] = true
	}
	for _, n := range slices.Sorted(maps.Keys(layouts)) {
		if n == count || len(layouts[n]) == n {
			continue
		}
		var missing []string
		for k := range n {
			if !layouts[n][k] {
				missing = append(missing, strconv.Itoa(k))
			}
		}
		return fmt.Errorf("bulk: job %q: its journal holds the records of the job run in %d shards, but not those of shard %s: "+
			"their batches would be taken as never sent; nothing was sent. Use a journal that holds every shard's records "+
			"(one SQL table, or MultiJournal over every shard's file), or run the job in %d shards: %w",
			job, n, strings.Join(missing, ", "), n, ErrJournalShards)
	}
	return nil
}

// openJournal loads the job's records into j, checks them against the client's account and
// the run's shard layout, records this shard's job record when it is new, and settles the
// batches an earlier run left in doubt (see resolveInDoubt).
func (j *bulkJob) openJournal(ctx context.Context) error {
	p := j.p
	count := max(p.Shard.Count, 1)
	st, err := loadJournal(ctx, p.Journal, p.JobID, func(k int) bool { return k%count == p.Shard.Index })
	if err != nil {
		return err
	}
	if err := checkJobRecords(p.JobID, j.s.c.Account(), st.jobs, count); err != nil {
		return err
	}
	bj := &bulkJournal{j: p.Journal, batches: st.batches, last: -1}
	for k := range st.batches {
		bj.last = max(bj.last, k)
	}
	bj.holding = bj.last >= 0
	j.jr = bj
	if p.DryRun {
		return nil // a dry run writes nothing and asks the server nothing: what is in doubt stays so
	}
	if !slices.ContainsFunc(st.jobs, func(r JournalRecord) bool { return r.Shards == count && r.Index == p.Shard.Index }) {
		acct := j.s.c.Account()
		rec := JournalRecord{Kind: JournalKindJob, JobID: p.JobID, Index: p.Shard.Index, Shards: count,
			Server: acct.Server, Mode: acct.Mode, Key: acct.Key, Time: time.Now()}
		if err := p.Journal.Append(ctx, rec); err != nil {
			return fmt.Errorf("bulk: job %q: recording the job in the journal: %w", p.JobID, err)
		}
	}
	return j.resolveInDoubt(ctx)
}

// clockSkew is how far the server's clock and the client's may differ when a campaign's
// creation time is compared with an intent's.
const clockSkew = 5 * time.Second

// resolveInDoubt settles the batches an earlier run left in doubt: sent again when the
// server deduplicates references (it answers a batch it took from the first attempt);
// otherwise looked up by reference in the server's campaign list, when it lists references:
// a batch found there is recorded as accepted. A batch not found there is sent again only
// when the list proves it was never processed: its intent is older than the settle time (no
// request of it can still be processed), and the list holds a campaign older than the
// intent (the server has not forgotten campaigns of its time). What remains in doubt is
// sent again only with ResendInDoubt.
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
	if j.s.c.ReferenceDeduplication() || j.p.ResendInDoubt {
		for _, k := range doubt {
			j.jr.batches[k].resend = true
		}
		return nil
	}
	lists := false // the server shows a campaign's reference in its list
	var oldest time.Time
	found := make(map[int]sms.Campaign)
	for c, err := range j.s.All(ctx, nil) {
		if err != nil {
			return fmt.Errorf("bulk: job %q: looking for the batches in doubt in the campaign list: %w", j.p.JobID, err)
		}
		if c.CreatedAt != nil && (oldest.IsZero() || c.CreatedAt.Before(oldest)) {
			oldest = *c.CreatedAt
		}
		if c.Reference == "" {
			continue
		}
		lists = true
		if k, ok := doubt[c.Reference]; ok {
			if prev, dup := found[k]; dup && prev.ID != c.ID {
				return fmt.Errorf("bulk: job %q: the campaign list holds two campaigns of batch %d (reference %q): %s and %s",
					j.p.JobID, k, c.Reference, prev.ID, c.ID)
			}
			found[k] = c
		}
	}
	if !lists {
		for _, k := range doubt {
			j.jr.batches[k].reason = "the server's campaign list shows no reference, so it cannot tell"
		}
		return nil
	}
	settle := cmp.Or(j.p.SettleAfter, settleTime(j.s.c))
	now := time.Now()
	for _, ref := range slices.Sorted(maps.Keys(doubt)) {
		k := doubt[ref]
		b := j.jr.batches[k]
		c, ok := found[k]
		if !ok {
			switch age := now.Sub(b.intent); {
			case age < settle:
				b.reason = fmt.Sprintf("no campaign of its reference is listed yet, but its request was started only %v ago, "+
					"and the server may still process it (SettleAfter %v): run the job again after %s", age.Round(time.Second), settle,
					b.intent.Add(settle).UTC().Format(time.RFC3339))
			case oldest.IsZero() || !oldest.Before(b.intent.Add(-clockSkew)):
				b.reason = "no campaign of its reference is listed, but the list holds no campaign older than its request: " +
					"the server may have forgotten it"
			default:
				b.resend = true // the list covers its time and has none of it: never processed
			}
			continue
		}
		if c.Recipients != 0 && c.Recipients != b.recipients {
			return fmt.Errorf("bulk: job %q: campaign %s of batch %d (reference %q) counts %d recipients, but the journal recorded %d",
				j.p.JobID, c.ID, k, c.Reference, c.Recipients, b.recipients)
		}
		rec := JournalRecord{
			Kind: JournalKindOutcome, JobID: j.p.JobID, Index: k, Reference: c.Reference, Attempt: b.attempts, Recipients: b.recipients,
			State: JournalStateAccepted, CampaignID: c.ID, Status: c.Status, Amount: deref(c.Amount), AmountUnknown: c.Amount == nil,
			Resolved: "campaign list", Time: time.Now(),
		}
		if err := j.jr.j.Append(ctx, rec); err != nil {
			return fmt.Errorf("bulk: job %q: recording batch %d, found in the campaign list: %w", j.p.JobID, k, err)
		}
		b.accepted, b.state = &rec, JournalStateAccepted
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
			j.record(Batch{Index: b.index, Reference: j.reference(b.index), CampaignID: a.CampaignID, Status: a.Status,
				Recipients: len(b.to), Parts: b.parts, Amount: a.Amount, AmountUnknown: a.AmountUnknown, FromJournal: true}, b.total)
			return true
		case rec.inDoubt() && !rec.resend:
			j.pool.put(b.to)
			why := cmp.Or(rec.reason, "its request was written, and no outcome was recorded")
			j.record(Batch{Index: b.index, Reference: j.reference(b.index), Recipients: len(b.to), Parts: b.parts, InDoubt: true,
				Err: fmt.Errorf("batch %d (reference %q, %d recipients, started %s) may have been sent: %s; settle it (Settle): %w",
					b.index, j.reference(b.index), len(b.to), rec.intent.UTC().Format(time.RFC3339), why, ErrBatchesInDoubt)}, b.total)
			return true
		}
	} else {
		b.attempt = 1
	}
	if j.p.DryRun { // a batch a run would send (again): reported as a dry run reports it
		j.record(Batch{Index: b.index, Reference: j.reference(b.index), Recipients: len(b.to), Parts: b.parts}, b.total)
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
func batchDigest(p *Params, to []sms.Recipient) string {
	return BatchDigest(p.From, p.Channel, p.Message, to)
}

// mismatch is the error of a batch that differs from the journal's record.
func (j *bulkJob) mismatch(index int, what string) error {
	return fmt.Errorf("bulk: job %q: batch %d (reference %q): %s: the input, the message, the sender, the channel or the batch size "+
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
		Kind: JournalKindIntent, JobID: j.p.JobID, Index: b.index, Reference: ref, Attempt: b.attempt, Digest: b.digest,
		Recipients: len(b.to), Numbers: nums, Time: time.Now(),
	})
}

// journalOutcome records the outcome of batch b's request: res as the report holds it.
// It is written even when ctx has ended: what the answer said is known.
func (j *bulkJob) journalOutcome(ctx context.Context, b *bulkBatch, res *Batch) error {
	rec := JournalRecord{Kind: JournalKindOutcome, JobID: j.p.JobID, Index: b.index, Reference: res.Reference, Attempt: b.attempt,
		Recipients: len(b.to), Time: time.Now()}
	switch {
	case res.Err == nil:
		rec.State, rec.CampaignID, rec.Status, rec.Amount, rec.AmountUnknown = JournalStateAccepted, res.CampaignID, res.Status, res.Amount, res.AmountUnknown
	case res.Unconfirmed: // the server took it: sent, at a cost unknown
		rec.State, rec.CampaignID, rec.Status, rec.AmountUnknown, rec.Reason = JournalStateAccepted, res.CampaignID, res.Status, true, journalReason(res.Err)
	case errors.Is(res.Err, sms.ErrOutcomeUnknown):
		rec.State, rec.Reason = JournalStateUnknown, journalReason(res.Err)
	default:
		rec.State, rec.Reason = JournalStateRefused, journalReason(res.Err)
	}
	return j.jr.j.Append(context.WithoutCancel(ctx), rec)
}

// journalNotSent records that batch b, whose intent could not be recorded, was not sent: the
// intent may have been recorded all the same (a database that committed it while the call
// failed), and would otherwise leave the batch in doubt for ever. It is written even when
// ctx has ended; should it fail too, the batch is left in doubt, which is never wrong.
func (j *bulkJob) journalNotSent(ctx context.Context, b *bulkBatch, ref string, cause error) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), notSentTimeout)
	defer cancel()
	_ = j.jr.j.Append(wctx, JournalRecord{Kind: JournalKindOutcome, JobID: j.p.JobID, Index: b.index, Reference: ref, Attempt: b.attempt,
		Recipients: len(b.to), State: JournalStateRefused, Time: time.Now(),
		Reason: "its intent could not be recorded, and its request was not written: " + journalReason(cause)})
}

// notSentTimeout bounds journalNotSent.
const notSentTimeout = 30 * time.Second

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
	j.stop(fmt.Errorf("bulk: job %q stopped at batch %d: the journal cannot record its %s: %w", j.p.JobID, index, what, err))
}

// sentByJournal adds to sent the numbers that job, an earlier job of which the journal holds
// records, sent, and returns false when the journal has none of it. A batch of that job that
// the journal records as accepted is skipped; one refused, or never started, is not; one in
// doubt stops the new job until it is settled (see Settle), whatever
// SkipSentByPartial says: its numbers may or may not have been sent. The journal must hold
// the records of every shard the job was run in.
func (s *client) sentByJournal(ctx context.Context, p *Params, job string, sent *numberSet) (bool, error) {
	st, err := loadJournal(ctx, p.Journal, job, nil)
	if err != nil {
		return false, err
	}
	if len(st.batches) == 0 && len(st.jobs) == 0 {
		return false, nil
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("bulk: job %q: SkipSentBy %q, from the journal: "+format, append([]any{p.JobID, job}, a...)...)
	}
	if err := checkJobRecords(job, s.c.Account(), st.jobs, 0); err != nil {
		return false, fail("%w", err)
	}
	if len(st.jobs) == 0 && len(st.batches) > 0 && !p.SkipSentByPartial {
		// A journal of before job records: a gap may be a batch another shard's journal holds.
		last := slices.Max(slices.Collect(maps.Keys(st.batches)))
		for k := range last {
			if st.batches[k] == nil {
				return false, fail("the journal has no record of batch %d, though it has batch %d, and does not record the job's shards "+
					"(a batch sent by another shard, or another journal); set SkipSentByPartial to send its numbers anyway", k, last)
			}
		}
	}
	var doubt []string
	n := 0
	for _, k := range slices.Sorted(maps.Keys(st.batches)) {
		b := st.batches[k]
		switch {
		case b.accepted != nil && b.accepted.Status == sms.CampaignStatusFailed: // refused by the provider and refunded: it reached nobody
			continue
		case b.accepted != nil:
		case b.inDoubt():
			n++
			if len(doubt) < 5 {
				doubt = append(doubt, strconv.Itoa(k))
			}
			continue
		default: // refused: nothing was sent
			continue
		}
		for _, num := range st.numbers[k] {
			x, _ := strconv.ParseUint(num, 10, 64) // checked by checkRecord
			sent.add(x)
		}
	}
	if n > 0 {
		more := ""
		if n > len(doubt) {
			more = fmt.Sprintf(" and %d more", n-len(doubt))
		}
		return false, fail("it has batches in doubt (%d: batch %s%s), whose numbers may or may not have been sent; "+
			"settle each one first (Settle; sms bulk settle %s BATCH --sent CAMPAIGN_ID or --not-sent): %w",
			n, strings.Join(doubt, ", "), more, job, ErrBatchesInDoubt)
	}
	return true, nil
}
