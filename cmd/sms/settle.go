package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

// settleOptions are the flags of sms bulk settle.
type settleOptions struct {
	journal    []string
	journalDir string
	sent       string
	notSent    bool
}

func (a *app) bulkSettleCmd() *cobra.Command {
	var o settleOptions
	cmd := &cobra.Command{
		Use:   "settle JOB BATCH",
		Short: "Record what became of one batch in doubt of a bulk job: --sent CAMPAIGN_ID or --not-sent",
		Long: `Record the outcome of one batch that sms bulk left in doubt (IN DOUBT in its summary): a
batch whose request may have reached the server, and of which nothing tells whether it was sent.
Find its campaign on the server first, then record what you found:

  --sent CAMPAIGN_ID  the batch created that campaign: a rerun of the job does not send it
  --not-sent          no campaign of it exists: a rerun of the job sends it

To find it: where the campaign list shows references (sms campaigns list), look for the
reference JOB:BATCH. Where it shows none, look for a campaign created in the minutes after the
batch was started (sms bulk names the time) with the batch's number of recipients, and compare
its recipients (sms campaigns status ID) with the batch's. A campaign that does not exist once
a few minutes have passed after the batch was started was not sent.

The batch must be in doubt. The command refuses what the server's campaign list contradicts (a
campaign listed under another reference or with another number of recipients; --not-sent when
the list shows a campaign of the batch's reference), and a campaign the journal records for
another batch. It reads the job's journals as sms bulk does (--journal, --journal-dir) and
writes the outcome to the file that holds the batch. It waits for no running sms bulk of the
job: a journal in use is refused.`,
		Example: `  sms bulk settle promo-2026-11 17 --sent 9a6df22a4000000000000008
  sms bulk settle promo-2026-11 18 --not-sent`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSettle(cmd.Context(), &o, args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.sent, "sent", "", "the campaign the batch created: it was sent")
	f.BoolVar(&o.notSent, "not-sent", false, "no campaign of the batch exists: it was not sent")
	f.StringArrayVar(&o.journal, "journal", nil, "the job's journal file (default: every file of the job in --journal-dir); repeatable")
	f.StringVar(&o.journalDir, "journal-dir", "", "the directory of the jobs' journals (default $"+envJournalDir+", or $XDG_STATE_HOME/sms/journal, or ~/.local/state/sms/journal)")
	cmd.MarkFlagsMutuallyExclusive("sent", "not-sent")
	cmd.MarkFlagsOneRequired("sent", "not-sent")
	_ = cmd.MarkFlagFilename("journal", "journal")
	_ = cmd.MarkFlagDirname("journal-dir")
	return cmd
}

// settleJSON is the outcome of sms bulk settle.
type settleJSON struct {
	JobID      string      `json:"jobId"`
	Batch      int         `json:"batch"`
	Reference  string      `json:"reference"`
	Sent       bool        `json:"sent"`
	CampaignID string      `json:"campaignId,omitempty"`
	Amount     *sms.Amount `json:"amount,omitempty"` // when the campaign list shows it
	Journal    string      `json:"journal"`
}

func (a *app) runSettle(ctx context.Context, o *settleOptions, jobID, batch string) error {
	index, err := strconv.Atoi(batch)
	if err != nil || index < 0 {
		return usagef("BATCH %q: want the batch's index, 0 or more, as sms bulk names it", batch)
	}
	if o.notSent == (o.sent != "") {
		return usagef("give --sent CAMPAIGN_ID or --not-sent")
	}
	paths := o.journal
	if len(paths) == 0 {
		dir, err := a.journalDir(o.journalDir)
		if err != nil {
			return err
		}
		files, err := journalFiles(dir, jobID)
		if err != nil {
			return &failure{err}
		}
		for _, f := range files {
			paths = append(paths, f.path)
		}
		if len(paths) == 0 {
			return usagef("no journal of job %s in %s: give --journal FILE or --journal-dir", jobID, dir)
		}
	}
	var journals []*bulk.FileJournal
	defer func() {
		for _, j := range journals {
			j.Close()
		}
	}()
	primary, best := -1, 0 // the file holding the batch's latest intent
	for i, p := range paths {
		j, err := bulk.OpenFileJournal(p)
		if err != nil {
			return a.journalErr(jobID, &failure{err})
		}
		journals = append(journals, j)
		recs, err := j.Load(ctx, jobID)
		if err != nil {
			return a.journalErr(jobID, &failure{err})
		}
		for _, r := range recs {
			if r.Kind == bulk.JournalKindIntent && r.Index == index && r.Attempt > best {
				primary, best = i, r.Attempt
			}
		}
	}
	if primary < 0 {
		return usagef("the journal of job %s has no record of batch %d: it was never started, and is not in doubt", jobID, index)
	}
	others := make([]bulk.Journal, 0, len(journals)-1)
	for i, j := range journals {
		if i != primary {
			others = append(others, j)
		}
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	rec, err := bulk.Settle(ctx, c, &bulk.SettleParams{Journal: bulk.MultiJournal(journals[primary], others...),
		JobID: jobID, Index: index, CampaignID: o.sent, NotSent: o.notSent})
	if errors.Is(err, bulk.ErrNotInDoubt) {
		return &usageError{err}
	}
	if err != nil {
		return a.journalErr(jobID, apiErr(ctx, err))
	}
	out := settleJSON{JobID: jobID, Batch: index, Reference: rec.Reference, Sent: rec.State == bulk.JournalStateAccepted,
		CampaignID: rec.CampaignID, Journal: journals[primary].Path()}
	if out.Sent && !rec.AmountUnknown {
		out.Amount = &rec.Amount
	}
	if a.jsonOut {
		return writeJSON(a.stdout, out)
	}
	switch {
	case !out.Sent:
		fmt.Fprintf(a.stdout, "batch %d (reference %s) recorded as not sent: running the job again sends it\n", index, rec.Reference)
	case out.Amount != nil:
		fmt.Fprintf(a.stdout, "batch %d (reference %s) recorded as sent: campaign %s, %s NGN; running the job again does not send it\n",
			index, rec.Reference, rec.CampaignID, out.Amount)
	default:
		fmt.Fprintf(a.stdout, "batch %d (reference %s) recorded as sent: campaign %s (the campaign list does not show it: its cost is unknown); "+
			"running the job again does not send it\n", index, rec.Reference, rec.CampaignID)
	}
	return nil
}
