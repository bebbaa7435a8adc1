package bulk

import (
	"cmp"
	"context"
	"errors"
	"github.com/seedsms/sms-go"
	"iter"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
)

// Limits of Send and Wait.
const (
	// defaultConcurrency is the number of batches Send sends at once by default.
	defaultConcurrency = 4
	// MaxConcurrency is the largest Concurrency of Send and Wait. Each batch in
	// flight holds its recipients and up to 1 MiB of request body: 64 of them stay within
	// about 128 MB, and few servers let one client run more requests at once.
	MaxConcurrency = 64
	// MaxBatchSize is the default and largest BatchSize: the API's limit per campaign.
	MaxBatchSize = 10_000
	// maxJobIDLen is the longest JobID, leaving room in each batch's reference for ":" and
	// the batch index.
	maxJobIDLen = 90
	// maxReportedInvalid is how many skipped recipients a Report lists one by one; all
	// are counted in Report.Invalid.
	maxReportedInvalid = 1000
	// defaultMaxRetryAfter is the longest wait that a Retry-After imposes on Send and on
	// waiting by default: a server that asks for more is taken to be refusing for now, and its
	// answer is returned (see Params.MaxRetryAfter and WaitParams.MaxRetryAfter).
	defaultMaxRetryAfter = 5 * time.Minute
)

// ErrIncomplete matches the error of a bulk job in which some batches failed after their
// retries while the others were sent. Running the same job again within 24 hours, against a
// server that deduplicates references, sends only those batches: the others are answered from
// the earlier run without sending or charging again. Batches accepted at an unknown cost
// (Batch.Unconfirmed) do not fail the job; a rerun sends them again unless the server
// deduplicates references or the job has a Journal, and the error then says so. When a failed
// batch may have been sent (its error matches sms.ErrOutcomeUnknown), the job's error matches
// sms.ErrOutcomeUnknown too: test for it, and for ErrBatchesInDoubt, before this one.
var ErrIncomplete = errors.New("bulk: job incomplete")

// Params is the input of Send.
type Params struct {
	// JobID names the job: 1 to 90 printable ASCII characters. Batch k is sent with
	// the reference JobID + ":" + k. When the server deduplicates references (see
	// sms.WithReferenceDeduplication; the mock does), running the same job again within 24 hours
	// of the earlier run, with the same input, Message and BatchSize, replays what was sent
	// instead of sending it again. After 24 hours the server has forgotten the references,
	// and a server that does not deduplicate never knew them: a rerun then sends every batch
	// again. To finish a job whose input changed, see SkipSentBy.
	JobID string
	// From is an active sender ID of the workspace.
	From string
	// Message is the text, valid UTF-8, in which {{name}} is replaced by each recipient's
	// Name. Each recipient's message must fit 10 parts and must not be empty (a message of
	// only {{name}} and a recipient without a name); recipients whose message does not are
	// skipped and reported.
	Message string
	// NameFallback, when set, is the name of a recipient whose Name is empty or blank, in a
	// Message that holds {{name}}, such as "customer": without it, such a recipient's text
	// reads without a name ("Hi , your order...") and is counted in Report.Nameless (a
	// dry run counts them too). It is a name like any other (at most 100 characters), and
	// part of the job's identity: every run of a job must use the same one.
	NameFallback string
	// Channel is sms.ChannelGeneric (when empty) or sms.ChannelDND.
	Channel sms.Channel
	// Recipients is the input, read once, in order, and never held whole: memory stays flat
	// whatever its length, apart from the set of distinct numbers (8 bytes of key each, plus
	// the set's overhead). Numbers are normalized and sent once per job, to their first valid
	// occurrence. A recipient whose number or name is invalid (a name longer than 100
	// characters or not valid UTF-8, or with which the message would not fit or be empty) is
	// skipped and reported with its position (a duplicate with an invalid name counts as
	// invalid).
	//
	// A pair whose error is a *CSVRowError (a row that CSVReader found invalid) is skipped
	// and reported with its line. A pair with any other non-nil error, such as a file that
	// cannot be read, stops the job: no batch is started after it, the batch being filled is
	// not sent, and Send returns the error, wrapped. For recipients held in a slice, use
	// RecipientsFrom; for a CSV file, NewCSVReader(file).All().
	//
	// Every run of a job must be given the same sequence.
	Recipients iter.Seq2[sms.Recipient, error]
	// BatchSize is the number of recipients per campaign request: 1 to MaxBatchSize (0:
	// MaxBatchSize). A batch is cut earlier when its request body would exceed 1 MiB.
	//
	// Like the input, BatchSize is part of the job's identity: batch k holds the k-th group
	// of BatchSize distinct valid recipients, so every run of a job must use the same
	// BatchSize. With a Journal, a run with another one is refused before anything is sent
	// (ErrJournalMismatch). Without one, a server that deduplicates references refuses it
	// at its first batch whose recipients differ from the earlier run's (sms.ErrConflict); a
	// server that does not deduplicate cannot tell, and sends every batch again.
	BatchSize int
	// Concurrency is the number of batches sent at once: 1 to MaxConcurrency (0: 4).
	Concurrency int
	// Rate limits the requests started per second (0: no limit). Whatever the rate, a 429
	// from the server pauses every worker for its Retry-After, up to MaxRetryAfter.
	Rate float64
	// MaxRetryAfter bounds the pause a 429's Retry-After imposes on the job (0: 5 minutes).
	// A 429 that asks for a longer wait stops the job: Send returns an error that wraps
	// the 429's *sms.Error, its RetryAfter set, so that the job can be run again once that time
	// has passed.
	MaxRetryAfter time.Duration
	// Shard, when Count > 1, sends only the batches k with k % Count == Index, so that Count
	// processes given the same JobID and input share the job, each batch sent by one of
	// them.
	Shard Shard
	// Progress, when set, is called after each batch with the totals so far, one call at a
	// time and in the order the batches finish, on the job's goroutines; never after
	// Send has returned. Each worker waits for its turn to call it: a slow Progress
	// slows the job down.
	Progress func(Progress)
	// DryRun reads the input and fills the report's batches, recipients and parts without
	// sending anything. With a Journal, it checks the input against it (ErrJournalMismatch)
	// and reports the batches it records as accepted and in doubt, without settling them.
	DryRun bool
	// SkipSentBy names earlier jobs, by their JobIDs, whose numbers this job skips: it
	// finishes a job whose input changed (a row fixed, rows added), which cannot be run
	// again under its own JobID (its batches would differ: sms.ErrConflict), by sending the new
	// input under a new JobID to the numbers the earlier jobs have not reached.
	//
	// Before reading the input, Send walks every campaign of the key's mode (one
	// request per 100 campaigns), keeps those whose Reference is one of these JobIDs + ":" +
	// k, and reads their recipients (one request per 100 recipients); their numbers are
	// skipped and counted in Report.Skipped. It relies on the server listing each
	// campaign's reference and recipients (the mock does; the live service's documented
	// list shows no reference) and still holding the earlier jobs' campaigns. A campaign
	// that failed was refunded and reached nobody: its numbers are sent. A number of a
	// campaign that was sent is skipped whatever its delivery, since it was charged. A job
	// named here of which no campaign is found, a campaign still processing (its recipients
	// are not listed yet), or one whose recipients cannot all be read stops Send before
	// anything is read or sent.
	//
	// The skipped numbers are part of the job's identity, like its input: rerunning the new
	// job within 24 hours reads the same numbers and replays its batches, as long as the
	// earlier jobs send nothing more meanwhile. A job cannot name itself.
	//
	// A job whose batch indices found on the server have a gap (a batch of the earlier job
	// that the server no longer lists: forgotten, or never sent) stops Send before
	// anything is sent, unless SkipSentByPartial is set.
	//
	// With a Journal that holds records of a job named here, that job's numbers are read
	// from the journal instead, and the server is not asked about it: the numbers of every
	// batch the journal records as accepted are skipped, those of a batch refused or never
	// started are sent. A batch of it in doubt stops Send before anything is sent
	// (ErrBatchesInDoubt, naming it) until it is settled (see Settle). The
	// journal must hold the records of every shard the job was run in (ErrJournalShards),
	// and of this client's account (ErrJournalAccount).
	SkipSentBy []string
	// SkipSentByPartial lets Send go on when it cannot find every batch of a job of
	// SkipSentBy on the server (a gap in the batch indices, a campaign the server has
	// forgotten) or in a journal that does not record the job's shards: the numbers of the
	// batches it cannot find are sent again. A batch in doubt in the journal still stops the
	// job: it is never skipped, nor sent, until it is settled (see Settle).
	SkipSentByPartial bool
	// Journal, when set, is the job's own record of its batches, kept by the client, so that
	// no batch is sent twice whether or not the server deduplicates references. Send
	// loads the job's records before reading the input, records each batch's intent
	// durably before its request is written and its outcome after its answer. A run then:
	//   - does not send a batch the journal records as accepted: it is reported with
	//     Batch.FromJournal and its amount from the journal (Report.FromJournal);
	//   - sends the batches never started, and those the server refused;
	//   - settles a batch in doubt (an intent without an outcome, or an unknown outcome) by
	//     sending it again when the client has sms.WithReferenceDeduplication; otherwise by
	//     looking for its reference in the server's campaign list, when the server lists
	//     references; otherwise it stays in doubt: reported (Batch.InDoubt,
	//     Report.InDoubt), the error matching ErrBatchesInDoubt, and not sent unless
	//     ResendInDoubt is set;
	//   - refuses, before sending anything, an input whose batch differs from the one the
	//     journal recorded (ErrJournalMismatch).
	//
	// Batches to send whose index is below the last one the journal records are held in
	// memory until the input has been read up to it, so that a changed input is refused
	// before anything is sent. Send does not close the journal. A DryRun reads it and
	// writes nothing: it fails with ErrJournalMismatch where a run would, and reports the
	// batches the journal records as accepted (FromJournal) or in doubt, asking the server
	// nothing and returning no error for them. Without a Journal, a rerun is safe only against a server that
	// deduplicates references (see JobID).
	Journal Journal
	// ResendInDoubt sends again the batches a Journal leaves in doubt: a batch whose earlier
	// request the server processed is then sent twice. Set it only once the campaigns of
	// those references are known not to exist; to settle batches one by one, see
	// Settle.
	ResendInDoubt bool
	// SettleAfter is how long after its intent a batch in doubt may still be processed by
	// the server (0: every attempt the client may make of a request, at its timeout each,
	// the waits between them, and a minute's margin: 4.5 minutes with the client's
	// defaults). A batch in doubt whose campaign the server's list does not show is taken
	// as never processed, and sent again, only once its intent is older than that, and only
	// when the list still shows a campaign older than the intent (the server has not
	// forgotten campaigns of that time). Otherwise it stays in doubt.
	SettleAfter time.Duration
	// Stop, when closed, stops the job gracefully: no batch is started after it (the input
	// is not read further, and a batch being filled is not sent), while the batches whose
	// requests were started finish under ctx and are recorded. Send then returns the
	// report and an error matching ErrStopped; running the job again finishes it. A
	// batch whose intent a Journal recorded but whose request was never written is recorded
	// as not sent. Use it for SIGTERM (a drain, an eviction) and a first Ctrl-C; cancel ctx
	// to cut the requests in flight too, which may leave them in doubt.
	Stop <-chan struct{}
}

// ErrStopped matches the error of a bulk job stopped by Params.Stop before its end:
// the batches started were finished and recorded, and no other was started. Run the job
// again to send the rest.
var ErrStopped = errors.New("bulk: job stopped")

// RecipientsFrom returns the input of a bulk job held in a slice: the recipients of rs, in
// order, none with an error.
func RecipientsFrom(rs []sms.Recipient) iter.Seq2[sms.Recipient, error] {
	return func(yield func(sms.Recipient, error) bool) {
		for _, r := range rs {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// Shard selects the batches one process of a job sends: those whose index k satisfies
// k % Count == Index. The zero Shard sends every batch.
type Shard struct {
	Index int // 0 to Count-1
	Count int // number of shards; 0 or 1: one
}

// Batch is the outcome of one batch of a bulk job: one campaign request.
type Batch struct {
	// Index is the batch's position in the job, from 0.
	Index int
	// Reference is the request's reference: JobID + ":" + Index.
	Reference string
	// CampaignID is the campaign the batch created, or the one a replay answered with; empty
	// when the batch failed or in a dry run.
	CampaignID string
	// Status is the campaign's status in the answer: processing, sent, or failed when the
	// provider refused it (it was refunded: Amount is 0.00, and its recipients get nothing; a rerun replays it, so send them again under another JobID).
	Status sms.CampaignStatus
	// Recipients is the number of distinct recipients in the batch.
	Recipients int
	// Parts is the largest number of SMS parts of a recipient's message.
	Parts int
	// Amount is what the campaign cost: in this run, or in the earlier one when Replayed;
	// 0.00 with AmountUnknown.
	Amount sms.Amount
	// AmountUnknown is true when the server's answer gave no readable amount: the batch was
	// sent, at a cost the report does not know (the live pages show one in every answer).
	AmountUnknown bool
	// Replayed is true when the batch was answered from an earlier run of the job: nothing
	// was sent or charged this time. A replay that follows an attempt of this run that may
	// have been processed (a dropped connection) is that attempt's answer: not Replayed.
	Replayed bool
	// Unconfirmed is true when the server accepted the batch (a 2xx, or a 303 See Other) but
	// its answer cannot be read: empty, not JSON, without the campaign's id or status, with a
	// negative amount or another number of recipients, or cut short (also by ctx ending). The
	// batch was sent and charged at a cost the report does not know: it is not among Failed,
	// its Amount is not counted, and Err, which matches sms.ErrOutcomeUnknown, says why and names
	// the HTTP status, the request ID and the reference to find its campaign by. A rerun of
	// the job sends it again unless the server deduplicates references (see
	// sms.WithReferenceDeduplication).
	Unconfirmed bool
	// FromJournal is true when Params.Journal records the batch as accepted by an
	// earlier run: nothing was sent this time, and CampaignID, Status and Amount are the
	// journal's.
	FromJournal bool
	// InDoubt is true, with a Journal, when the batch's request may have been processed and
	// nothing tells whether it was: in this run (a dropped connection, a timeout, a 5xx:
	// Err matches sms.ErrOutcomeUnknown) or an earlier one that the server's campaign list
	// could not settle (Err matches ErrBatchesInDoubt). It is not among Failed, and a
	// rerun does not send it again unless Params.ResendInDoubt is set.
	InDoubt bool
	// Err is why the batch failed after its retries, why an Unconfirmed batch's answer
	// cannot be read, or why a batch is InDoubt; nil when it was sent or replayed.
	Err error
}

// InvalidRecipient is an input recipient Send skipped.
type InvalidRecipient struct {
	// Position is the recipient's 0-based position in Params.Recipients: the number of
	// pairs the input yielded before it.
	Position int
	// Line is the 1-based line of the file on which the recipient's row starts, when the
	// input said (a *CSVRowError, as CSVReader yields); 0 otherwise.
	Line int
	// Field is "Phone" or "Name" ("" for a row of a file that is too long).
	Field string
	// Reason says what is wrong, quoting the bad value (escaped, cut at 40 bytes), such as
	// `invalid phone number "12345": must be 8-15 digits ...`.
	Reason string
}

// Report is the outcome of a bulk job, or of this process's shard of it.
type Report struct {
	// JobID is the job's ID, as given in Params.
	JobID string
	// Batches are the batches of this shard that were sent, replayed or failed (or, in a dry
	// run, filled), by Index.
	Batches []Batch
	// Recipients is the number of distinct recipients in Batches.
	Recipients int
	// Parts is the number of SMS parts over those recipients: each part of each recipient is
	// charged once.
	Parts int
	// Duplicates is the number of input recipients skipped because their number came
	// earlier in the input, Invalid the number skipped as invalid, and Skipped the number
	// of distinct numbers skipped because a job of Params.SkipSentBy sent them. Every
	// shard reads the whole input, so these cover the whole input in every shard.
	Duplicates int
	Invalid    int
	Skipped    int
	// Nameless is the number of distinct valid recipients, over the whole input, whose
	// message holds {{name}} but who have no name (empty or blank, and no
	// Params.NameFallback): their text reads without one.
	Nameless int
	// InvalidRecipients lists the first 1,000 invalid recipients (the list is
	// capped so that the report stays small whatever the input).
	InvalidRecipients []InvalidRecipient
	// Sent is the number of recipients of batches sent by this run, and Amount what this run
	// charged for them.
	Sent   int
	Amount sms.Amount
	// Replayed is the number of recipients of batches answered from an earlier run, and
	// ReplayedAmount what those batches cost when that run sent them: nothing was charged
	// for them this time. A batch that an earlier, interrupted run sent without learning its
	// outcome is counted here.
	Replayed       int
	ReplayedAmount sms.Amount
	// Unconfirmed is the number of recipients of the UnconfirmedBatches: batches the server
	// accepted (so sent and charged) whose answers cannot be read, at a cost not counted in
	// Amount or JobAmount (see Batch.Unconfirmed).
	Unconfirmed        int
	UnconfirmedBatches int
	// AmountUnknownBatches is the number of batches sent or replayed whose answer gave no
	// amount (see Batch.AmountUnknown): Amount, ReplayedAmount and JobAmount leave their
	// cost out.
	AmountUnknownBatches int
	// FromJournal is the number of recipients of batches that Params.Journal records as
	// accepted by an earlier run, which this run did not send (see Batch.FromJournal),
	// and FromJournalAmount what they cost then.
	FromJournal       int
	FromJournalAmount sms.Amount
	// InDoubt is the number of recipients of the InDoubtBatches: with a Journal, batches
	// that may or may not have been sent (see Batch.InDoubt), at a cost not counted.
	InDoubt        int
	InDoubtBatches int
	// JobAmount is Amount + ReplayedAmount + FromJournalAmount: what the batches of the report cost over every
	// run of the job. Once Complete, it is the whole cost of the job (of this shard, with
	// Shard): what the wallet moved over all its runs, less the refunds of campaigns that the
	// provider refused after answering (see Wait).
	JobAmount sms.Amount
	// Complete is true when the whole input was read and every batch of this shard was sent,
	// replayed, recorded as accepted in the journal or accepted at an unknown cost
	// (Unconfirmed): nothing is left to send and nothing is in doubt. It is false in a dry
	// run.
	Complete bool
}

// Failed returns the batches that failed after their retries; an Unconfirmed batch, which
// the server accepted, and an InDoubt one, which it may have, are not among them.
func (r *Report) Failed() []Batch {
	var out []Batch
	for _, b := range r.Batches {
		if b.Err != nil && !b.Unconfirmed && !b.InDoubt {
			out = append(out, b)
		}
	}
	return out
}

// CampaignIDs returns the IDs of the campaigns of the report's batches, in batch order.
func (r *Report) CampaignIDs() []string {
	out := make([]string, 0, len(r.Batches))
	for _, b := range r.Batches {
		if b.CampaignID != "" {
			out = append(out, b.CampaignID)
		}
	}
	return out
}

// Progress is passed to Params.Progress after each batch.
type Progress struct {
	// Batch is the batch that just finished.
	Batch Batch
	// Batches is the number of batches finished so far, and Failed the number of them that
	// failed (not counting Unconfirmed ones).
	Batches int
	Failed  int
	// Recipients is the number of recipients in the finished batches; Sent and Replayed
	// count those sent by this run and those answered from an earlier one, Unconfirmed those
	// of batches accepted at an unknown cost (see Batch.Unconfirmed).
	Recipients  int
	Sent        int
	Replayed    int
	Unconfirmed int
	// FromJournal counts the recipients of batches a Journal records as accepted by an
	// earlier run, and InDoubt those of batches it leaves in doubt.
	FromJournal int
	InDoubt     int
	// Amount is what this run has charged so far, and ReplayedAmount what the replayed
	// batches cost when an earlier run sent them.
	Amount         sms.Amount
	ReplayedAmount sms.Amount
}

// Send sends Message to every distinct valid recipient of p.Recipients, in campaigns of up
// to p.BatchSize recipients, p.Concurrency at a time, at most p.Rate requests per second.
//
// The input is streamed: numbers are normalized and de-duplicated over the whole job, invalid
// recipients are skipped, and batch k is the k-th group of BatchSize valid distinct
// recipients, so the same input always gives the same batches. Each batch carries the
// reference JobID + ":" + k: against a server that deduplicates references, running the same
// job again within 24 hours, after a crash, an error or a top-up, replays the batches already
// sent (reported as Replayed, not charged) and sends only the others. Without a Journal that
// is the only guarantee against sending twice: without deduplication, or after 24 hours, a
// rerun sends every batch again. With p.Journal, the client's own record decides instead (see
// Params.Journal): an accepted batch is never sent again, whatever the server does. Each
// request is retried as Campaigns.Create is.
//
// Send stops early, sending nothing more and returning the report with the error, when
// what follows cannot succeed: the input yields an error, the wallet cannot pay
// (sms.ErrInsufficientBalance: top up and run the job again), the credentials or their scope are
// refused (sms.ErrUnauthorized, sms.ErrInsufficientScope), a batch's reference was used before with
// other recipients (sms.ErrConflict: the input, the message or the batch size changed since an
// earlier run of the job), a 429 asks for a longer wait than p.MaxRetryAfter
// (sms.ErrRateLimited), or ctx ends. Batches already under way are finished first, except when
// ctx ends: the requests in flight then end with it, and running the job again replays any
// of them the server committed. To stop without cutting requests short, stop the input
// instead. Any other failure is recorded in its batch and the job goes on; the error then
// matches ErrIncomplete and the batch's error. A batch the server accepted whose answer
// cannot be read is recorded as Unconfirmed, not failed, and the job goes on; the error then
// matches sms.ErrOutcomeUnknown.
//
// Should the input panic, the job stops and the batches under way are finished before the
// panic goes on up the caller's goroutine: no goroutine of the job outlives Send.
//
// Parameters are checked before anything is read or sent; a *sms.ValidationError is returned
// with a nil report, as are the error of reading the numbers of p.SkipSentBy and that of
// loading p.Journal or settling its batches in doubt.
//
// Endpoints: POST /v1/sms/campaigns (scope campaigns), once per batch: see Campaigns.Create;
// with SkipSentBy, first GET /v1/sms/campaigns and GET /v1/sms/campaigns/{id}/status
// (scope campaigns) to read the earlier jobs: see Campaigns.All and Campaigns.AllRecipients.
func Send(ctx context.Context, c *sms.Client, p *Params) (*Report, error) {
	if err := checkClient(c); err != nil {
		return nil, err
	}
	s := over(c)
	if p == nil {
		return nil, invalid("Params", "parameters are required")
	}
	if err := checkBulk(p); err != nil {
		return nil, err
	}
	j := newBulkJob(s, p)
	if p.Journal != nil {
		if err := j.openJournal(ctx); err != nil {
			return nil, err
		}
	}
	if len(p.SkipSentBy) > 0 {
		sent, err := s.readSentBy(ctx, p)
		if err != nil {
			return nil, err
		}
		j.sentBefore = sent
	}
	return j.run(ctx)
}

func checkBulk(p *Params) error {
	if p.JobID == "" {
		return invalid("JobID", "a job ID is required")
	}
	if len(p.JobID) > maxJobIDLen || !rules.ValidReference(p.JobID) {
		return invalid("JobID", "a job ID is 1 to "+strconv.Itoa(maxJobIDLen)+" printable ASCII characters")
	}
	if reason := rules.SenderIDReason(p.From); reason != "" {
		return invalid("From", reason)
	}
	if err := validateBulkMessage(p.Message); err != nil {
		return err
	}
	if err := validateChannel(p.Channel); err != nil {
		return err
	}
	if p.NameFallback != "" {
		if reason := checkNameText(p.NameFallback); reason != "" || strings.TrimSpace(p.NameFallback) == "" {
			return invalid("NameFallback", cmp.Or(reason, "a fallback name cannot be blank"))
		}
	}
	if p.Recipients == nil {
		return invalid("Recipients", "a sequence of recipients is required (RecipientsFrom makes one of a slice)")
	}
	if p.BatchSize < 0 || p.BatchSize > MaxBatchSize {
		return invalid("BatchSize", "the batch size is 1 to "+strconv.Itoa(MaxBatchSize)+" (0 for the maximum)")
	}
	if err := validateConcurrency(p.Concurrency); err != nil {
		return err
	}
	if p.Rate < 0 || p.Rate != p.Rate {
		return invalid("Rate", "the rate is a number of requests per second, 0 for no limit")
	}
	if p.MaxRetryAfter < 0 {
		return invalid("MaxRetryAfter", "the longest pause cannot be negative (0 for the default)")
	}
	if p.SettleAfter < 0 {
		return invalid("SettleAfter", "the settle time cannot be negative (0 for the default)")
	}
	if p.Shard.Count < 0 || p.Shard.Index < 0 || p.Shard.Index >= max(p.Shard.Count, 1) {
		return invalid("Shard", "the shard index is 0 to Count-1")
	}
	return checkSkipSentBy(p)
}

// validateBulkMessage checks a bulk job's message: required, valid UTF-8, and within 10
// parts without any name (a name only makes it longer): a message that no recipient could be
// sent is refused before anything is read.
func validateBulkMessage(message string) error {
	if message == "" {
		return invalid("Message", "a message is required")
	}
	if !utf8.ValidString(message) {
		return invalid("Message", "the text is not valid UTF-8")
	}
	if reason := rules.PartsReason(strings.ReplaceAll(message, nameTag, "")); reason != "" {
		return invalid("Message", reason)
	}
	return nil
}

func validateConcurrency(n int) error {
	if n < 0 || n > MaxConcurrency {
		return invalid("Concurrency", "the concurrency is 1 to "+strconv.Itoa(MaxConcurrency)+" (0 for the default)")
	}
	return nil
}
