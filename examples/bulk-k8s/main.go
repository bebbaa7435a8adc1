// Command bulk-k8s sends one shard of a bulk SMS job: it is the program the Kubernetes
// Indexed Job in job.yaml runs, one pod per shard. Every pod reads the whole recipient file
// (so that all agree on the batches) and sends only the batches of its shard. It keeps the
// job's journal (bulk.NewSQLJournal) in a PostgreSQL table, outside the pod: a pod that fails
// is simply run again, and the batches the journal records as accepted are not sent again,
// whatever the server, so that a replaced pod or a lost node sends nothing twice. A batch
// whose answer never came (the pod killed mid-request) is in doubt: settled by the server's
// campaign list where it lists references, otherwise reported and not sent again.
//
// Configuration, all from the environment:
//
//	SMS_BASE_URL, SMS_API_KEY, SMS_API_SECRET   the API and the key pair
//	BULK_JOB_ID        the job's ID (batch k is sent with the reference BULK_JOB_ID:k)
//	BULK_FROM          an active sender ID
//	BULK_MESSAGE       the message; {{name}} is replaced by each recipient's name
//	BULK_RECIPIENTS    a CSV file of phone,name rows (a first row "phone,name" is skipped)
//	BULK_SHARDS        the number of shards: the Job's completions
//	JOB_COMPLETION_INDEX  this shard, set by Kubernetes for Indexed Jobs
//	BULK_JOURNAL_DSN   the PostgreSQL database of the journal, such as
//	                   "postgres://sms@db:5432/sms?sslmode=verify-full" (pgx's stdlib driver)
//	BULK_JOURNAL_TABLE optional: the journal's table, created when missing (default
//	                   sms_bulk_journal); all shards and jobs share it
//	BULK_RESEND_IN_DOUBT  optional: "1" sends the batches in doubt again (only once their
//	                   campaigns are known not to exist)
//	BULK_RATE          optional: requests per second for this shard
//
// SIGTERM (what Kubernetes sends on every drain, eviction or deletion) stops the shard
// gracefully: no batch is started after it, and the batches in flight finish and are
// recorded, so that nothing is left in doubt; a second SIGTERM cuts the requests in flight.
// job.yaml gives a pod enough time for that (terminationGracePeriodSeconds).
//
// "bulk-k8s settle BATCH --sent CAMPAIGN_ID" (or --not-sent), with the same environment,
// records what a person found of a batch in doubt (bulk.Settle), so that the retry of the
// index sends it or not.
//
// It prints the shard's report as one JSON line on stdout and exits with 0 when its shard is
// complete, 1 when running it again may finish it (batches failed, the connection or the
// database did, the pod was stopped, another pod of the shard still holds its lease), 2 when it cannot before someone acts (the wallet is
// empty: top up, then retry the index; the key is refused; the recipient file changed since
// an earlier run of the job, which the journal refuses; the journal is of another account or
// shard layout; the configuration is wrong), and 3, as sms bulk does, when batches are in
// doubt: settle each one (sms bulk settle, or bulk.Settle; see the README), then retry.
package main

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

// defaultJournalTable is the journal's table when BULK_JOURNAL_TABLE is not set.
const defaultJournalTable = "sms_bulk_journal"

// Exit codes; job.yaml's podFailurePolicy retries neither exitFix nor exitInDoubt.
const (
	exitOK      = 0
	exitRetry   = 1
	exitFix     = 2
	exitInDoubt = 3
)

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := make(chan struct{})
	go func() {
		<-sigs
		close(stop) // start no batch; those in flight finish and are recorded
		<-sigs
		cancel() // cut the requests in flight: they may be left in doubt
	}()
	if len(os.Args) > 1 && os.Args[1] == "settle" {
		os.Exit(settle(ctx, os.Args[2:], os.Getenv, os.Stdout, os.Stderr))
	}
	os.Exit(run(ctx, stop, os.Getenv, os.Stdout, os.Stderr))
}

// summary is what the shard prints.
type summary struct {
	JobID      string `json:"jobId"`
	Shard      int    `json:"shard"`
	Shards     int    `json:"shards"`
	Batches    int    `json:"batches"`
	Failed     int    `json:"failedBatches"`
	Recipients int    `json:"recipients"`
	Sent       int    `json:"sent"`
	Replayed   int    `json:"replayed"`
	Duplicates int    `json:"duplicates"`
	Invalid    int    `json:"invalid"`
	Amount     string `json:"amount"`
	Complete   bool   `json:"complete"`
	Error      string `json:"error,omitempty"`

	Unconfirmed int `json:"unconfirmed,omitempty"` // recipients of batches accepted at an unknown cost

	FromJournal    int `json:"fromJournal"`    // recipients of batches the journal records as sent by an earlier pod
	InDoubt        int `json:"inDoubt"`        // recipients of the batches in doubt
	InDoubtBatches int `json:"inDoubtBatches"` // batches that may or may not have been sent
}

// run runs the shard; closing stop stops it gracefully (see bulk.Params.Stop).
func run(ctx context.Context, stop <-chan struct{}, getenv func(string) string, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintln(stderr, "bulk-k8s:", err)
		return code
	}
	shards, err := strconv.Atoi(getenv("BULK_SHARDS"))
	if err != nil || shards < 1 {
		return fail(exitFix, errors.New("BULK_SHARDS must be the number of shards, 1 or more"))
	}
	index, err := strconv.Atoi(getenv("JOB_COMPLETION_INDEX"))
	if err != nil {
		return fail(exitFix, errors.New("JOB_COMPLETION_INDEX must be set (Kubernetes sets it in an Indexed Job)"))
	}
	var rate float64
	if v := getenv("BULK_RATE"); v != "" {
		if rate, err = strconv.ParseFloat(v, 64); err != nil {
			return fail(exitFix, errors.New("BULK_RATE must be a number of requests per second"))
		}
	}
	client, db, table, err := connect(getenv)
	if err != nil {
		return fail(exitFix, err)
	}
	defer db.Close()
	// The journal's lease is this shard's: the other shards run at the same time, and a
	// second pod of this shard is refused (ErrJournalLocked) until this one ends.
	journal, err := bulk.NewSQLJournal(ctx, db, table, bulk.WithSQLJournalShard(bulk.Shard{Index: index, Count: shards}))
	var ve *sms.ValidationError
	switch {
	case errors.As(err, &ve):
		return fail(exitFix, err)
	case err != nil: // the database is not reachable yet: try again
		return fail(exitRetry, err)
	}
	defer journal.Close() // releases the lease, so that a retried pod need not wait for it
	f, err := os.Open(getenv("BULK_RECIPIENTS"))
	if err != nil {
		return fail(exitFix, err)
	}
	defer f.Close()
	report, err := bulk.Send(ctx, client, &bulk.Params{
		JobID:      getenv("BULK_JOB_ID"),
		From:       getenv("BULK_FROM"),
		Message:    getenv("BULK_MESSAGE"),
		Recipients: readCSV(f),
		Rate:       rate,
		Shard:      bulk.Shard{Index: index, Count: shards},
		Journal:    journal,
		// A batch in doubt is sent again only when someone has checked that its campaign
		// does not exist.
		ResendInDoubt: getenv("BULK_RESEND_IN_DOUBT") == "1",
		Stop:          stop,
		Progress: func(p bulk.Progress) {
			fmt.Fprintf(stderr, "batch %d: %d recipients, replayed %t, err %v (%d done, %s charged)\n",
				p.Batch.Index, p.Batch.Recipients, p.Batch.Replayed, p.Batch.Err, p.Batches, p.Amount)
		},
	})
	if report != nil {
		s := summary{
			JobID: report.JobID, Shard: index, Shards: shards, Batches: len(report.Batches),
			Failed: len(report.Failed()), Recipients: report.Recipients, Sent: report.Sent,
			Replayed: report.Replayed, Duplicates: report.Duplicates, Invalid: report.Invalid,
			Amount: report.Amount.String(), Complete: report.Complete && err == nil, Unconfirmed: report.Unconfirmed,
			FromJournal: report.FromJournal, InDoubt: report.InDoubt, InDoubtBatches: report.InDoubtBatches,
		}
		if err != nil {
			s.Error = err.Error()
		}
		if e := json.NewEncoder(stdout).Encode(s); e != nil {
			return fail(exitRetry, e)
		}
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, bulk.ErrBatchesInDoubt):
		// A person looks for their campaigns and settles each batch (sms bulk settle).
		return fail(exitInDoubt, err)
	case errors.Is(err, bulk.ErrJournalMismatch), errors.Is(err, bulk.ErrJournalCorrupt), errors.Is(err, bulk.ErrJournalAccount),
		errors.Is(err, bulk.ErrJournalShards):
		// A person decides: a changed file is sent as a new job with SkipSentBy; a corrupt
		// journal is kept and looked at; a journal of another account or layout is the
		// wrong one, or the job needs a new ID.
		return fail(exitFix, err)
	case errors.Is(err, bulk.ErrIncomplete), errors.Is(err, sms.ErrOutcomeUnknown), errors.Is(err, sms.ErrServer),
		errors.Is(err, bulk.ErrStopped), errors.Is(err, context.Canceled), errors.Is(err, errRead), errors.Is(err, bulk.ErrJournalLocked):
		return fail(exitRetry, err)
	default: // 402, 401/403, 409 (input changed), invalid parameters
		return fail(exitFix, err)
	}
}

// connect returns the client of the API and the database and table of the job's journal, as
// the environment names them.
func connect(getenv func(string) string) (*sms.Client, *sql.DB, string, error) {
	client, err := sms.NewClient(getenv("SMS_API_KEY"), getenv("SMS_API_SECRET"), sms.WithBaseURL(getenv("SMS_BASE_URL")))
	if err != nil {
		return nil, nil, "", err
	}
	if getenv("BULK_JOURNAL_DSN") == "" {
		return nil, nil, "", errors.New("BULK_JOURNAL_DSN must name the PostgreSQL database of the job's journal")
	}
	db, err := sql.Open("pgx", getenv("BULK_JOURNAL_DSN"))
	if err != nil {
		return nil, nil, "", fmt.Errorf("BULK_JOURNAL_DSN: %w", err)
	}
	return client, db, cmp.Or(getenv("BULK_JOURNAL_TABLE"), defaultJournalTable), nil
}

// settle records what became of one batch in doubt of the job, as a person found it on the
// server: "bulk-k8s settle BATCH --sent CAMPAIGN_ID" or "--not-sent", run with the shards'
// environment (the Job's image and secret, through kubectl run). It exits 0 once recorded, 2
// when the batch is not in doubt, the server contradicts it or the input is wrong, and 1 when
// it may succeed later (the database, the API, or a shard of the job still running).
func settle(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintln(stderr, "bulk-k8s settle:", err)
		return code
	}
	flags := flag.NewFlagSet("settle", flag.ContinueOnError)
	flags.SetOutput(stderr)
	sent := flags.String("sent", "", "the campaign the batch created: it was sent")
	notSent := flags.Bool("not-sent", false, "no campaign of the batch exists: it was not sent")
	if len(args) == 0 {
		return fail(exitFix, errors.New("usage: bulk-k8s settle BATCH (--sent CAMPAIGN_ID | --not-sent)"))
	}
	index, err := strconv.Atoi(args[0])
	if err != nil || index < 0 {
		return fail(exitFix, fmt.Errorf("BATCH %q: want the batch's index, as the report names it", args[0]))
	}
	if err := flags.Parse(args[1:]); err != nil || flags.NArg() > 0 {
		return fail(exitFix, errors.New("usage: bulk-k8s settle BATCH (--sent CAMPAIGN_ID | --not-sent)"))
	}
	client, db, table, err := connect(getenv)
	if err != nil {
		return fail(exitFix, err)
	}
	defer db.Close()
	// The whole job's lease: refused while a shard of the job runs.
	journal, err := bulk.NewSQLJournal(ctx, db, table)
	if err != nil {
		return fail(exitRetry, err)
	}
	defer journal.Close()
	rec, err := bulk.Settle(ctx, client, &bulk.SettleParams{Journal: journal, JobID: getenv("BULK_JOB_ID"), Index: index, CampaignID: *sent, NotSent: *notSent})
	switch {
	case errors.Is(err, bulk.ErrJournalLocked): // a shard of the job is running: settle once it is done
		return fail(exitRetry, err)
	case err != nil: // not in doubt, contradicted by the server, or refused: the message says what to do
		return fail(exitFix, err)
	}
	out := map[string]any{"jobId": rec.JobID, "batch": rec.Index, "reference": rec.Reference, "sent": rec.State == bulk.JournalStateAccepted}
	if rec.CampaignID != "" {
		out["campaignId"] = rec.CampaignID
	}
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		return fail(exitRetry, err)
	}
	return exitOK
}

// errRead marks an error reading the recipients: the shard is then not complete, whatever
// bulk.Send says of the rows it saw.
var errRead = errors.New("reading the recipients")

// readCSV streams phone,name rows. A read error is yielded, which stops the job.
func readCSV(r io.Reader) iter.Seq2[sms.Recipient, error] {
	return func(yield func(sms.Recipient, error) bool) {
		cr := csv.NewReader(r)
		cr.FieldsPerRecord = -1
		cr.ReuseRecord = true
		for line := 1; ; line++ {
			rec, err := cr.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(sms.Recipient{}, fmt.Errorf("%w: %w", errRead, err))
				return
			}
			if line == 1 && len(rec) > 0 && rec[0] == "phone" {
				continue
			}
			r := sms.Recipient{Phone: rec[0]}
			if len(rec) > 1 {
				r.Name = rec[1]
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}
