package bulk

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/seedsms/sms-go"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// bulkJob is one run of Send. Send's goroutine reads the input (see bulkReader) and
// hands this shard's batches to the workers, which send them and record their outcomes in
// the report.
type bulkJob struct {
	s        *client
	p        *Params
	workers  int
	maxPause time.Duration
	limiter  *rate.Limiter
	pause    atomic.Int64 // unix nanoseconds before which no worker starts a request
	pool     *batchPool
	// sentBefore holds the numbers that the jobs of p.SkipSentBy sent; nil without any.
	sentBefore *numberSet
	// jr is what p.Journal records of the job; nil without a journal, and in a dry run.
	jr *bulkJournal

	claims campaignClaims // the campaign of each batch answered, to refuse one named twice

	halt     chan struct{} // closed when the job stops early
	haltOnce sync.Once
	haltErr  error

	mu     sync.Mutex // guards report and prog, which the workers' records fill
	report Report
	prog   Progress
	// progress is held while p.Progress runs, so that its calls come one at a time and in
	// the order of the records. It is taken before mu is released: Progress runs without
	// mu, and a record made meanwhile waits only for its own turn to call it.
	progress sync.Mutex
}

// bulkBatch is a batch on its way from the reader to a worker.
type bulkBatch struct {
	index int
	to    []sms.Recipient
	parts int // the largest parts of a recipient's message
	total int // parts over its recipients
	// With a journal: the batch's digest, and the attempt its intent records.
	digest  string
	attempt int
}

func newBulkJob(s *client, p *Params) *bulkJob {
	j := &bulkJob{
		s: s, p: p,
		workers:  cmp.Or(p.Concurrency, defaultConcurrency),
		maxPause: cmp.Or(p.MaxRetryAfter, defaultMaxRetryAfter),
		limiter:  rate.NewLimiter(rate.Inf, 1),
		halt:     make(chan struct{}),
		report:   Report{JobID: p.JobID},
	}
	if p.Rate > 0 {
		j.limiter = rate.NewLimiter(rate.Limit(p.Rate), 1)
	}
	j.pool = newBatchPool(j.workers+1, cmp.Or(p.BatchSize, MaxBatchSize))
	return j
}

func (j *bulkJob) reference(index int) string { return j.p.JobID + ":" + strconv.Itoa(index) }

// stop ends the job early with err; the first error wins.
func (j *bulkJob) stop(err error) {
	j.haltOnce.Do(func() {
		j.haltErr = err
		close(j.halt)
	})
}

func (j *bulkJob) halted() bool {
	select {
	case <-j.halt:
		return true
	default:
		return false
	}
}

// stopCtx stops the job with ctx's error, or err that wraps it.
func (j *bulkJob) stopCtx(err error) {
	j.stop(fmt.Errorf("bulk: job %q: %w", j.p.JobID, err))
}

// errInputPanicked stops the job when its input panics; the panic, not this error, reaches
// the caller.
var errInputPanicked = errors.New("bulk: the input of the job panicked")

func (j *bulkJob) run(ctx context.Context) (*Report, error) {
	if j.p.Stop != nil && !j.p.DryRun {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-j.p.Stop:
				j.stop(fmt.Errorf("bulk: job %q stopped before its end (Params.Stop): the batches under way were finished and recorded, "+
					"and no other was started; run the job again to send the rest: %w", j.p.JobID, ErrStopped))
			case <-done:
			}
		}()
	}
	work := make(chan *bulkBatch)
	var wg sync.WaitGroup
	if !j.p.DryRun {
		for range j.workers {
			wg.Go(func() {
				for b := range work {
					j.send(ctx, b)
				}
			})
		}
	}
	rd := newBulkReader(j.p, j.pool)
	rd.sentBefore = j.sentBefore
	read := j.feed(ctx, rd, work, &wg)
	wg.Wait()
	j.dropHeld() // the batches held back when the job stopped before the input was checked

	// The workers are done: the report is this goroutine's alone.
	r := &j.report
	r.Duplicates, r.Invalid, r.InvalidRecipients, r.Skipped, r.Nameless = rd.duplicates, rd.invalid, rd.invalidList, rd.skipped, rd.nameless
	slices.SortFunc(r.Batches, func(a, b Batch) int { return a.Index - b.Index })
	failed := r.Failed()
	r.Complete = read && !j.p.DryRun && !j.halted() && len(failed) == 0 && r.InDoubtBatches == 0
	switch {
	case j.halted():
		return r, j.unconfirmedError(j.inDoubtError(j.haltError()))
	case len(failed) > 0:
		err := fmt.Errorf("%w: %d of %d batches of job %q failed; %s: batch %d: %w",
			ErrIncomplete, len(failed), len(r.Batches), j.p.JobID, j.rerun("retry them"), failed[0].Index, failed[0].Err)
		if u := j.firstMaybeSent(); u != nil && !errors.Is(failed[0].Err, sms.ErrOutcomeUnknown) {
			// the error matches sms.ErrOutcomeUnknown whenever a failed batch may have been sent
			err = fmt.Errorf("%w; batch %d may have been sent: %w", err, u.Index, u.Err)
		}
		return r, j.unconfirmedError(j.inDoubtError(err))
	case !j.p.DryRun && (r.UnconfirmedBatches > 0 || r.InDoubtBatches > 0): // a dry run reports them: the run may settle them
		return r, j.unconfirmedError(j.inDoubtError(nil))
	}
	return r, nil
}

// inDoubtError returns err, followed, when a journal leaves batches in doubt, by what to do
// about them; it then matches ErrBatchesInDoubt, and the first such batch's error.
func (j *bulkJob) inDoubtError(err error) error {
	r := &j.report
	if r.InDoubtBatches == 0 {
		return err
	}
	first := r.first(func(b *Batch) bool { return b.InDoubt })
	// Each batch's error says why it is in doubt: the job's says how many, and what to do,
	// once.
	out := &noteError{
		msg: fmt.Sprintf("%d of %d batches (%d recipients) in doubt, not sent again until each is settled (Settle); the first is batch %d (reference %q)",
			r.InDoubtBatches, len(r.Batches), r.InDoubt, first.Index, first.Reference),
		errs: []error{ErrBatchesInDoubt, first.Err},
	}
	if err == nil {
		return fmt.Errorf("bulk: job %q: %w", j.p.JobID, out)
	}
	return fmt.Errorf("%w; and %w", err, out)
}

// noteError says msg, and matches errs, whose texts it leaves out.
type noteError struct {
	msg  string
	errs []error
}

func (e *noteError) Error() string   { return e.msg }
func (e *noteError) Unwrap() []error { return e.errs }

// firstMaybeSent returns the first failed batch whose outcome is unknown, or nil.
func (j *bulkJob) firstMaybeSent() *Batch {
	for i, b := range j.report.Batches {
		if b.Err != nil && !b.Unconfirmed && !b.InDoubt && errors.Is(b.Err, sms.ErrOutcomeUnknown) {
			return &j.report.Batches[i]
		}
	}
	return nil
}

// rerun advises running the job again to do what, unless the server is not known to
// deduplicate references and a rerun could send a batch twice: one accepted at an unknown
// cost, or one that failed with an unknown outcome (a dropped connection or a 5xx after the
// request was written), which the server may have sent.
func (j *bulkJob) rerun(what string) string {
	if j.jr != nil {
		return "run the job again with the same Journal to " + what + " (it sends no batch the journal records as accepted or in doubt)"
	}
	if !j.s.c.ReferenceDeduplication() {
		switch {
		case j.report.UnconfirmedBatches > 0:
			return "a rerun would retry them, but would also send again the batches accepted at an unknown cost"
		case j.maybeSent():
			return "a rerun would retry them, but some may have been sent (their outcome is unknown) and the server is not known to deduplicate references: check their campaigns by reference first"
		}
	}
	return "run the job again within 24 hours to " + what
}

// maybeSent reports whether a failed batch ended with an unknown outcome: the server may have
// sent it.
func (j *bulkJob) maybeSent() bool {
	for _, b := range j.report.Batches {
		if b.Err != nil && !b.Unconfirmed && errors.Is(b.Err, sms.ErrOutcomeUnknown) {
			return true
		}
	}
	return false
}

// first returns the first of r's batches for which is holds (by index, once the report is
// sorted), or nil.
func (r *Report) first(is func(*Batch) bool) *Batch {
	for i := range r.Batches {
		if is(&r.Batches[i]) {
			return &r.Batches[i]
		}
	}
	return nil
}

// unconfirmedError returns err, followed, when batches were accepted at an unknown cost
// (Unconfirmed), by what to do about them; it then matches sms.ErrOutcomeUnknown too, through
// the first such batch's error.
func (j *bulkJob) unconfirmedError(err error) error {
	r := &j.report
	if r.UnconfirmedBatches == 0 {
		return err
	}
	first := r.first(func(b *Batch) bool { return b.Unconfirmed })
	what := "running the job again replays them, as the server deduplicates references"
	switch {
	case j.jr != nil:
		what = "the journal records them as accepted: running the job again with the same Journal does not send them again"
	case !j.s.c.ReferenceDeduplication():
		what = "do not run the job again before checking their campaigns by reference: the server is not known to deduplicate references (see WithReferenceDeduplication), so a rerun would send them again"
	}
	note := fmt.Sprintf("the server accepted %d of %d batches (%d recipients) whose answers cannot be read, so their cost is unknown; %s: batch %d (reference %q)",
		r.UnconfirmedBatches, len(r.Batches), r.Unconfirmed, what, first.Index, first.Reference)
	if err == nil {
		return fmt.Errorf("bulk: job %q: %s: %w", j.p.JobID, note, first.Err)
	}
	return fmt.Errorf("%w; and %s: %w", err, note, first.Err)
}

// feed reads the input into work, then closes it. It reports whether it read the whole
// input. Should the input panic (or end its goroutine with runtime.Goexit), the job is
// stopped and the workers finish the batches under way before the panic goes on: no worker
// outlives Send, and Progress is never called after it returned.
func (j *bulkJob) feed(ctx context.Context, rd *bulkReader, work chan<- *bulkBatch, wg *sync.WaitGroup) bool {
	returned := false
	defer func() {
		close(work)
		if !returned {
			j.stop(errInputPanicked)
			wg.Wait()
		}
	}()
	read := j.read(ctx, rd, work)
	returned = true
	return read
}

// read streams the input through rd, handing this shard's batches to the workers (or, in a
// dry run, recording them). It reports whether it read the whole input.
func (j *bulkJob) read(ctx context.Context, rd *bulkReader, work chan<- *bulkBatch) bool {
	for r, err := range j.p.Recipients {
		if row := (*CSVRowError)(nil); errors.As(err, &row) {
			rd.skipRow(row)
			continue
		}
		if err != nil {
			j.stop(fmt.Errorf("bulk: job %q: reading the input at position %d: %w", j.p.JobID, rd.pos, err))
			return false
		}
		if rd.pos%1024 == 0 {
			if err := ctx.Err(); err != nil {
				j.stopCtx(err)
				return false
			}
			if j.halted() {
				return false
			}
		}
		b, err := rd.add(r)
		if b != nil && !j.emit(ctx, b, work) {
			return false
		}
		if err != nil {
			j.stop(fmt.Errorf("bulk: job %q: %w", j.p.JobID, err))
			return false
		}
	}
	batches := rd.index // in the whole input, every shard's
	if rd.count > 0 {
		batches++
	}
	if b := rd.flush(); b != nil && !j.emit(ctx, b, work) {
		return false
	}
	if j.jr != nil {
		return j.journalEnd(ctx, batches, work)
	}
	return true
}

// emit hands a batch to the workers or, in a dry run, records it. It reports whether the job
// goes on.
func (j *bulkJob) emit(ctx context.Context, b *bulkBatch, work chan<- *bulkBatch) bool {
	if j.halted() { // stopped: no batch is started after it
		j.pool.put(b.to)
		return false
	}
	if j.p.DryRun {
		if j.jr != nil && j.jr.batches[b.index] != nil {
			return j.journalEmit(ctx, b, work) // checked against its record, and reported as the journal says
		}
		j.record(Batch{Index: b.index, Reference: j.reference(b.index), Recipients: len(b.to), Parts: b.parts}, b.total)
		j.pool.put(b.to)
		return true
	}
	if j.jr != nil {
		return j.journalEmit(ctx, b, work)
	}
	return j.handOver(ctx, b, work)
}

// handOver hands a batch to the workers. It reports whether the job goes on.
func (j *bulkJob) handOver(ctx context.Context, b *bulkBatch, work chan<- *bulkBatch) bool {
	select {
	case work <- b:
		return true
	case <-j.halt:
	case <-ctx.Done():
		j.stopCtx(ctx.Err())
	}
	j.pool.put(b.to)
	return false
}

// send sends one batch, after the rate limit and any 429 pause, and records the outcome.
func (j *bulkJob) send(ctx context.Context, b *bulkBatch) {
	defer j.pool.put(b.to)
	if err := j.wait(ctx); err != nil {
		if ctx.Err() != nil {
			j.stopCtx(ctx.Err())
		}
		return
	}
	ref := j.reference(b.index)
	if j.jr != nil {
		if err := j.journalIntent(ctx, b, ref); err != nil {
			j.journalStop(b.index, "intent", err) // not sent
			j.journalNotSent(ctx, b, ref, err)
			return
		}
	}
	cp := &sms.CreateCampaignParams{To: b.to, From: j.p.From, Message: j.p.Message, Channel: j.p.Channel, Reference: ref}
	bt := &batchTrace{j: j}
	tctx := sms.ContextWithTrace(ctx, &sms.Trace{Attempt: bt.attempt})
	sent, err := j.s.Create(tctx, cp)
	// A 429 whose Retry-After is longer than the client waits by itself comes back at once; it
	// has paused every worker (see observe). The batch waits the pause out and goes again
	// under the same reference, a bounded number of times.
	for tries := 1; err != nil && errors.Is(err, sms.ErrRateLimited) && tries < maxRateLimitedTries; tries++ {
		if j.wait(ctx) != nil {
			break
		}
		sent, err = j.s.Create(tctx, cp)
	}
	res := Batch{Index: b.index, Reference: ref, Recipients: len(b.to), Parts: b.parts}
	if err == nil {
		// A 2xx that contradicts the batch was accepted all the same: recorded as
		// Unconfirmed, at a cost the report does not know.
		err = checkAnswer(sent, ref, len(b.to))
		if err == nil {
			err = j.claims.claim(sent, ref, b.index)
		}
	}
	if err != nil {
		res.Err, res.Unconfirmed = err, unconfirmed(err)
		res.InDoubt = j.jr != nil && !res.Unconfirmed && errors.Is(err, sms.ErrOutcomeUnknown)
		j.stopOn(ctx, b.index, ref, err)
		j.recordSent(ctx, b, res)
		return
	}
	// A replay that answers a batch after an attempt of this run that may have been processed
	// (a dropped connection, a 5xx), in this call or in one before a 429, answers that
	// attempt: it was charged by this run, as Campaigns.Create decides within one call.
	res.CampaignID, res.Status, res.Amount, res.Replayed = sent.Campaign.ID, sent.Campaign.Status, deref(sent.Campaign.Amount), sent.Replayed && !bt.maybe
	res.AmountUnknown = sent.Campaign.Amount == nil
	res.Parts = cmp.Or(deref(sent.Campaign.Parts), b.parts)
	j.recordSent(ctx, b, res)
}

// recordSent records the outcome of a batch's request: in the journal, then in the report.
func (j *bulkJob) recordSent(ctx context.Context, b *bulkBatch, res Batch) {
	if j.jr != nil {
		if err := j.journalOutcome(ctx, b, &res); err != nil {
			j.journalStop(b.index, "outcome", err) // a rerun finds the batch in doubt
		}
	}
	j.record(res, b.total)
}

// stopOn stops the job when the error of batch index means that what follows cannot succeed.
func (j *bulkJob) stopOn(ctx context.Context, index int, ref string, err error) {
	switch {
	case errors.Is(err, sms.ErrConflict):
		j.stop(fmt.Errorf("bulk: job %q: batch %d (reference %q) was sent before with other recipients or another message: "+
			"the input, the message or the batch size changed since an earlier run of this job; run it with the same ones, or use a new JobID: %w",
			j.p.JobID, index, ref, err))
	case errors.Is(err, sms.ErrInsufficientBalance), errors.Is(err, sms.ErrUnauthorized), errors.Is(err, sms.ErrInsufficientScope):
		j.stop(fmt.Errorf("bulk: job %q stopped at batch %d: %w", j.p.JobID, index, err))
	case ctx.Err() != nil:
		j.stopCtx(err)
	}
}

// haltError is the error that stopped the job, once the report is sorted. A 402 names the
// first batch in input order that was not sent, whichever worker met the 402 first and
// whichever batches were in flight then, so that identical runs say the same; it wraps the
// 402 of the first refused batch.
func (j *bulkJob) haltError() error {
	r := &j.report
	if !errors.Is(j.haltErr, sms.ErrInsufficientBalance) {
		return j.haltErr
	}
	first, refused := 0, error(nil) // r.Batches is sorted by index
	for _, b := range r.Batches {
		if b.Index == first && b.Err == nil {
			first++
		}
		if refused == nil && errors.Is(b.Err, sms.ErrInsufficientBalance) {
			refused = b.Err
		}
	}
	if refused == nil {
		return j.haltErr
	}
	return fmt.Errorf("bulk: job %q stopped at batch %d, the first in input order not sent, as the wallet could not pay; "+
		"this run sent %d recipients, for %s: top up, then run the job again: %w", j.p.JobID, first, r.Sent, r.Amount, refused)
}

// checkAnswer refuses a 2xx answer that contradicts the batch of n distinct recipients it
// answers: a campaign of another number of recipients (0, which an answer without the
// member gives, is let through). A negative amount is refused by Campaigns.Create.
func checkAnswer(sent *sms.SendResult, ref string, n int) error {
	if c := &sent.Campaign; c.Recipients != 0 && c.Recipients != n {
		return unreadable(sent, ref, fmt.Errorf("the %d answer counts %d recipients in campaign %q, but the batch sent %d distinct ones",
			statusOf(sent), c.Recipients, c.ID, n))
	}
	return nil
}

// unreadable is the error of a batch's accepted answer that cannot be the batch's, for the
// reason cause: the server took the request (its campaign was sent and charged) but what
// it answered cannot be recorded, as Campaigns.Create says of an answer it cannot read.
func unreadable(sent *sms.SendResult, ref string, cause error) error {
	e := &sms.OutcomeError{Op: "POST /v1/sms/campaigns", StatusCode: statusOf(sent), Reference: ref, Err: cause}
	if sent.Response != nil {
		e.RequestID = sent.Response.RequestID
	}
	return e
}

// statusOf is the status of an accepted answer: 202 when it is not known.
func statusOf(sent *sms.SendResult) int {
	if sent.Response != nil && sent.Response.StatusCode != 0 {
		return sent.Response.StatusCode
	}
	return http.StatusAccepted
}

// unconfirmed reports whether err is that of a batch the server accepted, with a 2xx or a
// 303 See Other, whose answer cannot be read: the batch was sent and charged, at a cost the
// report does not know.
func unconfirmed(err error) bool {
	var oe *sms.OutcomeError
	return errors.As(err, &oe) && (oe.StatusCode >= 200 && oe.StatusCode <= 299 || oe.StatusCode == http.StatusSeeOther)
}

// wait waits for the rate limiter and for any pause a 429 asked for. It returns ctx's error
// when ctx ends first, or errHalted when the job stops.
func (j *bulkJob) wait(ctx context.Context) error {
	for {
		if j.halted() {
			return errHalted
		}
		res := j.limiter.Reserve()
		d := max(res.Delay(), time.Until(time.Unix(0, j.pause.Load())))
		if d <= 0 {
			return nil
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			res.Cancel()
			return ctx.Err()
		case <-j.halt:
			t.Stop()
			res.Cancel()
			return errHalted
		}
		if time.Now().UnixNano() >= j.pause.Load() {
			return nil
		}
		res.Cancel() // paused meanwhile: take a new place once the pause is over
	}
}

var errHalted = errors.New("bulk: job stopped")

// maxRateLimitedTries bounds how often one batch is sent again after a 429 that outlasted the
// client's own retries.
const maxRateLimitedTries = 5

// batchTrace sees every attempt of one batch's requests, made one after the other by the
// worker that sends it.
type batchTrace struct {
	j     *bulkJob
	maybe bool // an attempt may have been processed (see sms.Attempt.MaybeProcessed)
}

func (t *batchTrace) attempt(a sms.Attempt) {
	t.maybe = t.maybe || a.MaybeProcessed
	t.j.observe(a)
}

// observe sees every attempt: a 429 pauses every worker for its Retry-After, or stops the job
// when it asks for more than maxPause.
func (j *bulkJob) observe(a sms.Attempt) {
	if a.StatusCode != http.StatusTooManyRequests {
		return
	}
	now := time.Now()
	var d time.Duration
	if e := (*sms.Error)(nil); errors.As(a.Err, &e) {
		d = e.RetryAfter
	}
	if d <= 0 {
		d = time.Second // the server did not say: a short pause, whatever maxPause
	} else if d > j.maxPause {
		j.stop(fmt.Errorf("bulk: job %q stopped: the server asked to wait %v, more than MaxRetryAfter (%v); run the job again after that: %w",
			j.p.JobID, d, j.maxPause, a.Err))
		return
	}
	until := now.Add(d).UnixNano()
	for {
		old := j.pause.Load()
		if old >= until || j.pause.CompareAndSwap(old, until) {
			return
		}
	}
}

// record adds a finished batch, of parts SMS parts over its recipients, answered by the call
// cl (nil in a dry run), to the report and reports progress.
func (j *bulkJob) record(b Batch, parts int) {
	j.mu.Lock()
	r, pg := &j.report, &j.prog
	if b.Err == nil && (!j.p.DryRun || b.FromJournal) {
		total, ok := addAmounts(r.JobAmount, b.Amount)
		if !ok { // accepted all the same, at a cost the report cannot hold
			b = Batch{Index: b.Index, Reference: b.Reference, CampaignID: b.CampaignID, Status: b.Status, Recipients: b.Recipients, Parts: b.Parts, Unconfirmed: true,
				Err: &sms.OutcomeError{Op: "POST /v1/sms/campaigns", StatusCode: http.StatusAccepted, Reference: b.Reference,
					Err: fmt.Errorf("the amount of batch %d, %s, takes the job's total past what an Amount holds", b.Index, b.Amount)}}
		}
		r.JobAmount = total
	}
	if b.Err == nil && b.AmountUnknown && !j.p.DryRun {
		r.AmountUnknownBatches++
	}
	r.Batches = append(r.Batches, b)
	r.Recipients += b.Recipients
	r.Parts += parts
	pg.Batches++
	pg.Recipients += b.Recipients
	switch {
	case b.Unconfirmed:
		r.Unconfirmed += b.Recipients
		r.UnconfirmedBatches++
	case b.InDoubt:
		r.InDoubt += b.Recipients
		r.InDoubtBatches++
	case b.Err != nil:
		pg.Failed++
	case b.FromJournal: // in a dry run too: what the journal records as sent
		r.FromJournal += b.Recipients
		r.FromJournalAmount = r.FromJournalAmount.Add(b.Amount)
	case j.p.DryRun:
	case b.Replayed:
		r.Replayed += b.Recipients
		r.ReplayedAmount = r.ReplayedAmount.Add(b.Amount)
	default:
		r.Sent += b.Recipients
		r.Amount = r.Amount.Add(b.Amount)
	}
	pg.Batch, pg.Sent, pg.Replayed, pg.Unconfirmed, pg.Amount, pg.ReplayedAmount = b, r.Sent, r.Replayed, r.Unconfirmed, r.Amount, r.ReplayedAmount
	pg.FromJournal, pg.InDoubt = r.FromJournal, r.InDoubt
	if j.p.Progress == nil {
		j.mu.Unlock()
		return
	}
	snapshot := *pg
	j.progress.Lock()
	j.mu.Unlock()
	defer j.progress.Unlock()
	j.p.Progress(snapshot)
}

// addAmounts returns a + b of two amounts that are not negative, and whether the sum fits.
func addAmounts(a, b sms.Amount) (sms.Amount, bool) {
	if b.Kobo() > math.MaxInt64-a.Kobo() {
		return a, false
	}
	return a.Add(b), true
}

// batchPool recycles the buffers of batches between the workers and the reader.
type batchPool struct {
	free chan []sms.Recipient
	size int // recipients per batch, at most
}

func newBatchPool(n, size int) *batchPool {
	return &batchPool{free: make(chan []sms.Recipient, n), size: size}
}

// get returns an empty buffer, reusing one a worker released.
func (p *batchPool) get() []sms.Recipient {
	select {
	case b := <-p.free:
		return b[:0]
	default:
		return make([]sms.Recipient, 0, min(p.size, 1024))
	}
}

// put releases a buffer; nil is ignored.
func (p *batchPool) put(b []sms.Recipient) {
	if b == nil {
		return
	}
	clear(b) // drop the strings
	select {
	case p.free <- b:
	default:
	}
}
