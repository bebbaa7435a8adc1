package bulk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/seedsms/sms-go"
	"strconv"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
)

// Journal is the client's own record of a bulk job's batches (see Params.Journal), so
// that sending each batch exactly once does not depend on the server deduplicating
// references or listing them. OpenFileJournal keeps it in a file, NewSQLJournal in a table
// of a database/sql database; any other store can implement it.
//
// Send appends an intent record for a batch, and waits for Append to return, before the
// batch's request is written; then an outcome record once its answer is known. One Journal
// may hold several jobs: records are kept and loaded by JobID, which also lets SkipSentBy
// read an earlier job's batches from it.
//
// An implementation guarantees:
//
//   - Durability: when Append returns nil, the record survives a crash of the process and of
//     the machine. When it returns an error the record may or may not be kept, and Send
//     stops: for an intent, the batch is not sent.
//   - Order: Load returns the job's records, those of each batch in the order they were
//     appended (records of different batches may come in any order between them), each as
//     it was appended, whatever its kind.
//   - One owner per job: while a Journal value holds a job (from its first Load or Append of
//     it until Close, or the end of its process), any other value, of another process or of
//     the same one, is refused on Load and Append of that job with an error matching
//     ErrJournalLocked. It may take the job over once the first is closed or its process has
//     died. An Append of a job whose ownership was lost (taken over after the owner stalled)
//     fails, so the batch is not sent. OpenFileJournal holds the whole file; NewSQLJournal
//     holds each job by a lease (see SQLJournal).
//   - Validation: a record that makes no sense is refused by Append and never written.
//   - Concurrency: Load and Append may be called from many goroutines at once (a job's
//     workers append at once); Load and Append after Close return an error.
type Journal interface {
	// Load returns the records of the job jobID, in the order they were appended (for each
	// batch, the order of its records is what matters), or none when the journal has no
	// record of the job. It takes the job's ownership when the journal does not hold it.
	Load(ctx context.Context, jobID string) ([]JournalRecord, error)
	// Append adds rec durably: when it returns nil, rec survives a crash of the process and
	// of the machine. An error stops the job; for an intent, the batch is not sent.
	Append(ctx context.Context, rec JournalRecord) error
	// Close releases the journal and the jobs it holds. Send never calls it.
	Close() error
}

// JournalKind is the kind of a JournalRecord.
type JournalKind string

// The kinds of journal records.
const (
	// JournalKindIntent is written before a batch's request is sent: from then on the batch is
	// in doubt until an outcome says otherwise.
	JournalKindIntent JournalKind = "intent"
	// JournalKindOutcome is written once the batch's answer is known, or known to be unknown.
	JournalKindOutcome JournalKind = "outcome"
	// JournalKindJob is written once per shard of a job, before its first intent: the account
	// the job sends to (Server, Mode and Key) and the shard layout (Index of Shards). A run
	// against another account, or under another layout whose other shards' records the
	// journal does not hold, is refused before anything is sent.
	JournalKindJob JournalKind = "job"
)

// JournalState is what an outcome record says of its batch.
type JournalState string

// The states of an outcome record.
const (
	// JournalStateAccepted: the server took the batch's campaign. It was sent and charged, or,
	// when Status is StatusFailed, refused by the provider and refunded; either way it is
	// never sent again under its JobID.
	JournalStateAccepted JournalState = "accepted"
	// JournalStateRefused: the server refused the request (a 4xx, a 5xx known not to have been
	// processed, a request never written): nothing was sent, and a later run sends it.
	JournalStateRefused JournalState = "refused"
	// JournalStateUnknown: the request may have been processed (a dropped connection, a timeout,
	// a 5xx): the batch is in doubt.
	JournalStateUnknown JournalState = "unknown"
)

// JournalRecord is one record of a Journal: a batch's intent or its outcome, or the job's
// header (JournalKindJob).
type JournalRecord struct {
	// Kind is JournalKindIntent, JournalKindOutcome or JournalKindJob.
	Kind JournalKind
	// JobID, Index and Reference (JobID + ":" + Index) name the batch. In a JournalKindJob
	// record, Index is the shard's index and Reference is empty.
	JobID     string
	Index     int
	Reference string
	// Attempt counts the intents of the batch over every run of the job, from 1; an outcome
	// carries the attempt it answers.
	Attempt int
	// Digest is the lower-case hex SHA-256 of what the batch sends: its From, Channel and
	// Message, and each recipient's normalized number and name, in order (see BatchDigest).
	// A later run whose batch differs from it is refused before anything is sent.
	Digest string
	// Recipients is the number of recipients of the batch.
	Recipients int
	// Numbers are the batch's normalized numbers, in order (intent only): what SkipSentBy
	// reads to skip them without asking the server. Names are not kept.
	Numbers []string

	// State is what the outcome says (outcome only).
	State JournalState
	// CampaignID and Status are the campaign's, when known (accepted only).
	CampaignID string
	Status     sms.CampaignStatus
	// Amount is what the campaign cost, in minor units; AmountUnknown is true when the
	// answer did not say or could not be read (accepted only).
	Amount        sms.Amount
	AmountUnknown bool
	// Resolved says how an earlier run's batch in doubt was settled, such as "campaign list"
	// when the server listed a campaign under its reference; empty otherwise.
	Resolved string
	// Reason says why a batch was refused or is in doubt, without secrets or numbers.
	Reason string
	// Time is when the record was made.
	Time time.Time

	// Shards is the number of shards the job was run in (JournalKindJob only): Index of Shards.
	Shards int
	// Server is the base URL the job sends to, Mode the key's mode ("live" or "test"), and
	// Key the API key's fingerprint (see sms.Client.Account): what names the account without
	// keeping a secret (JournalKindJob only).
	Server string
	Mode   string
	Key    string
}

// ErrBatchesInDoubt matches the error of a bulk job run with a Journal that leaves batches in
// doubt: their requests may have been processed, and neither the journal, nor the server's
// deduplication, nor its campaign list can tell. They are flagged Batch.InDoubt and
// counted in Report.InDoubt and InDoubtBatches, and are not sent again by a rerun unless
// Params.ResendInDoubt is set. Check their campaigns by reference before deciding.
var ErrBatchesInDoubt = errors.New("bulk: batches in doubt")

// ErrJournalMismatch matches the error of a bulk job whose input, Message, From, Channel or
// BatchSize differ from what its Journal recorded for a batch of an earlier run: nothing is
// sent. To finish a job whose input changed, send the new input under a new JobID with the
// earlier job in Params.SkipSentBy.
var ErrJournalMismatch = errors.New("bulk: job differs from its journal")

// ErrJournalCorrupt matches a *JournalCorruptError.
var ErrJournalCorrupt = errors.New("bulk: journal corrupt")

// ErrJournalLocked matches the error of opening a journal file, or of loading or appending a
// job of a SQLJournal, that another journal (of this process or another one) holds.
var ErrJournalLocked = errors.New("bulk: journal in use")

// JournalCorruptError reports a journal record that cannot be read: a checksum that does not
// match, or a record that makes no sense, anywhere but in the last record of a file (which a
// crash may leave torn, and which is ignored).
type JournalCorruptError struct {
	// Path is the journal's file, or the table of a SQL journal.
	Path string
	// Line is the 1-based line of the record in a file; 0 otherwise.
	Line int
	// Offset is the byte offset of the record's line in a file.
	Offset int64
	// Reason says what is wrong.
	Reason string
}

// Error describes where the record is and what is wrong with it.
func (e *JournalCorruptError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where += ":" + strconv.Itoa(e.Line) + " (byte " + strconv.FormatInt(e.Offset, 10) + ")"
	}
	return "bulk: journal " + where + ": corrupt record: " + e.Reason
}

// Is reports whether target is ErrJournalCorrupt.
func (e *JournalCorruptError) Is(target error) bool { return target == ErrJournalCorrupt }

// BatchDigest returns the lower-case hex SHA-256 that identifies a batch in a journal: over
// from, channel, message and, in order, each recipient's normalized number and name.
func BatchDigest(from string, ch sms.Channel, message string, to []sms.Recipient) string {
	h := sha256.New()
	h.Write([]byte("sms-go bulk batch v1\x00"))
	for _, s := range []string{from, string(ch), message} {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	for _, r := range to {
		h.Write([]byte("\x00" + r.Phone + "\x00" + strconv.Itoa(len(r.Name)) + ":" + r.Name))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// checkRecord refuses a record that makes no sense, whatever Journal returned it.
func checkRecord(r *JournalRecord) error {
	switch {
	case r.JobID == "" || len(r.JobID) > maxJobIDLen || !rules.ValidReference(r.JobID):
		return errors.New("the job ID is not one")
	case r.Index < 0:
		return errors.New("a negative batch index")
	case r.Kind == JournalKindJob:
		return checkJobRecord(r)
	case r.Reference != r.JobID+":"+strconv.Itoa(r.Index):
		return fmt.Errorf("the reference %q is not the job's batch %d", r.Reference, r.Index)
	case r.Shards != 0 || r.Server != "" || r.Mode != "" || r.Key != "":
		return errors.New("a batch's record with a job's members")
	case r.Attempt < 1:
		return errors.New("an attempt below 1")
	case r.Recipients < 0 || r.Recipients > MaxBatchSize:
		return errors.New("a number of recipients out of range")
	}
	switch r.Kind {
	case JournalKindIntent:
		if len(r.Digest) != sha256.Size*2 {
			return errors.New("an intent without a digest")
		}
		if _, err := hex.DecodeString(r.Digest); err != nil {
			return errors.New("a digest that is not hex")
		}
		if len(r.Numbers) != r.Recipients {
			return fmt.Errorf("an intent of %d recipients lists %d numbers", r.Recipients, len(r.Numbers))
		}
		for _, n := range r.Numbers {
			if x, err := strconv.ParseUint(n, 10, 64); err != nil || x == 0 || len(n) > 15 {
				return errors.New("a number that is not a normalized one")
			}
		}
		if r.State != "" {
			return errors.New("an intent with a state")
		}
	case JournalKindOutcome:
		switch r.State {
		case JournalStateAccepted, JournalStateRefused, JournalStateUnknown:
		default:
			return fmt.Errorf("an outcome of unknown state %q", r.State)
		}
		if r.Amount.Kobo() < 0 {
			return errors.New("a negative amount")
		}
		if r.State != JournalStateAccepted && (r.CampaignID != "" || r.Amount.Kobo() != 0) {
			return errors.New("a campaign or an amount on a batch not accepted")
		}
	default:
		return fmt.Errorf("an unknown kind %q", r.Kind)
	}
	return nil
}

// maxJobServer bounds a job record's Server.
const maxJobServer = 2048

// checkJobRecord refuses a JournalKindJob record that makes no sense.
func checkJobRecord(r *JournalRecord) error {
	switch {
	case r.Shards < 1 || r.Index >= r.Shards:
		return fmt.Errorf("a job record of shard %d of %d", r.Index, r.Shards)
	case r.Reference != "" || r.Attempt != 0 || r.Digest != "" || r.Recipients != 0 || len(r.Numbers) != 0 ||
		r.State != "" || r.CampaignID != "" || r.Status != "" || r.Amount.Kobo() != 0 || r.AmountUnknown || r.Resolved != "" || r.Reason != "":
		return errors.New("a job record with a batch's members")
	case r.Server == "" || len(r.Server) > maxJobServer || !printableASCII(r.Server):
		return errors.New("a job record without its server")
	case r.Mode != "live" && r.Mode != "test":
		return fmt.Errorf("a job record of mode %q", r.Mode)
	case r.Key == "" || len(r.Key) > 200 || !printableASCII(r.Key):
		return errors.New("a job record without its key")
	}
	return nil
}

// printableASCII reports whether s holds only printable ASCII characters.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
