package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
)

// bulkOptions are the flags of sms bulk.
type bulkOptions struct {
	file        recipientsFile
	from        string
	jobID       string
	channel     string
	skipInvalid bool
	batchSize   int
	concurrency int
	rate        float64
	shard       string
	dryRun      bool
	report      string
	wait        bool
	poll        time.Duration
}

func (a *app) bulkCmd() *cobra.Command {
	var o bulkOptions
	cmd := &cobra.Command{
		Use:   "bulk --csv FILE --from SENDER --message TEXT --job-id ID",
		Short: "Send a campaign to every number of a CSV file, exactly once",
		Long: `Send a message to every recipient of a CSV file: phone[,name], one per row (or
separated by semicolons or tabs, when the first line has no comma). A header row is
recognised (columns named phone, msisdn, number, mobile, name, ...); --phone-column
and --name-column pick others, by header name or 1-based number. {{name}} in the message is
replaced by each recipient's name.

The whole file is checked first, and rows that cannot be sent are listed by line number:
they make the command fail (exit 2) unless --skip-invalid sends the others. Numbers are
sent once per job, to their first row.

The job is sent in batches, each a campaign whose reference is derived from --job-id and
the batch's position. Running the same command again therefore never sends anything twice:
batches already sent are answered from the first run, and only the rest are sent. So when
the job stops (an empty wallet, a network failure, or Ctrl-C, which lets the batches in
flight finish first), run the same command again to finish it; the command to run is
printed. --shard i/n sends only batches k with k % n == i, so that n processes share a
job.

Progress is shown on stderr: a bar when it is a terminal, plain lines otherwise. The
summary goes to stdout (JSON with --json); --report writes the full report to a file.`,
		Example: `  sms bulk --csv people.csv --from ACME --message 'Hi {{name}}' --job-id promo-2026-11
  sms bulk --csv people.csv --from ACME --message 'Hi {{name}}' --job-id promo-2026-11 --dry-run
  sms bulk --csv export.csv --phone-column msisdn --name-column first_name --from ACME \
      --message 'Hi {{name}}, our sale starts today' --job-id sale-42 --skip-invalid --report sale-42.json
  sms bulk --csv people.csv --from ACME --message 'Hello' --job-id promo --shard 0/4 --rate 5 --wait`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runBulk(cmd.Context(), &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.file.path, "csv", "", "the CSV file of recipients: phone[,name]")
	f.StringVar(&o.file.phoneCol, "phone-column", "", "the phone column: a header name or a 1-based number (default: found by name, or the first)")
	f.StringVar(&o.file.nameCol, "name-column", "", "the name column: a header name or a 1-based number (default: found by name, or the second)")
	f.StringVar(&o.from, "from", "", "an active sender ID")
	f.StringVar(&o.file.message, "message", "", "the text; {{name}} is replaced by each recipient's name")
	f.StringVar(&o.jobID, "job-id", "", "names the job; the same job run again never sends twice")
	f.StringVar(&o.channel, "channel", "", "generic (default) or dnd")
	f.BoolVar(&o.skipInvalid, "skip-invalid", false, "send the valid rows when some cannot be sent")
	f.IntVar(&o.batchSize, "batch-size", 0, "recipients per campaign request, 1 to 10000 (default 10000)")
	f.IntVar(&o.concurrency, "concurrency", 0, "batches sent at once (default 4)")
	f.Float64Var(&o.rate, "rate", 0, "at most this many requests per second (default no limit)")
	f.StringVar(&o.shard, "shard", "", "send only this shard's batches: i/n, 0 <= i < n")
	f.BoolVar(&o.dryRun, "dry-run", false, "count batches, recipients and parts; send nothing")
	f.StringVar(&o.report, "report", "", "write the job's report to this file, as JSON")
	f.BoolVar(&o.wait, "wait", false, "after sending, wait for delivery and print the counts")
	f.DurationVar(&o.poll, "poll-interval", sms.DefaultWaitMinDelay, "with --wait, the first wait between polls (backing off up to 30s)")
	completeValues(cmd, "channel", "generic", "dnd")
	_ = cmd.MarkFlagFilename("csv", "csv")
	_ = cmd.MarkFlagFilename("report", "json")
	for _, name := range []string{"csv", "from", "message", "job-id"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

var shardPattern = regexp.MustCompile(`^([0-9]+)/([0-9]+)$`)

// parseShard reads "i/n".
func parseShard(s string) (sms.Shard, error) {
	if s == "" {
		return sms.Shard{}, nil
	}
	m := shardPattern.FindStringSubmatch(s)
	if m == nil {
		return sms.Shard{}, usagef("--shard %q: want i/n, such as 0/4", s)
	}
	i, err1 := strconv.Atoi(m[1])
	n, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || n < 1 || i >= n {
		return sms.Shard{}, usagef("--shard %q: want i/n with 0 <= i < n", s)
	}
	return sms.Shard{Index: i, Count: n}, nil
}

func (a *app) runBulk(ctx context.Context, o *bulkOptions) error {
	shard, err := parseShard(o.shard)
	if err != nil {
		return err
	}
	if o.poll <= 0 {
		return usagef("--poll-interval must be positive")
	}
	// An interrupt (ctx) lets the batches in flight finish, then ends the job (jobCtx).
	jobCtx, cancelJob := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJob()
	d := newDrain(a.transport, cancelJob)
	defer context.AfterFunc(ctx, d.interrupt)()
	c, err := a.client(sms.WithHTTPClient(&http.Client{Transport: d, Timeout: sms.DefaultTimeout}))
	if err != nil {
		return err
	}

	// Check the whole file before sending anything.
	sum, err := o.file.validate()
	if err != nil {
		return err
	}
	a.note("%s: %s; %d rows, %d that cannot be sent", o.file.path, o.file.cols, sum.Rows, sum.BadCount)
	for i, b := range sum.Bad {
		if i == 20 {
			a.note("  ... and %d more (--report lists the first %d)", sum.BadCount-i, maxBadRows)
			break
		}
		a.note("  line %d: %s", b.Line, b.Reason)
	}
	if sum.BadCount > 0 && !o.skipInvalid {
		err := usagef("%d rows of %s cannot be sent: fix them, or use --skip-invalid to send the others", sum.BadCount, o.file.path)
		if rerr := a.writeReport(bulkJSON{JobID: o.jobID, Rows: sum.Rows, BadRows: sum.BadCount, Currency: "NGN", BadList: sum.Bad}, o); rerr != nil {
			a.note("sms: %v", rerr)
		}
		return err
	}
	if sum.Valid == 0 {
		return usagef("%s has no recipient to send to", o.file.path)
	}

	params := sms.BulkParams{
		JobID: o.jobID, From: o.from, Message: o.file.message, Channel: sms.Channel(o.channel),
		BatchSize: o.batchSize, Concurrency: o.concurrency, Rate: o.rate, Shard: shard,
	}
	var readErr error
	params.Recipients = seq2(o.file.recipients(&readErr))

	// A dry run first: it checks the parameters and counts this shard's batches, which
	// sizes the progress bar.
	params.DryRun = true
	plan, err := c.Campaigns.SendBulk(jobCtx, &params)
	if err == nil {
		err = readErr
	}
	if err != nil {
		return apiErr(ctx, err)
	}
	out := bulkOut(plan, sum)
	which := "job " + o.jobID
	if shard.Count > 1 {
		which += fmt.Sprintf(", shard %d/%d", shard.Index, shard.Count)
	}
	a.note("%s: %d batches, %d recipients, %d SMS parts; %d duplicate numbers sent once", which, len(plan.Batches), plan.Recipients, plan.Parts, plan.Duplicates)
	if o.dryRun {
		out.DryRun = true
		return a.finishBulk(out, o, nil)
	}

	params.DryRun = false
	prog := newProgress(a.stderr, plan.Recipients, len(plan.Batches))
	params.Progress = func(bp sms.BulkProgress) {
		prog.update(bp)
		d.settled()
	}
	rep, sendErr := c.Campaigns.SendBulk(jobCtx, &params)
	prog.done()
	if sendErr == nil && readErr != nil {
		sendErr = &failure{fmt.Errorf("reading %s: %w", o.file.path, readErr)}
	}
	if rep == nil { // invalid parameters, caught by the dry run already
		return apiErr(ctx, sendErr)
	}
	out = bulkOut(rep, sum)
	if sendErr != nil {
		return a.finishBulk(out, o, a.bulkStopped(ctx, rep, sendErr))
	}
	if o.wait && len(rep.CampaignIDs()) > 0 {
		a.note("waiting for delivery of %d campaigns", len(rep.CampaignIDs()))
		d, err := c.Campaigns.WaitBulk(ctx, rep, &sms.WaitParams{MinDelay: o.poll, MaxDelay: max(o.poll, sms.DefaultWaitMaxDelay)})
		if d != nil {
			out.Delivery = &deliverySumJSON{Campaigns: d.Campaigns, Failed: d.Failed, Counts: countsOut(d.Counts)}
		}
		if err != nil {
			return a.finishBulk(out, o, apiErr(ctx, err))
		}
	}
	return a.finishBulk(out, o, nil)
}

// bulkStopped explains why a job stopped before the end and how to finish it.
func (a *app) bulkStopped(ctx context.Context, rep *sms.BulkReport, err error) error {
	done := 0
	for _, b := range rep.Batches {
		if b.Err == nil {
			done++
		}
	}
	cmdline, stripped := a.resumeCommand()
	resume := "  " + cmdline
	if stripped {
		resume += "\n(the secret given as a flag is left out: set " + envAPISecret + " or add --api-secret-file)"
	}
	switch {
	case ctx.Err() != nil:
		a.note("interrupted after %d batches (%d recipients sent or replayed, %s NGN charged), once the batches in flight were done.\nTo finish the job, run the same command again; it never sends anything twice:\n%s",
			done, rep.Sent+rep.Replayed, rep.Amount, resume)
		return &interrupted{errors.New("interrupted")}
	case errors.Is(err, sms.ErrUnauthorized), errors.Is(err, sms.ErrInsufficientScope):
		a.note("the API key was refused after %d batches: fix the credentials, then run the same command again to send the rest:\n%s", done, resume)
	case errors.Is(err, sms.ErrInsufficientBalance):
		a.note("the wallet ran out after %d batches (%s NGN charged): top up, then run the same command again to send the rest:\n%s", done, rep.Amount, resume)
	case errors.Is(err, sms.ErrConflict):
		a.note("this job ID was used before with other recipients or another message: use a new --job-id for a new job")
	case errors.Is(err, sms.ErrBulkIncomplete):
		a.note("%d batches failed; run the same command again to retry only them:\n%s", len(rep.Failed()), resume)
	default:
		a.note("the job stopped after %d batches; run the same command again to finish it:\n%s", done, resume)
	}
	return apiErr(ctx, err)
}

// resumeCommand is the command line that runs the job again, without any secret given as a
// flag (the environment or a secret file provides it); stripped reports whether one was left
// out.
func (a *app) resumeCommand() (cmdline string, stripped bool) {
	words := []string{"sms"}
	for i := 0; i < len(a.args); i++ {
		arg := a.args[i]
		name, _, hasValue := strings.Cut(arg, "=")
		if name == "--api-secret" || name == "--dashboard-token" {
			if !hasValue {
				i++ // skip the value too
			}
			stripped = true
			continue
		}
		words = append(words, shellQuote(arg))
	}
	return strings.Join(words, " "), stripped
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// bulkJSON is the outcome of sms bulk: on stdout with --json, and in --report.
type bulkJSON struct {
	JobID      string           `json:"jobId"`
	DryRun     bool             `json:"dryRun,omitempty"`
	Complete   bool             `json:"complete"`
	Rows       int              `json:"rows"`
	BadRows    int              `json:"badRows"`
	Duplicates int              `json:"duplicates"`
	Batches    int              `json:"batches"`
	Recipients int              `json:"recipients"`
	Parts      int              `json:"parts"`
	Sent       int              `json:"sent"`
	Replayed   int              `json:"replayed"`
	Amount     sms.Amount       `json:"amount"`
	Currency   string           `json:"currency"`
	Failed     int              `json:"failedBatches"` // after their retries; not those an interrupt held back
	Delivery   *deliverySumJSON `json:"delivery,omitempty"`
	BatchList  []batchJSON      `json:"batchList,omitempty"` // only in --report
	BadList    []badRow         `json:"badRowList,omitempty"`
}

type batchJSON struct {
	Index      int        `json:"index"`
	Reference  string     `json:"reference"`
	CampaignID string     `json:"campaignId,omitempty"`
	Status     sms.Status `json:"status,omitempty"`
	Recipients int        `json:"recipients"`
	Parts      int        `json:"parts"`
	Amount     sms.Amount `json:"amount"`
	Replayed   bool       `json:"replayed,omitempty"`
	Error      string     `json:"error,omitempty"`
}

type deliverySumJSON struct {
	Campaigns int        `json:"campaigns"`
	Failed    int        `json:"failedCampaigns"`
	Counts    countsJSON `json:"counts"`
}

func bulkOut(r *sms.BulkReport, sum *csvSummary) bulkJSON {
	out := bulkJSON{
		JobID: r.JobID, Complete: r.Complete, Rows: sum.Rows, BadRows: sum.BadCount, Duplicates: r.Duplicates,
		Batches: len(r.Batches), Recipients: r.Recipients, Parts: r.Parts, Sent: r.Sent, Replayed: r.Replayed,
		Amount: r.Amount, Currency: "NGN", BadList: sum.Bad,
	}
	for _, b := range r.Batches {
		// A batch held back by an interrupt was not sent: it did not fail.
		if b.Err != nil && !errors.Is(b.Err, context.Canceled) {
			out.Failed++
		}
		bj := batchJSON{
			Index: b.Index, Reference: b.Reference, CampaignID: b.CampaignID, Status: b.Status,
			Recipients: b.Recipients, Parts: b.Parts, Amount: b.Amount, Replayed: b.Replayed,
		}
		if b.Err != nil {
			bj.Error = b.Err.Error()
		}
		out.BatchList = append(out.BatchList, bj)
	}
	return out
}

// writeReport writes the report file, when --report asks for one.
func (a *app) writeReport(out bulkJSON, o *bulkOptions) error {
	if o.report == "" {
		return nil
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err == nil {
		err = os.WriteFile(o.report, append(b, '\n'), 0o644)
	}
	if err != nil {
		return &failure{fmt.Errorf("writing the report: %w", err)}
	}
	return nil
}

// finishBulk writes the report file and prints the summary, then returns err.
func (a *app) finishBulk(out bulkJSON, o *bulkOptions, err error) error {
	if rerr := a.writeReport(out, o); rerr != nil {
		if err == nil {
			err = rerr
		} else {
			a.note("sms: %v", rerr)
		}
	}
	summary := out
	summary.BatchList, summary.BadList = nil, nil
	var perr error
	if a.jsonOut {
		perr = writeJSON(a.stdout, summary)
	} else if out.DryRun {
		t := newTable(a.stdout, "JOB", "BATCHES", "RECIPIENTS", "PARTS", "DUPLICATES", "BAD ROWS")
		t.row(out.JobID, itoa(out.Batches), itoa(out.Recipients), itoa(out.Parts), itoa(out.Duplicates), itoa(out.BadRows))
		perr = t.flush()
	} else {
		t := newTable(a.stdout, "JOB", "COMPLETE", "BATCHES", "RECIPIENTS", "SENT", "REPLAYED", "FAILED BATCHES", "AMOUNT")
		t.row(out.JobID, yesNo(out.Complete), itoa(out.Batches), itoa(out.Recipients),
			itoa(out.Sent), itoa(out.Replayed), itoa(out.Failed), out.Amount.String()+" NGN")
		perr = t.flush()
		if perr == nil && out.Delivery != nil {
			d := out.Delivery
			a.stdoutLine("")
			t = newTable(a.stdout, "CAMPAIGNS", "FAILED CAMPAIGNS", "SENT", "DELIVERED", "FAILED", "DND")
			t.row(itoa(d.Campaigns), itoa(d.Failed), itoa(d.Counts.Sent), itoa(d.Counts.Delivered), itoa(d.Counts.Failed), itoa(d.Counts.DND))
			perr = t.flush()
		}
	}
	if err == nil {
		err = perr
	}
	return err
}

func (a *app) stdoutLine(s string) { fmt.Fprintln(a.stdout, s) }

// seq2 yields the recipients of seq with no error: the file's read error is checked apart.
func seq2(seq func(func(sms.Recipient) bool)) iter.Seq2[sms.Recipient, error] {
	return func(yield func(sms.Recipient, error) bool) {
		for r := range seq {
			if !yield(r, nil) {
				return
			}
		}
	}
}
