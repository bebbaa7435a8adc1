package sms

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/time/rate"

	"github.com/seedsms/sms-go/internal/rules"
)

// Defaults and limits of SendBulk.
const (
	// DefaultBulkConcurrency is the number of batches SendBulk sends at once by default.
	DefaultBulkConcurrency = 4
	// MaxBulkBatchSize is the default and largest BatchSize: the API's limit per campaign.
	MaxBulkBatchSize = rules.MaxCampaignRecipients
	// MaxJobIDLen is the longest JobID, leaving room in each batch's reference for ":" and
	// the batch index.
	MaxJobIDLen = rules.MaxReferenceLen - 10
	// MaxReportedInvalid is how many skipped recipients a BulkReport lists one by one; all
	// are counted in BulkReport.Invalid.
	MaxReportedInvalid = 1000
)

// ErrBulkIncomplete matches the error of a bulk job in which some batches failed after their
// retries while the others were sent. Running the same job again sends only those batches:
// the others are answered from the earlier run without sending or charging again.
var ErrBulkIncomplete = errors.New("sms: bulk job incomplete")

// BulkParams is the input of CampaignsService.SendBulk.
type BulkParams struct {
	// JobID names the job: 1 to MaxJobIDLen printable ASCII characters. Batch k is sent with
	// the reference JobID + ":" + k, so running the same job again, with the same input,
	// replays what was sent instead of sending it again (for 24 hours).
	JobID string
	// From is an active sender ID of the workspace.
	From string
	// Message is the text, in which {{name}} is replaced by each recipient's Name. Each
	// recipient's message must fit 10 parts; recipients whose message does not are skipped.
	Message string
	// Channel is ChannelGeneric (when empty) or ChannelDND.
	Channel Channel
	// Recipients is the input, read once, in order, and never held whole: memory stays flat
	// whatever its length, apart from the set of distinct numbers (8 bytes of key each, plus
	// the map's overhead). Numbers are normalized and sent once per job, to their first valid
	// occurrence; invalid numbers and names are skipped and reported with their position
	// (a duplicate with an invalid name counts as invalid).
	// The same JobID must be given the same sequence every time.
	Recipients iter.Seq[Recipient]
	// BatchSize is the number of recipients per campaign request: 1 to MaxBulkBatchSize (0:
	// MaxBulkBatchSize). A batch is cut earlier when its request body would exceed 1 MiB.
	BatchSize int
	// Concurrency is the number of batches sent at once (0: DefaultBulkConcurrency).
	Concurrency int
	// Rate limits the requests started per second (0: no limit). Whatever the rate, a 429
	// from the server pauses every worker for its Retry-After.
	Rate float64
	// Shard, when Count > 1, sends only the batches k with k % Count == Index, so that Count
	// processes given the same JobID and input send the job exactly once between them.
	Shard Shard
	// Progress, when set, is called after each batch, one call at a time.
	Progress func(BulkProgress)
	// DryRun reads the input and fills the report's batches, recipients and parts without
	// sending anything.
	DryRun bool
}

// Shard selects the batches one process of a job sends: those whose index k satisfies
// k % Count == Index. The zero Shard sends every batch.
type Shard struct {
	Index int // 0 to Count-1
	Count int // number of shards; 0 or 1: one
}

// BulkBatch is the outcome of one batch of a bulk job: one campaign request.
type BulkBatch struct {
	// Index is the batch's position in the job, from 0.
	Index int
	// Reference is the request's reference: JobID + ":" + Index.
	Reference string
	// CampaignID is the campaign the batch created, or the one a replay answered with; empty
	// when the batch failed or in a dry run.
	CampaignID string
	// Status is the campaign's status in the answer: StatusProcessing, StatusSent, or
	// StatusFailed when the provider refused it (it was refunded: Amount is 0.00, and its
	// recipients get nothing; a rerun replays it, so send them again under another JobID).
	Status Status
	// Recipients is the number of distinct recipients in the batch.
	Recipients int
	// Parts is the largest number of SMS parts of a recipient's message.
	Parts int
	// Amount is what the campaign cost: in this run, or in the earlier one when Replayed.
	Amount Amount
	// Replayed is true when the batch was answered from an earlier run of the job: nothing
	// was sent or charged this time. A replay that follows an attempt of this run that may
	// have been processed (a dropped connection) is that attempt's answer: not Replayed.
	Replayed bool
	// Err is why the batch failed after its retries; nil when it was sent or replayed.
	Err error
}

// InvalidRecipient is an input recipient SendBulk skipped.
type InvalidRecipient struct {
	// Position is the recipient's 0-based position in the input.
	Position int
	// Field is "Phone" or "Name".
	Field string
	// Reason says what is wrong.
	Reason string
}

// BulkReport is the outcome of a bulk job, or of this process's shard of it.
type BulkReport struct {
	// JobID is the job's ID, as given in BulkParams.
	JobID string
	// Batches are the batches of this shard that were sent, replayed or failed (or, in a dry
	// run, filled), by Index.
	Batches []BulkBatch
	// Recipients is the number of distinct recipients in Batches.
	Recipients int
	// Parts is the number of SMS parts over those recipients: each part of each recipient is
	// charged once.
	Parts int
	// Duplicates is the number of input recipients skipped because their number came
	// earlier in the input, and Invalid the number skipped as invalid. Every shard reads the
	// whole input, so these cover the whole input in every shard.
	Duplicates int
	Invalid    int
	// InvalidRecipients lists the first MaxReportedInvalid invalid recipients (the list is
	// capped so that the report stays small whatever the input).
	InvalidRecipients []InvalidRecipient
	// Sent is the number of recipients of batches sent by this run, and Amount what this run
	// charged for them.
	Sent   int
	Amount Amount
	// Replayed is the number of recipients of batches answered from an earlier run.
	Replayed int
	// Complete is true when the whole input was read and every batch of this shard was sent
	// or replayed: running the job again would send nothing. It is false in a dry run.
	Complete bool
}

// Failed returns the batches that failed after their retries.
func (r *BulkReport) Failed() []BulkBatch {
	var out []BulkBatch
	for _, b := range r.Batches {
		if b.Err != nil {
			out = append(out, b)
		}
	}
	return out
}

// CampaignIDs returns the IDs of the campaigns of the report's batches, in batch order.
func (r *BulkReport) CampaignIDs() []string {
	out := make([]string, 0, len(r.Batches))
	for _, b := range r.Batches {
		if b.CampaignID != "" {
			out = append(out, b.CampaignID)
		}
	}
	return out
}

// BulkProgress is passed to BulkParams.Progress after each batch.
type BulkProgress struct {
	// Batch is the batch that just finished.
	Batch BulkBatch
	// Batches is the number of batches finished so far, and Failed the number of them that
	// failed.
	Batches int
	Failed  int
	// Recipients is the number of recipients in the finished batches; Sent and Replayed
	// count those sent by this run and those answered from an earlier one.
	Recipients int
	Sent       int
	Replayed   int
	// Amount is what this run has charged so far.
	Amount Amount
}

// SendBulk sends Message to every recipient of p.Recipients exactly once, in campaigns of up
// to p.BatchSize recipients, p.Concurrency at a time, at most p.Rate requests per second.
//
// The input is streamed: numbers are normalized and de-duplicated over the whole job, invalid
// ones are skipped, and batch k is the k-th group of BatchSize valid distinct recipients, so
// the same input always gives the same batches. Each batch carries the reference
// JobID + ":" + k: running the same job again, after a crash, an error or a top-up, replays
// the batches already sent (reported as Replayed, not charged) and sends only the others.
// Each request is retried as Campaigns.Create is.
//
// SendBulk stops early, sending nothing more and returning the report with the error, when
// what follows cannot succeed: the wallet cannot pay (ErrInsufficientBalance: top up and run
// the job again), the credentials or their scope are refused (ErrUnauthorized,
// ErrInsufficientScope), a batch's reference was used before with other recipients
// (ErrConflict: the input changed since an earlier run of the job), or ctx ends. On the
// first four, batches already under way are finished first; when ctx ends, the requests in
// flight end with it, and running the job again replays any of them the server committed.
// To stop without cutting requests short, stop feeding p.Recipients instead. Any other
// failure is recorded in its batch and the job goes on; the error then matches
// ErrBulkIncomplete and the batch's error.
//
// Parameters are checked before anything is read or sent; a *ValidationError is returned
// with a nil report.
func (s *CampaignsService) SendBulk(ctx context.Context, p *BulkParams) (*BulkReport, error) {
	if p == nil {
		return nil, invalid("BulkParams", "parameters are required")
	}
	if err := checkBulk(p); err != nil {
		return nil, err
	}
	j := newBulkJob(s, p)
	return j.run(ctx)
}

func checkBulk(p *BulkParams) error {
	if p.JobID == "" {
		return invalid("JobID", "a job ID is required")
	}
	if len(p.JobID) > MaxJobIDLen || !rules.ValidReference(p.JobID) {
		return invalid("JobID", "a job ID is 1 to "+strconv.Itoa(MaxJobIDLen)+" printable ASCII characters")
	}
	if err := validateFrom("From", p.From); err != nil {
		return err
	}
	if p.Message == "" {
		return invalid("Message", "a message is required")
	}
	if !strings.Contains(p.Message, nameTag) {
		if err := validateParts("Message", p.Message); err != nil {
			return err
		}
	}
	if err := validateChannel(p.Channel); err != nil {
		return err
	}
	if p.Recipients == nil {
		return invalid("Recipients", "a sequence of recipients is required")
	}
	if p.BatchSize < 0 || p.BatchSize > MaxBulkBatchSize {
		return invalid("BatchSize", "the batch size is 1 to "+strconv.Itoa(MaxBulkBatchSize)+" (0 for the maximum)")
	}
	if p.Concurrency < 0 {
		return invalid("Concurrency", "the concurrency cannot be negative (0 for the default)")
	}
	if p.Rate < 0 || p.Rate != p.Rate {
		return invalid("Rate", "the rate is a number of requests per second, 0 for no limit")
	}
	if p.Shard.Count < 0 || p.Shard.Index < 0 || p.Shard.Index >= max(p.Shard.Count, 1) {
		return invalid("Shard", "the shard index is 0 to Count-1")
	}
	return nil
}

// bulkBatch is a batch on its way from the reader to a worker.
type bulkBatch struct {
	index int
	to    []wireRecipient
	parts int // largest
	total int // parts over its recipients
}

// bulkJob is one run of SendBulk.
type bulkJob struct {
	s        *CampaignsService
	p        *BulkParams
	size     int
	shard    Shard
	personal bool
	limiter  *rate.Limiter
	pause    atomic.Int64 // unix nanoseconds before which no worker starts a request

	free chan []wireRecipient // batch buffers to reuse

	halt     chan struct{} // closed when the job stops early
	haltOnce sync.Once
	haltErr  error

	mu     sync.Mutex // guards report and progress
	report BulkReport
	prog   BulkProgress
}

func newBulkJob(s *CampaignsService, p *BulkParams) *bulkJob {
	j := &bulkJob{
		s: s, p: p,
		size:     cmp.Or(p.BatchSize, MaxBulkBatchSize),
		shard:    Shard{Index: p.Shard.Index, Count: max(p.Shard.Count, 1)},
		personal: strings.Contains(p.Message, nameTag),
		limiter:  rate.NewLimiter(rate.Inf, 1),
		halt:     make(chan struct{}),
		report:   BulkReport{JobID: p.JobID},
	}
	if p.Rate > 0 {
		j.limiter = rate.NewLimiter(rate.Limit(p.Rate), 1)
	}
	j.free = make(chan []wireRecipient, cmp.Or(p.Concurrency, DefaultBulkConcurrency)+1)
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

func (j *bulkJob) run(ctx context.Context) (*BulkReport, error) {
	workers := cmp.Or(j.p.Concurrency, DefaultBulkConcurrency)
	work := make(chan *bulkBatch)
	var wg sync.WaitGroup
	if !j.p.DryRun {
		for range workers {
			wg.Go(func() {
				for b := range work {
					j.send(ctx, b)
				}
			})
		}
	}
	read := func() bool {
		defer close(work) // even if the input's iterator panics: the workers end
		return j.read(ctx, work)
	}()
	wg.Wait()

	r := &j.report
	slices.SortFunc(r.Batches, func(a, b BulkBatch) int { return a.Index - b.Index })
	failed := r.Failed()
	r.Complete = read && !j.p.DryRun && !j.halted() && len(failed) == 0
	switch {
	case j.halted():
		return r, j.haltErr
	case len(failed) > 0:
		return r, fmt.Errorf("%w: %d of %d batches of job %q failed; run the job again to retry them: batch %d: %w",
			ErrBulkIncomplete, len(failed), len(r.Batches), j.p.JobID, failed[0].Index, failed[0].Err)
	}
	return r, nil
}

// read streams the input into batches, handing this shard's to the workers (or, in a dry
// run, recording them). It reports whether it read the whole input.
func (j *bulkJob) read(ctx context.Context, work chan<- *bulkBatch) bool {
	var (
		seen     numberSet
		partsOf  = make(map[string]int) // parts by name, for the batch being filled
		msgParts = 0
		overhead = j.bodyOverhead()
		index    = 0 // of the batch being filled
		count    = 0 // its recipients
		bytes    = 0 // its estimated body size
		parts    = 0 // its largest parts
		cur      *bulkBatch
		pos      = -1
	)
	if !j.personal {
		msgParts, _ = rules.CountParts(j.p.Message)
	}
	mine := func(k int) bool { return k%j.shard.Count == j.shard.Index }
	emit := func() bool {
		if cur == nil { // another shard's batch
			return true
		}
		cur.parts = parts
		if j.p.DryRun {
			j.record(BulkBatch{Index: cur.index, Reference: j.reference(cur.index), Recipients: len(cur.to), Parts: parts}, cur.total, false)
			j.release(cur.to)
			return true
		}
		select {
		case work <- cur:
			return true
		case <-j.halt:
			j.release(cur.to)
			return false
		case <-ctx.Done():
			j.release(cur.to)
			j.stop(fmt.Errorf("sms: bulk job %q: %w", j.p.JobID, ctx.Err()))
			return false
		}
	}
	start := func() {
		count, bytes, parts, cur = 0, overhead, 0, nil
		clear(partsOf)
		if mine(index) {
			cur = &bulkBatch{index: index, to: j.buffer()}
		}
	}
	start()
	for r := range j.p.Recipients {
		pos++
		if pos%1024 == 0 && (j.halted() || ctx.Err() != nil) {
			if ctx.Err() != nil {
				j.stop(fmt.Errorf("sms: bulk job %q: %w", j.p.JobID, ctx.Err()))
			}
			return false
		}
		phone, err := rules.NormalizePhone(r.Phone)
		if err != nil {
			j.skip(pos, "Phone", err.Error())
			continue
		}
		if utf8.RuneCountInString(r.Name) > rules.MaxNameLen {
			j.skip(pos, "Name", "a name is at most "+strconv.Itoa(rules.MaxNameLen)+" characters")
			continue
		}
		np := msgParts
		if j.personal {
			var ok bool
			if np, ok = partsOf[r.Name]; !ok {
				np, _ = rules.CountParts(strings.ReplaceAll(j.p.Message, nameTag, r.Name))
				partsOf[r.Name] = np
			}
			if np > rules.MaxParts {
				j.skip(pos, "Name", "with this name the message takes "+strconv.Itoa(np)+" SMS parts; at most "+strconv.Itoa(rules.MaxParts)+" are allowed")
				continue
			}
		}
		n, _ := strconv.ParseUint(phone, 10, 64) // at most 15 digits
		if !seen.add(n) {
			j.report.Duplicates++
			continue
		}
		size := recipientSize(phone, r.Name)
		if count > 0 && (count == j.size || bytes+1+size > rules.MaxBodyBytes) {
			if !emit() {
				return false
			}
			if index++; len(strconv.Itoa(index)) > maxBatchDigits {
				j.stop(fmt.Errorf("sms: bulk job %q: more than %d batches; split the input into several jobs", j.p.JobID, index))
				return false
			}
			start()
		}
		if count > 0 {
			bytes++ // the comma
		}
		count, bytes, parts = count+1, bytes+size, max(parts, np)
		if cur != nil {
			cur.to = append(cur.to, wireRecipient{Phone: phone, Name: r.Name})
			cur.total += np
		}
	}
	if count > 0 {
		return emit()
	}
	j.release(cur.toOrNil())
	return true
}

func (b *bulkBatch) toOrNil() []wireRecipient {
	if b == nil {
		return nil
	}
	return b.to
}

// skip reports an invalid recipient. Like Duplicates, the fields it sets are the reader's
// alone: workers never touch them.
func (j *bulkJob) skip(pos int, field, reason string) {
	j.report.Invalid++
	if len(j.report.InvalidRecipients) < MaxReportedInvalid {
		j.report.InvalidRecipients = append(j.report.InvalidRecipients, InvalidRecipient{Position: pos, Field: field, Reason: reason})
	}
}

// buffer returns an empty batch buffer, reusing one a worker released.
func (j *bulkJob) buffer() []wireRecipient {
	select {
	case b := <-j.free:
		return b[:0]
	default:
		return make([]wireRecipient, 0, min(j.size, 1024))
	}
}

func (j *bulkJob) release(b []wireRecipient) {
	if b == nil {
		return
	}
	clear(b) // drop the strings
	select {
	case j.free <- b:
	default:
	}
}

// send sends one batch, after the rate limit and any 429 pause, and records the outcome.
func (j *bulkJob) send(ctx context.Context, b *bulkBatch) {
	defer j.release(b.to)
	if j.halted() {
		return
	}
	if err := j.wait(ctx); err != nil {
		if ctx.Err() != nil {
			j.stop(fmt.Errorf("sms: bulk job %q: %w", j.p.JobID, ctx.Err()))
		}
		return
	}
	ref := j.reference(b.index)
	cl := &call{
		method: http.MethodPost, path: "/v1/sms/campaigns", policy: retryIdempotent,
		body:    sendBody[any]{To: campaignTo(b.to), From: j.p.From, Message: j.p.Message, Channel: j.p.Channel, Reference: ref},
		attrs:   []slog.Attr{slog.Int("recipients", len(b.to)), slog.String("reference", ref)},
		observe: j.observe,
	}
	var out wireSent
	err := j.s.c.do(ctx, cl, &out)
	// A 429 whose Retry-After is longer than the client waits by itself comes back at once; it
	// has paused every worker (observe). The batch waits the pause out and goes again under
	// the same reference, a bounded number of times.
	for tries := 1; err != nil && errors.Is(err, ErrRateLimited) && tries < maxRateLimitedTries; tries++ {
		if j.wait(ctx) != nil {
			break
		}
		out = wireSent{}
		err = j.s.c.do(ctx, cl, &out)
	}
	res := BulkBatch{Index: b.index, Reference: ref, Recipients: len(b.to), Parts: b.parts}
	if err != nil {
		res.Err = err
		switch {
		case errors.Is(err, ErrConflict):
			j.stop(fmt.Errorf("sms: bulk job %q: batch %d (reference %q) was sent before with other recipients or another message: the input changed since an earlier run of this job: %w",
				j.p.JobID, b.index, ref, err))
		case errors.Is(err, ErrInsufficientBalance), errors.Is(err, ErrUnauthorized), errors.Is(err, ErrInsufficientScope):
			j.stop(fmt.Errorf("sms: bulk job %q stopped at batch %d: %w", j.p.JobID, b.index, err))
		case ctx.Err() != nil:
			j.stop(fmt.Errorf("sms: bulk job %q: %w", j.p.JobID, err))
		}
		j.record(res, b.total, false)
		return
	}
	sent, err := out.result(cl, j.p.From, j.p.Channel, ref)
	if err != nil {
		// A 2xx whose body lacks what a caller relies on: recorded, retried by a rerun.
		res.Err = err
		j.record(res, b.total, false)
		return
	}
	// A replay after an attempt of this call that may have been processed (a dropped
	// connection) is that attempt's answer: it was charged by this run.
	replayed := sent.Replayed && !cl.maybeDone
	res.CampaignID, res.Status, res.Amount, res.Replayed = sent.Campaign.ID, sent.Campaign.Status, sent.Campaign.Amount, replayed
	res.Parts = cmp.Or(sent.Campaign.Parts, b.parts)
	j.record(res, b.total, true)
}

// wait waits for the rate limiter and for any pause a 429 asked for. It returns ctx's error
// when ctx ends first, or errHalted when the job stops.
func (j *bulkJob) wait(ctx context.Context) error {
	for {
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

var errHalted = errors.New("sms: bulk job stopped")

// maxRateLimitedTries bounds how often one batch is sent again after a 429 that outlasted the
// client's own retries.
const maxRateLimitedTries = 5

// observe pauses every worker when an attempt is answered 429, for its Retry-After.
func (j *bulkJob) observe(cl *call) {
	if cl.status != http.StatusTooManyRequests {
		return
	}
	d, ok := retryAfter(cl.header, time.Now())
	if !ok {
		d = time.Second
	}
	until := time.Now().Add(d).UnixNano()
	for {
		old := j.pause.Load()
		if old >= until || j.pause.CompareAndSwap(old, until) {
			return
		}
	}
}

// record adds a finished batch, of parts SMS parts over its recipients, to the report and
// reports progress.
func (j *bulkJob) record(b BulkBatch, parts int, ok bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	r, pg := &j.report, &j.prog
	r.Batches = append(r.Batches, b)
	r.Recipients += b.Recipients
	r.Parts += parts
	pg.Batches++
	pg.Recipients += b.Recipients
	switch {
	case !ok && b.Err != nil:
		pg.Failed++
	case b.Replayed:
		r.Replayed += b.Recipients
	case ok:
		r.Sent += b.Recipients
		r.Amount = r.Amount.Add(b.Amount)
	}
	pg.Batch, pg.Sent, pg.Replayed, pg.Amount = b, r.Sent, r.Replayed, r.Amount
	if j.p.Progress != nil {
		j.p.Progress(*pg)
	}
}

// maxBatchDigits is the most digits of a batch index: JobID + ":" + index fits the
// reference's 100 characters.
const maxBatchDigits = rules.MaxReferenceLen - MaxJobIDLen - 1

// bodyOverhead is the size of a batch's request body without its recipients, with the
// longest reference the job can have.
func (j *bulkJob) bodyOverhead() int {
	ch := string(j.p.Channel)
	n := len(`{"to":[],"from":"","message":"","reference":""}`) + len(j.p.From) + jsonLen(j.p.Message) + len(j.p.JobID) + 1 + maxBatchDigits
	if ch != "" {
		n += len(`,"channel":""`) + len(ch)
	}
	return n
}

// recipientSize is the size of a recipient in the request body: a JSON string of the
// number, or {"phone":...,"name":...}.
func recipientSize(phone, name string) int {
	if name == "" {
		return len(phone) + 2
	}
	return len(`{"phone":"","name":""}`) + len(phone) + jsonLen(name)
}

// jsonLen is an upper bound of the length of s encoded by encoding/json, without the
// quotes: exact except for control characters other than \n, \r and \t, counted as \u00XX.
func jsonLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n
}
