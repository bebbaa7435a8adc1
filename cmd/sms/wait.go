package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/seedsms/sms-go/bulk"
)

func (a *app) campaignsWaitCmd() *cobra.Command {
	var (
		minDelay, maxDelay, timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "wait CAMPAIGN_ID",
		Short: "Wait until a campaign's delivery is final, then show it",
		Long: `Poll a campaign's delivery status until it is final: the provider has reported on
every recipient, or the campaign failed. Polls back off from --min-delay up to --max-delay,
and a Retry-After from the server is honoured. Each poll that changes the counts shows them
on stderr (recipients delivered, failed, dnd and awaiting a report); the final status is
printed as campaigns status does.

Exit status 0 when the delivery is final, 1 when --timeout passed first (the last status is
printed) or on an API error.`,
		Example: `  sms campaigns wait 6740a1b2c3d4e5f601234567
  sms campaigns wait 6740a1b2c3d4e5f601234567 --timeout 10m --json | jq .counts`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := checkWaitFlags(minDelay, maxDelay, timeout); err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			line := a.deliveryLine()
			wctx, cancel := waitContext(ctx, timeout)
			defer cancel()
			st, err := bulk.WaitCampaign(wctx, c, args[0], &bulk.WaitParams{MinDelay: minDelay, MaxDelay: maxDelay, Progress: line.show})
			line.end()
			if st != nil {
				var perr error
				if a.jsonOut {
					perr = writeJSON(a.stdout, deliveryOut(st, false))
				} else {
					perr = printDelivery(a.stdout, a.console(), st)
				}
				if err == nil {
					err = perr
				}
			}
			if timedOut(ctx, wctx) {
				return &failure{notFinal(bulk.Delivery{Campaigns: 1, Pending: args[0:1]}, timeout)}
			}
			return apiErr(ctx, err)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&timeout, "timeout", 0, "give up after this long (default never)")
	f.DurationVar(&minDelay, "min-delay", bulk.DefaultWaitMinDelay, "the first wait between polls, "+minPoll.String()+" to "+maxPoll.String())
	f.DurationVar(&maxDelay, "max-delay", bulk.DefaultWaitMaxDelay, "the longest wait between polls, up to "+maxPoll.String())
	return cmd
}

// Bounds of the waits between polls: shorter ones would hammer the API, longer ones would
// look like a hang.
const (
	minPoll = 100 * time.Millisecond
	maxPoll = time.Hour
)

// checkWaitFlags checks the flags of a wait before any request.
func checkWaitFlags(minDelay, maxDelay, timeout time.Duration) error {
	if err := checkDuration("min-delay", minDelay, minPoll, maxPoll); err != nil {
		return err
	}
	if err := checkDuration("max-delay", maxDelay, minDelay, maxPoll); err != nil {
		return err
	}
	if timeout < 0 {
		return usagef("--timeout %v: cannot be negative (0 waits as long as it takes)", timeout)
	}
	return nil
}

// errWaitTimeout is the cause of a wait's end when its --timeout passed.
var errWaitTimeout = errors.New("sms: the delivery was not final in time")

// waitContext is ctx bounded by timeout (0: no bound), its cause errWaitTimeout.
func waitContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, timeout, errWaitTimeout)
}

// timedOut reports whether the wait on wctx, made by waitContext from ctx, ended at its
// --timeout (and not because ctx ended).
func timedOut(ctx, wctx context.Context) bool {
	return ctx.Err() == nil && errors.Is(context.Cause(wctx), errWaitTimeout)
}

// pendingShown is how many campaigns not final the message of a timeout names.
const pendingShown = 5

// notFinal is the error of a wait whose --timeout passed: it names the campaigns not final
// and the command that goes on waiting.
func notFinal(d bulk.Delivery, timeout time.Duration) error {
	var b strings.Builder
	if d.Campaigns == 1 && len(d.Pending) == 1 {
		fmt.Fprintf(&b, "the delivery of campaign %s was not final after %v", d.Pending[0], timeout)
	} else {
		fmt.Fprintf(&b, "the delivery of %d of %s was not final after %v: %s", len(d.Pending),
			plural(d.Campaigns, "campaign", "campaigns"), timeout, strings.Join(d.Pending[:min(len(d.Pending), pendingShown)], ", "))
		if more := len(d.Pending) - pendingShown; more > 0 {
			fmt.Fprintf(&b, " and %d more", more)
		}
	}
	if len(d.Pending) > 0 {
		fmt.Fprintf(&b, "\nto go on waiting: sms campaigns wait %s", d.Pending[0])
		if len(d.Pending) > 1 {
			b.WriteString(" (and likewise for each campaign named)")
		}
	}
	return errors.New(b.String())
}

// deliveryText says where the delivery stands, for people.
func deliveryText(d bulk.Delivery) string {
	var b strings.Builder
	b.WriteString("delivery: ")
	if d.Campaigns > 1 {
		fmt.Fprintf(&b, "%d of %s final; ", d.Final, plural(d.Campaigns, "campaign", "campaigns"))
	}
	c := d.Counts
	if c.Total() == 0 {
		b.WriteString("no recipient counted yet")
		return b.String()
	}
	fmt.Fprintf(&b, "%d of %s delivered, %d failed, %d dnd, %d awaiting a report",
		c.Delivered, plural(c.Total(), "recipient", "recipients"), c.Failed, c.DND, c.Sent)
	return b.String()
}

// deliveryLine shows where a delivery stands on stderr: redrawn in place on a terminal, a
// line each time it changes otherwise.
type deliveryLine struct {
	con  *console
	tty  bool
	open bool // a line is on screen, not ended
}

func (a *app) deliveryLine() *deliveryLine {
	return &deliveryLine{con: a.console(), tty: a.console().terminal()}
}

// show shows d: it is a WaitParams.Progress.
func (l *deliveryLine) show(d bulk.Delivery) {
	if !l.tty {
		fmt.Fprintln(l.con, deliveryText(d))
		return
	}
	l.con.locked(func() {
		fmt.Fprint(l.con.w, "\r"+deliveryText(d)+"\x1b[K")
		l.open = true
		l.con.clear = func() { // a line written meanwhile takes its place; the next show draws it again
			fmt.Fprint(l.con.w, "\r\x1b[K")
			l.open, l.con.clear = false, nil
		}
	})
}

// end leaves the line on screen, ended, so that what follows goes below it.
func (l *deliveryLine) end() {
	l.con.locked(func() {
		if l.open {
			fmt.Fprintln(l.con.w)
			l.open, l.con.clear = false, nil
		}
	})
}
