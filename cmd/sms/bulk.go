package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/internal/rules"
)

// bulkOptions are the flags of sms bulk.
type bulkOptions struct {
	file        recipientsFile
	from        string
	jobID       string
	skipSentBy  []string
	partialSkip bool
	journal     []string
	journalDir  string
	resendDoubt bool
	settleAfter time.Duration
	noName      string
	channel     string
	skipInvalid bool
	batchSize   int
	concurrency int
	rate        float64
	shard       string
	dryRun      bool
	price       string
	report      string
	wait        bool
	poll        time.Duration
	timeout     time.Duration
}

// Bounds of --rate: below one request every 100 s, a job would seem to hang.
const minRate = 0.01

// check checks the flags that need no request, before the file is read or anything is sent,
// and returns the shard and the price of one part.
func (o *bulkOptions) check() (bulk.Shard, sms.Amount, error) {
	var none sms.Amount
	shard, err := parseShard(o.shard)
	if err != nil {
		return bulk.Shard{}, none, err
	}
	if o.batchSize < 0 || o.batchSize > bulk.MaxBatchSize {
		return shard, none, usagef("--batch-size %d: want 1 to %d", o.batchSize, bulk.MaxBatchSize)
	}
	if o.concurrency < 0 || o.concurrency > maxConcurrency {
		return shard, none, usagef("--concurrency %d: want 1 to %d", o.concurrency, maxConcurrency)
	}
	if math.IsNaN(o.rate) || math.IsInf(o.rate, 0) || o.rate < 0 || o.rate > 0 && o.rate < minRate {
		return shard, none, usagef("--rate %v: want requests per second, at least %v (0 for no limit)", o.rate, minRate)
	}
	if o.settleAfter < 0 {
		return shard, none, usagef("--settle-after %v: cannot be negative", o.settleAfter)
	}
	if err := checkDuration("poll-interval", o.poll, minPoll, maxPoll); err != nil {
		return shard, none, err
	}
	switch {
	case o.timeout < 0:
		return shard, none, usagef("--timeout %v: cannot be negative (0 waits as long as it takes)", o.timeout)
	case o.timeout > 0 && !o.wait:
		return shard, none, usagef("--timeout bounds the wait for delivery: give it with --wait")
	}
	price := sms.AmountFromKobo(rules.DefaultGenericPrice)
	if sms.Channel(o.channel) == sms.ChannelDND {
		price = sms.AmountFromKobo(rules.DefaultDNDPrice)
	}
	if o.price != "" {
		if price, err = sms.ParseAmount(o.price); err != nil || price.Kobo() < 0 || price.Kobo() > rules.MaxPrice {
			return shard, none, usagef("--price %q: want the price of one SMS part in NGN, such as 3.20, at most %s", o.price, sms.AmountFromKobo(rules.MaxPrice))
		}
	}
	return shard, price, nil
}

func (a *app) bulkCmd() *cobra.Command {
	var o bulkOptions
	cmd := &cobra.Command{
		Use:   "bulk",
		Short: "Send a campaign to every number of a CSV file, resumable by running it again",
		Long: `Send a message to every recipient of a CSV file: phone[,name], one per row (or
separated by semicolons or tabs, when the first line has no comma). A header row is
recognised (columns named phone, msisdn, number, mobile, name, ...); --phone-column
and --name-column pick others, by header name or 1-based number. {{name}} in the message is
replaced by each recipient's name.

The whole file is checked first. Rows that cannot be sent are counted, the first few shown
by line number and all of them (up to 1,000) written to the --report file; they make the
command fail (exit 2) unless --skip-invalid sends the others. A row longer than 64 KiB
cannot be sent. Numbers are sent once per job, to their first row.

--dry-run sends nothing: it shows the rows that cannot be sent, counts the batches,
recipients and SMS parts, prices them at --price a part (the API has no price list: the
default is the mock's price of the channel), and reads the wallet's balance to say whether it
can pay. Batches that an earlier run of the job sent are counted, although a rerun does not
charge them again.

The job is sent in batches, each a campaign whose reference is derived from --job-id and
the batch's position. The command keeps a journal of the job: before each batch is sent, a
record of it is written to disk (fsync), and once its answer is read, its outcome. The file
is --journal FILE, or else <escaped job ID>.journal (<escaped job ID>.shard-i-of-n.journal
with --shard) in --journal-dir, which defaults to $SMS_JOURNAL_DIR, else
$XDG_STATE_HOME/sms/journal, else ~/.local/state/sms/journal (%LOCALAPPDATA%\sms\journal on
Windows). In the name, the job ID keeps its lower-case letters, digits, - and _, and writes
every other byte as %XX (a long one is cut, and 16 hex digits of its SHA-256 added). The journal holds numbers, no names, no text, no credentials; keep
it until the job is done: without it, a rerun would send everything again to a server that
does not deduplicate references.

So when the job stops (an empty wallet, a network failure, a crash, or a SIGINT or SIGTERM,
on which no batch is started while those in flight finish and are recorded; a second one ends
the process at once), run the same command again, at any time, to finish it; the command to
run is printed. Whatever the server, it does not send a batch that the journal records as
accepted, and sends the batches never sent and those refused. A batch whose answer never came
(the process killed, the connection dropped) is in doubt: it is settled by the server's
campaign list when the server lists references and the list proves it (the batch is listed,
or it is not, its request was started long enough ago that no retry of it can still be
processed, and the list still shows older campaigns); when the server deduplicates references
(--reference-dedup: within 24 hours), it is sent again and answered from the first time;
otherwise it stays in doubt, is not sent again, and the command fails (exit 3) naming each
such batch by index, reference and start time, and counts them (IN DOUBT; inDoubt,
inDoubtBatches and inDoubtBatchList in the JSON) until each is settled with sms bulk settle
JOB BATCH --sent CAMPAIGN_ID or --not-sent (see sms bulk settle --help for how to find a
campaign). --shard i/n sends only batches k with k % n == i, so that n processes share a job;
each shard keeps its own journal. The journal records the account (server, key mode and key)
and the shard layout: a run against another account is refused, and so is a run in another
layout that cannot read every shard's records (a run in --journal-dir reads the job's files of
every other layout there; with --journal, repeat it to name every shard's file).

A job whose file changed (a row fixed, rows added) cannot be rerun: its journal refuses it
before anything is sent. Send the new file as a new job with --skip-sent-by naming the
earlier one instead: the numbers that job sent to are skipped, read from its journal in
--journal-dir (or in --journal FILE) when it has one, else from the server's campaign list,
by reference, and each campaign's recipients; only the others are sent.

Progress is shown on stderr: a bar when it is a terminal, plain lines otherwise, with the
recipients replayed from an earlier run. --wait then follows the delivery (campaigns final,
recipients delivered) until every campaign is final, or for --timeout: past it, the campaigns
not final are named (pendingCampaigns in the JSON), with the sms campaigns wait command that
goes on. The summary goes to stdout (JSON with --json); --report writes the full report to a
file.`,
		Example: `  sms bulk --csv people.csv --from ACME --message 'Hi {{name}}' --job-id promo-2026-11
  sms bulk --csv people.csv --from ACME --message 'Hi {{name}}' --job-id promo-2026-11 --dry-run
  sms bulk --csv export.csv --phone-column msisdn --name-column first_name --from ACME \
      --message 'Hi {{name}}, our sale starts today' --job-id sale-42 --skip-invalid --report sale-42.json
  sms bulk --csv people.csv --from ACME --message 'Hello' --job-id promo --shard 0/4 --rate 5 --wait
  sms bulk --csv people-fixed.csv --from ACME --message 'Hi {{name}}' --job-id promo-2026-11b --skip-sent-by promo-2026-11`,
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
	f.StringVar(&o.jobID, "job-id", "", "names the job and its journal; run again, it sends only what it has not sent")
	f.StringSliceVar(&o.skipSentBy, "skip-sent-by", nil, "skip the numbers that this earlier job sent to, read from its journal or the server (repeatable)")
	f.BoolVar(&o.partialSkip, "skip-sent-by-partial", false, "with --skip-sent-by, go on when a batch of the earlier job cannot be found on the server (its numbers are sent again); a batch in doubt in its journal still stops the job until settled")
	f.StringArrayVar(&o.journal, "journal", nil, "the job's journal file (default: derived from --job-id in --journal-dir); repeated, the others are read, not written: the files of the job's shards")
	f.StringVar(&o.journalDir, "journal-dir", "", "the directory of the jobs' journals (default $"+envJournalDir+", or $XDG_STATE_HOME/sms/journal, or ~/.local/state/sms/journal)")
	f.DurationVar(&o.settleAfter, "settle-after", 0, "how long after its start a batch's request may still be processed by the server (default: every attempt at the client's timeout, and a minute: 4m30s); a batch in doubt that the campaign list does not show is sent again only past it")
	f.BoolVar(&o.resendDoubt, "resend-in-doubt", false, "send again every batch the journal leaves in doubt: only once none of their campaigns exists (sms bulk settle records them one by one)")
	f.StringVar(&o.noName, "name-fallback", "", "the name of a recipient without one, in a message with {{name}} (such as customer); without it, their text reads without a name")
	f.StringVar(&o.channel, "channel", "", "generic (default) or dnd")
	f.BoolVar(&o.skipInvalid, "skip-invalid", false, "send the valid rows when some cannot be sent")
	f.IntVar(&o.batchSize, "batch-size", 0, "recipients per campaign request, 1 to 10000 (default 10000)")
	f.IntVar(&o.concurrency, "concurrency", 0, "batches sent at once, 1 to "+itoa(maxConcurrency)+" (default 4)")
	f.Float64Var(&o.rate, "rate", 0, "at most this many requests per second, from 0.01 (default no limit)")
	f.StringVar(&o.shard, "shard", "", "send only this shard's batches: i/n, 0 <= i < n")
	f.BoolVar(&o.dryRun, "dry-run", false, "check the file, count and price the job, read the balance; send nothing")
	f.StringVar(&o.price, "price", "", "with --dry-run, the price of one SMS part in NGN (default "+rules.FormatNaira(rules.DefaultGenericPrice)+" generic, "+rules.FormatNaira(rules.DefaultDNDPrice)+" dnd)")
	f.StringVar(&o.report, "report", "", "write the job's report to this file, as JSON")
	f.BoolVar(&o.wait, "wait", false, "after sending, wait for delivery, showing progress, and print the counts")
	f.DurationVar(&o.poll, "poll-interval", bulk.DefaultWaitMinDelay, "with --wait, the first wait between polls (backing off up to 30s)")
	f.DurationVar(&o.timeout, "timeout", 0, "with --wait, stop waiting after this long (default never)")
	completeValues(cmd, "channel", "generic", "dnd")
	_ = cmd.MarkFlagFilename("csv", "csv")
	_ = cmd.MarkFlagFilename("report", "json")
	_ = cmd.MarkFlagFilename("journal", "journal")
	_ = cmd.MarkFlagDirname("journal-dir")
	for _, name := range []string{"csv", "from", "message", "job-id"} {
		_ = cmd.MarkFlagRequired(name)
	}
	cmd.AddCommand(a.bulkSettleCmd())
	return cmd
}

var shardPattern = regexp.MustCompile(`^([0-9]+)/([0-9]+)$`)

// parseShard reads "i/n".
func parseShard(s string) (bulk.Shard, error) {
	if s == "" {
		return bulk.Shard{}, nil
	}
	m := shardPattern.FindStringSubmatch(s)
	if m == nil {
		return bulk.Shard{}, usagef("--shard %q: want i/n, such as 0/4", s)
	}
	i, err1 := strconv.Atoi(m[1])
	n, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || n < 1 || i >= n {
		return bulk.Shard{}, usagef("--shard %q: want i/n with 0 <= i < n", s)
	}
	return bulk.Shard{Index: i, Count: n}, nil
}

func (a *app) runBulk(ctx context.Context, o *bulkOptions) error {
	shard, price, err := o.check()
	if err != nil {
		return err
	}
	// The first SIGINT or SIGTERM (ctx) stops the job gracefully: no batch is started after
	// it, and the batches in flight finish and are recorded under jobCtx, which no signal
	// ends; a second one ends the process.
	jobCtx := context.WithoutCancel(ctx)
	stop := make(chan struct{})
	defer context.AfterFunc(ctx, func() { close(stop) })()
	c, err := a.client()
	if err != nil {
		return err
	}

	// Check the whole file before sending anything.
	sum, err := o.file.validate()
	if err != nil {
		return err
	}
	a.note("%s: %s; %s, %d that cannot be sent", o.file.path, o.file.cols, plural(sum.Rows, "row", "rows"), sum.BadCount)
	a.noteBadRows(sum, o)
	if sum.BadCount > 0 && !o.skipInvalid && !o.dryRun {
		err := usagef("%s of %s cannot be sent: fix them, or use --skip-invalid to send the others", plural(sum.BadCount, "row", "rows"), o.file.path)
		if rerr := a.writeReport(bulkJSON{JobID: o.jobID, Rows: sum.Rows, BadRows: sum.BadCount, Currency: "NGN", BadList: sum.Bad}, o); rerr != nil {
			a.note("sms: %v", rerr)
		}
		return err
	}
	if sum.Valid == 0 {
		return usagef("%s has no recipient to send to", o.file.path)
	}

	// The journal: the job's own record of its batches, so that a rerun never sends a batch
	// twice, whatever the server.
	j, err := a.openJournal(o, shard)
	if err != nil {
		return a.journalErr(o.jobID, err)
	}
	jpath := ""
	if j != nil {
		defer j.Close()
		jpath = j.Path()
		a.note("journal: %s", jpath)
	}

	params := bulk.Params{
		JobID: o.jobID, From: o.from, Message: o.file.message, Channel: sms.Channel(o.channel),
		BatchSize: o.batchSize, Concurrency: o.concurrency, Rate: o.rate, Shard: shard, SkipSentBy: o.skipSentBy,
		SkipSentByPartial: o.partialSkip, ResendInDoubt: o.resendDoubt, SettleAfter: o.settleAfter, NameFallback: o.noName,
	}
	if j != nil {
		params.Journal = j
	}
	params.Recipients = o.file.recipients()

	// A dry run first: it checks the parameters and counts this shard's batches, which
	// sizes the progress bar.
	params.DryRun = true
	plan, err := bulk.Send(jobCtx, c, &params)
	if err != nil {
		return a.journalErr(o.jobID, apiErr(ctx, err))
	}
	out := bulkOut(plan, sum)
	out.Journal = jpath
	which := "job " + o.jobID
	if shard.Count > 1 {
		which += fmt.Sprintf(", shard %d/%d", shard.Index, shard.Count)
	}
	a.note("%s: %s, %s, %s; %s sent once", which, plural(len(plan.Batches), "batch", "batches"),
		plural(plan.Recipients, "recipient", "recipients"), plural(plan.Parts, "SMS part", "SMS parts"),
		plural(plan.Duplicates, "duplicate number", "duplicate numbers"))
	if len(o.skipSentBy) > 0 {
		a.note("%s skipped: sent by job %s", plural(plan.Skipped, "number", "numbers"), strings.Join(o.skipSentBy, ", "))
	}
	if plan.Nameless > 0 {
		a.note("%s no name: their message reads without one (%s); --name-fallback TEXT names them",
			plural(plan.Nameless, "recipient has", "recipients have"), printable(fit(strings.ReplaceAll(o.file.message, "{{name}}", ""), 40)))
	}
	if o.dryRun {
		out.DryRun = true
		if sum.BadCount > 0 && !o.skipInvalid {
			a.note("to send, fix the %s that cannot be sent, or add --skip-invalid", plural(sum.BadCount, "row", "rows"))
		}
		return a.finishBulk(out, o, a.priceDryRun(ctx, c, &out, price))
	}

	params.DryRun = false
	params.Stop = stop
	prog := newProgress(a.console(), plan.Recipients, len(plan.Batches))
	params.Progress = prog.update
	rep, sendErr := bulk.Send(jobCtx, c, &params)
	prog.done()
	if rep == nil { // the journal refused the job, or the jobs of --skip-sent-by could not be read
		return a.journalErr(o.jobID, apiErr(ctx, sendErr))
	}
	out = bulkOut(rep, sum)
	out.Journal = jpath
	if sendErr == nil && rep.InDoubtBatches > 0 { // never: SendBulk returns ErrBatchesInDoubt
		sendErr = fmt.Errorf("%w: %d", bulk.ErrBatchesInDoubt, rep.InDoubtBatches)
	}
	if sendErr != nil {
		return a.finishBulk(out, o, a.bulkStopped(ctx, c, rep, sendErr, jobCost{plan: plan, price: price, journal: jpath, jobID: o.jobID}))
	}
	if ids := rep.CampaignIDs(); o.wait && len(ids) > 0 {
		a.note("waiting for the delivery of %s", plural(len(ids), "campaign", "campaigns"))
		line := a.deliveryLine()
		wctx, cancel := waitContext(ctx, o.timeout)
		defer cancel()
		d, err := bulk.Wait(wctx, c, rep, &bulk.WaitParams{
			MinDelay: o.poll, MaxDelay: max(o.poll, bulk.DefaultWaitMaxDelay), Progress: line.show,
		})
		line.end()
		if d == nil { // invalid parameters: the flags are checked before any request
			return a.finishBulk(out, o, apiErr(ctx, err))
		}
		out.Delivery = &deliverySumJSON{Campaigns: d.Campaigns, Final: d.Final, Failed: d.Failed, Counts: countsOut(d.Counts), Pending: d.Pending}
		if timedOut(ctx, wctx) {
			err = &failure{notFinal(*d, o.timeout)}
		}
		if err != nil {
			return a.finishBulk(out, o, apiErr(ctx, err))
		}
	}
	return a.finishBulk(out, o, nil)
}

// badRowsShown is how many rows that cannot be sent are shown on stderr; the report lists
// them all (up to maxBadRows), so that a rerun does not print them again in full.
const badRowsShown = 3

// lineWidth is the width that the lines about bad rows fit: a terminal of 80 columns.
const lineWidth = 80

// noteBadRows shows the first rows that cannot be sent, each on a line that fits lineWidth,
// and where to find the others.
func (a *app) noteBadRows(sum *csvSummary, o *bulkOptions) {
	shown := min(len(sum.Bad), badRowsShown)
	for _, b := range sum.Bad[:shown] {
		a.note("%s", fit(printable("  line "+itoa(b.Line)+": "+b.Reason), lineWidth))
	}
	more := sum.BadCount - shown
	switch {
	case more == 0:
	case o.report == "":
		a.note("  and %d more: --report FILE lists them", more)
	case sum.BadCount > len(sum.Bad):
		a.note("  and %d more: %s lists the first %d", more, o.report, len(sum.Bad))
	default:
		a.note("  and %d more: %s lists them", more, o.report)
	}
}

// priceDryRun prices a dry run at price a part, reads the balance, and tells whether it can pay.
// A key without the balance scope cannot read it: that is said, and is no error.
func (a *app) priceDryRun(ctx context.Context, c *sms.Client, out *bulkJSON, price sms.Amount) error {
	if out.Parts > 0 && price.Kobo() > math.MaxInt64/int64(out.Parts) {
		return usagef("the cost of %s at %s NGN is too large to count", plural(out.Parts, "SMS part", "SMS parts"), price)
	}
	cost := sms.AmountFromKobo(price.Kobo() * int64(out.Parts))
	out.Price, out.Cost = &price, &cost
	a.note("cost: %s at %s NGN (--price) = %s NGN", plural(out.Parts, "SMS part", "SMS parts"), price, cost)
	b, err := c.Balance.Get(ctx, nil)
	switch {
	case errors.Is(err, sms.ErrInsufficientScope):
		a.note(`the balance cannot be read: the API key lacks the "balance" scope`)
		return nil
	case err != nil:
		return apiErr(ctx, err)
	}
	enough := b.Balance.Kobo() >= cost.Kobo()
	out.Balance, out.Enough = &b.Balance, &enough
	if enough {
		a.note("balance: %s %s, enough for this job", b.Balance, b.Currency)
	} else {
		a.note("balance: %s %s, not enough for this job: top up %s %s or more before sending", b.Balance, b.Currency, cost.Sub(b.Balance), b.Currency)
	}
	return nil
}

// jobCost is what the dry run counted, and the price of one part it assumed.
type jobCost struct {
	plan    *bulk.Report
	price   sms.Amount
	journal string // the job's journal file
	jobID   string
}

// left says what the rest of the job would cost against the wallet's balance, as the dry run
// does: the job's cost at the price of a part, less what its batches done cost. It is ""
// when the balance cannot be read.
func (a *app) left(ctx context.Context, c *sms.Client, rep *bulk.Report, jc jobCost) string {
	b, err := c.Balance.Get(ctx, nil)
	if err != nil {
		return ""
	}
	recipients := max(0, jc.plan.Recipients-rep.Sent-rep.Replayed)
	cost := sms.AmountFromKobo(max(0, jc.price.Kobo()*int64(jc.plan.Parts)-rep.JobAmount.Kobo()))
	s := fmt.Sprintf("the balance is %s %s against about %s NGN for the %s not sent (at %s NGN a part, --price): top up",
		b.Balance, b.Currency, cost, plural(recipients, "recipient", "recipients"), jc.price)
	if short := cost.Sub(b.Balance); short.Kobo() > 0 {
		s += fmt.Sprintf(" %s NGN or more", short)
	}
	return s
}

// maybeSent reports whether a failed batch of rep ended with an unknown outcome (a dropped
// connection or a 5xx after its request was written): the server may have sent it.
func maybeSent(rep *bulk.Report) bool {
	for _, b := range rep.Failed() {
		if errors.Is(b.Err, sms.ErrOutcomeUnknown) {
			return true
		}
	}
	return false
}

// noteResume prints the command that resumes the job.
func (a *app) noteResume() {
	cmdline, stripped := a.resumeCommand()
	a.note("  %s", cmdline)
	if stripped {
		a.note("(the secret given as a flag is left out: set %s or add --api-secret-file)", envAPISecret)
	}
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
	Skipped    int              `json:"skipped"`  // numbers sent by the jobs of --skip-sent-by
	Nameless   int              `json:"nameless"` // recipients without a name in a message with {{name}}
	Batches    int              `json:"batches"`
	Recipients int              `json:"recipients"`
	Parts      int              `json:"parts"`
	Sent       int              `json:"sent"`
	Replayed   int              `json:"replayed"`
	Amount     sms.Amount       `json:"amount"`    // what this run charged
	JobAmount  sms.Amount       `json:"jobAmount"` // what the job's batches cost over all its runs (this shard's)
	Currency   string           `json:"currency"`
	Failed     int              `json:"failedBatches"`           // after their retries; not those an interrupt held back
	Price      *sms.Amount      `json:"price,omitempty"`         // dry run: of one SMS part
	Cost       *sms.Amount      `json:"cost,omitempty"`          // dry run: Parts × Price
	Balance    *sms.Amount      `json:"balance,omitempty"`       // dry run: when the key can read it
	Enough     *bool            `json:"balanceEnough,omitempty"` // dry run: Balance >= Cost
	Delivery   *deliverySumJSON `json:"delivery,omitempty"`
	BatchList  []batchJSON      `json:"batchList,omitempty"` // only in --report
	BadList    []badRow         `json:"badRowList,omitempty"`

	// Unconfirmed counts the recipients of batches the server accepted whose answers could
	// not be read: sent and charged, at a cost not in Amount.
	Unconfirmed int `json:"unconfirmed"`
	// AmountUnknown counts the batches sent whose answers gave no amount: Amount leaves
	// their cost out.
	AmountUnknown int `json:"amountUnknownBatches,omitempty"`

	// Journal is the job's journal file.
	Journal string `json:"journal,omitempty"`
	// FromJournal counts the recipients of batches that the journal records as sent by an
	// earlier run: not sent again.
	FromJournal int `json:"fromJournal"`
	// InDoubt and InDoubtBatches count the batches that may or may not have been sent, and
	// their recipients; InDoubtList names them. The command fails while any remain.
	InDoubt        int           `json:"inDoubt"`
	InDoubtBatches int           `json:"inDoubtBatches"`
	InDoubtList    []inDoubtJSON `json:"inDoubtBatchList,omitempty"`
}

// inDoubtJSON names a batch in doubt.
type inDoubtJSON struct {
	Index      int    `json:"index"`
	Reference  string `json:"reference"`
	Recipients int    `json:"recipients"`
}

type batchJSON struct {
	Index      int                `json:"index"`
	Reference  string             `json:"reference"`
	CampaignID string             `json:"campaignId,omitempty"`
	Status     sms.CampaignStatus `json:"status,omitempty"`
	Recipients int                `json:"recipients"`
	Parts      int                `json:"parts"`
	Amount     sms.Amount         `json:"amount"`
	Replayed   bool               `json:"replayed,omitempty"`
	Error      string             `json:"error,omitempty"`

	Unconfirmed   bool `json:"unconfirmed,omitempty"`   // accepted by the server, at a cost unknown
	AmountUnknown bool `json:"amountUnknown,omitempty"` // sent; the answer gave no amount
	FromJournal   bool `json:"fromJournal,omitempty"`   // recorded as sent by an earlier run
	InDoubt       bool `json:"inDoubt,omitempty"`       // may or may not have been sent
}

type deliverySumJSON struct {
	Campaigns int        `json:"campaigns"`
	Final     int        `json:"finalCampaigns"`
	Failed    int        `json:"failedCampaigns"`
	Counts    countsJSON `json:"counts"`
	Pending   []string   `json:"pendingCampaigns,omitempty"` // not final when the wait ended
}

func bulkOut(r *bulk.Report, sum *csvSummary) bulkJSON {
	out := bulkJSON{
		JobID: r.JobID, Complete: r.Complete, Rows: sum.Rows, BadRows: sum.BadCount, Duplicates: r.Duplicates,
		Skipped: r.Skipped, Nameless: r.Nameless, Batches: len(r.Batches), Recipients: r.Recipients, Parts: r.Parts, Sent: r.Sent, Replayed: r.Replayed,
		Amount: r.Amount, JobAmount: r.JobAmount, Currency: "NGN", Unconfirmed: r.Unconfirmed, AmountUnknown: r.AmountUnknownBatches, BadList: sum.Bad,
		FromJournal: r.FromJournal, InDoubt: r.InDoubt, InDoubtBatches: r.InDoubtBatches,
	}
	for _, b := range r.Batches {
		// A batch held back by an interrupt was not sent: it did not fail; nor did one the
		// server accepted.
		if b.Err != nil && !b.Unconfirmed && !b.InDoubt && !errors.Is(b.Err, context.Canceled) {
			out.Failed++
		}
		if b.InDoubt {
			out.InDoubtList = append(out.InDoubtList, inDoubtJSON{Index: b.Index, Reference: b.Reference, Recipients: b.Recipients})
		}
		bj := batchJSON{
			Index: b.Index, Reference: b.Reference, CampaignID: b.CampaignID, Status: b.Status,
			Recipients: b.Recipients, Parts: b.Parts, Amount: b.Amount, Replayed: b.Replayed, Unconfirmed: b.Unconfirmed,
			AmountUnknown: b.AmountUnknown, FromJournal: b.FromJournal, InDoubt: b.InDoubt,
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
		err = os.WriteFile(o.report, append(escapeJSON(b), '\n'), 0o644)
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
	if out.AmountUnknown > 0 {
		a.note("%s sent without an amount in the answer: the AMOUNT below leaves their cost out (sms campaigns list shows what the server says)",
			plural(out.AmountUnknown, "batch was", "batches were"))
	}
	summary := out
	summary.BatchList, summary.BadList = nil, nil
	var perr error
	if a.jsonOut {
		perr = writeJSON(a.stdout, summary)
	} else if out.DryRun {
		t := newTable(a.stdout, "JOB", "BATCHES", "RECIPIENTS", "PARTS", "DUPLICATES", "BAD ROWS", "COST", "BALANCE")
		t.row(out.JobID, itoa(out.Batches), itoa(out.Recipients), itoa(out.Parts), itoa(out.Duplicates), itoa(out.BadRows),
			ngn(out.Cost), ngn(out.Balance))
		perr = t.flush()
	} else {
		t := newTable(a.stdout, "JOB", "COMPLETE", "BATCHES", "RECIPIENTS", "SENT", "REPLAYED", "IN JOURNAL", "FAILED BATCHES", "IN DOUBT", "THIS RUN", "JOB AMOUNT")
		t.row(out.JobID, yesNo(out.Complete), itoa(out.Batches), itoa(out.Recipients),
			itoa(out.Sent), itoa(out.Replayed), itoa(out.FromJournal), itoa(out.Failed), inDoubtCell(out), out.Amount.String()+" NGN",
			out.JobAmount.String()+" NGN")
		perr = t.flush()
		if perr == nil && out.Delivery != nil {
			d := out.Delivery
			a.stdoutLine("")
			t = newTable(a.stdout, "CAMPAIGNS", "FINAL", "FAILED CAMPAIGNS", "NO REPORT", "DELIVERED", "FAILED", "DND")
			t.row(itoa(d.Campaigns), itoa(d.Final), itoa(d.Failed), itoa(d.Counts.Sent), itoa(d.Counts.Delivered), itoa(d.Counts.Failed), itoa(d.Counts.DND))
			perr = t.flush()
		}
	}
	if err == nil {
		err = perr
	}
	return err
}

func (a *app) stdoutLine(s string) { fmt.Fprintln(a.stdout, s) }

// ngn writes an amount in naira for a table, or "" when there is none.
func ngn(a *sms.Amount) string {
	if a == nil {
		return ""
	}
	return a.String() + " NGN"
}

// bulkStopped explains why a job stopped before the end, names its batches in doubt, and
// says how to finish it. The journal makes running the same command again safe
// on any server: a batch it records as accepted is not sent again, nor one in doubt unless
// --resend-in-doubt says so.
func (a *app) bulkStopped(ctx context.Context, c *sms.Client, rep *bulk.Report, err error, jc jobCost) error {
	if rep.UnconfirmedBatches > 0 {
		were := "were"
		if rep.UnconfirmedBatches == 1 {
			were = "was"
		}
		a.note("%s (%s) %s accepted by the server, but the answers could not be read: sent and charged, at a cost not counted here; the journal records them as sent, and a rerun does not send them again",
			plural(rep.UnconfirmedBatches, "batch", "batches"), plural(rep.Unconfirmed, "recipient", "recipients"), were)
	}
	a.noteInDoubt(rep)
	done := 0
	for _, b := range rep.Batches {
		if b.Err == nil {
			done++
		}
	}
	batches := plural(done, "batch", "batches")
	safe := "the journal " + jc.journal + " keeps it from sending a batch twice"
	switch {
	case errors.Is(err, bulk.ErrStopped) || ctx.Err() != nil:
		doubt := "not those in doubt"
		if a.dedup {
			doubt = "and those in doubt again, which the server deduplicates within 24 hours"
		}
		a.note("interrupted after %s (%s sent, %s NGN charged), once the batches in flight were done.\n"+
			"To finish the job, run the same command again, at any time: %s, whatever the server (it sends the batches never sent, %s):",
			batches, plural(rep.Sent+rep.Replayed+rep.FromJournal, "recipient", "recipients"), rep.Amount, safe, doubt)
		a.noteResume()
		return &interrupted{errors.New("interrupted")}
	case errors.Is(err, sms.ErrUnauthorized), errors.Is(err, sms.ErrInsufficientScope):
		a.note("the API key was refused after %s: fix the credentials, then run the same command again to send the rest (%s):", batches, safe)
		a.noteResume()
	case errors.Is(err, sms.ErrInsufficientBalance):
		left := cmp.Or(a.left(ctx, c, rep, jc), "top up")
		a.note("the wallet ran out after %s (%s NGN charged); %s, then run the same command again to send the rest (%s):", batches, rep.Amount, left, safe)
		a.noteResume()
	case errors.Is(err, sms.ErrConflict):
		a.note("this job ID was used before with other recipients or another message: use a new --job-id for a new job")
	case errors.Is(err, bulk.ErrJournalMismatch):
		a.journalErr(jc.jobID, err)
	case len(rep.Failed()) > 0 && maybeSent(rep) && !a.dedup:
		a.note("%s failed, and the outcome of some is unknown: the server may have sent them, and is not known to deduplicate references; "+
			"look for their campaigns by reference first (sms campaigns list): a rerun retries every failed batch", plural(len(rep.Failed()), "batch", "batches"))
	case len(rep.Failed()) > 0:
		a.note("%s failed; run the same command again to retry only them (%s):", plural(len(rep.Failed()), "batch", "batches"), safe)
		a.noteResume()
	case rep.InDoubtBatches > 0: // told of above
	case rep.Complete:
		a.note("every batch was sent; running the same command again sends nothing and reports what the job cost:")
		a.noteResume()
	default:
		a.note("the job stopped after %s; run the same command again to finish it (%s):", batches, safe)
		a.noteResume()
	}
	return apiErr(ctx, err)
}

// inDoubtShown is how many batches in doubt are named on stderr; the JSON names them all.
const inDoubtShown = 5

// noteInDoubt names the batches that the journal leaves in doubt, and says how to settle them.
func (a *app) noteInDoubt(rep *bulk.Report) {
	if rep.InDoubtBatches == 0 {
		return
	}
	var names []string
	for _, b := range rep.Batches {
		if b.InDoubt && len(names) < inDoubtShown {
			names = append(names, fmt.Sprintf("batch %d (reference %s, %s)", b.Index, b.Reference, plural(b.Recipients, "recipient", "recipients")))
		}
	}
	if more := rep.InDoubtBatches - len(names); more > 0 {
		names = append(names, fmt.Sprintf("and %d more (--json or --report lists them)", more))
	}
	are := "are"
	if rep.InDoubtBatches == 1 {
		are = "is"
	}
	a.note("%s (%s) %s in doubt: their requests may have reached the server, and nothing tells whether they were sent: %s",
		plural(rep.InDoubtBatches, "batch", "batches"), plural(rep.InDoubt, "recipient", "recipients"), are, strings.Join(names, ", "))
	if a.dedup {
		a.note("the server deduplicates references (--reference-dedup): run the same command again within 24 hours of their sending to send them again; the server answers those it took the first time without sending them twice:")
		a.noteResume()
		return
	}
	a.note("running the same command again does not send them: settle each one, once you have looked for its campaign, with\n"+
		"  sms bulk settle %s BATCH --sent CAMPAIGN_ID   (or --not-sent when it has none)\n"+
		"(sms bulk settle --help says how to find a campaign where the list shows no reference)", shellQuote(rep.JobID))
}

// journalErr explains an error of the journal: one that refuses the job before anything is
// sent. Other errors are returned as they are.
func (a *app) journalErr(jobID string, err error) error {
	switch {
	case errors.Is(err, bulk.ErrJournalMismatch):
		a.note("the recipients, message, sender, channel or batch size differ from what the journal recorded for job %s: nothing was sent. "+
			"To send a corrected file, use a new --job-id and add --skip-sent-by %s: the numbers that job sent to are skipped", jobID, jobID)
	case errors.Is(err, bulk.ErrJournalLocked):
		a.note("another sms bulk of this job (or of this shard) is running with the same journal: wait for it to end")
	case errors.Is(err, bulk.ErrJournalCorrupt):
		a.note("the journal cannot be read: keep the file (it records what was sent), and do not run the job without it")
	}
	return err
}

// inDoubtCell is the summary's IN DOUBT: the batches and recipients in doubt.
func inDoubtCell(out bulkJSON) string {
	if out.InDoubtBatches == 0 {
		return "0"
	}
	return plural(out.InDoubtBatches, "batch", "batches") + " (" + plural(out.InDoubt, "recipient", "recipients") + ")"
}
