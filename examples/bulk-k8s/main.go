// Command bulk-k8s sends one shard of a bulk SMS job: it is the program the Kubernetes
// Indexed Job in job.yaml runs, one pod per shard. Every pod reads the whole recipient file
// (so that all agree on the batches) and sends only the batches of its shard; a pod that
// fails is simply run again, and the batches it had sent are replayed, not sent twice, provided
// the server deduplicates references (the mock does under its full profile, or with
// -reference-dedup on) and the rerun comes within 24 hours; a server that does not sends them
// again.
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
//	BULK_RATE          optional: requests per second for this shard
//
// It prints the shard's report as one JSON line on stdout and exits with 0 when its shard is
// complete, 1 when running it again may finish it (batches failed, or the connection did),
// and 2 when it cannot before someone acts: the wallet is empty (top up, then retry the
// index), the key is refused, the recipient file changed since an earlier run of the job, the
// configuration is wrong, or the server accepted batches whose answers could not be read
// (check their campaigns by reference: a rerun sends them again unless the server
// deduplicates references).
package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	sms "github.com/seedsms/sms-go"
)

// Exit codes; job.yaml's podFailurePolicy does not retry exitFix.
const (
	exitOK    = 0
	exitRetry = 1
	exitFix   = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Getenv, os.Stdout, os.Stderr))
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
}

func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) int {
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
	client, err := sms.NewClient(getenv("SMS_API_KEY"), getenv("SMS_API_SECRET"), sms.WithBaseURL(getenv("SMS_BASE_URL")))
	if err != nil {
		return fail(exitFix, err)
	}
	f, err := os.Open(getenv("BULK_RECIPIENTS"))
	if err != nil {
		return fail(exitFix, err)
	}
	defer f.Close()
	report, err := client.Campaigns.SendBulk(ctx, &sms.BulkParams{
		JobID:      getenv("BULK_JOB_ID"),
		From:       getenv("BULK_FROM"),
		Message:    getenv("BULK_MESSAGE"),
		Recipients: readCSV(f),
		Rate:       rate,
		Shard:      sms.Shard{Index: index, Count: shards},
		Progress: func(p sms.BulkProgress) {
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
	case report != nil && report.UnconfirmedBatches > 0: // a rerun would send them again
		return fail(exitFix, err)
	case errors.Is(err, sms.ErrBulkIncomplete), errors.Is(err, sms.ErrOutcomeUnknown), errors.Is(err, sms.ErrServer),
		errors.Is(err, context.Canceled), errors.Is(err, errRead):
		return fail(exitRetry, err)
	default: // 402, 401/403, 409 (input changed), invalid parameters
		return fail(exitFix, err)
	}
}

// errRead marks an error reading the recipients: the shard is then not complete, whatever
// SendBulk says of the rows it saw.
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
