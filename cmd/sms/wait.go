package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
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
			w := &deliveryWait{c: c, min: minDelay, max: maxDelay, show: line.show}
			last, _, err := w.run(ctx, timeout, []string{args[0]})
			line.end()
			if st := last[0]; st != nil {
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
			if errors.Is(err, errWaitTimeout) {
				return &failure{fmt.Errorf("campaign %s: the delivery was not final after %v", args[0], timeout)}
			}
			return apiErr(ctx, err)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&timeout, "timeout", 0, "give up after this long (default never)")
	f.DurationVar(&minDelay, "min-delay", sms.DefaultWaitMinDelay, "the first wait between polls, "+minPoll.String()+" to "+maxPoll.String())
	f.DurationVar(&maxDelay, "max-delay", sms.DefaultWaitMaxDelay, "the longest wait between polls, up to "+maxPoll.String())
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

// errWaitTimeout is the error of a wait whose --timeout passed.
var errWaitTimeout = errors.New("sms: the delivery was not final in time")

// deliveryWait follows the delivery of campaigns until each is final, as Campaigns.Wait does
// for one: it polls at once, then after min, then backs off with jitter up to max; a 429 or a
// 5xx (after the request's own retries) waits for its Retry-After and polls again. After each
// round of polls that changed where the delivery stands, it calls show.
type deliveryWait struct {
	c        *sms.Client
	min, max time.Duration
	params   *sms.CampaignStatusParams // the page of recipients each poll reads (nil: the first)
	show     func(deliverySum)
}

// deliverySum is where the delivery of a set of campaigns stands.
type deliverySum struct {
	Campaigns int                // waited for
	Final     int                // whose delivery is final
	Failed    int                // refused by the provider: refunded, every recipient failed
	Counts    sms.DeliveryCounts // the latest counts of every campaign
}

// pollers is how many campaigns are polled at once.
const pollers = 4

// run polls the campaigns ids until the delivery of each is final, or for timeout (0: no
// limit; then the error matches errWaitTimeout). It returns the last status read of each (nil
// when none was), their sum, and the error that ended the wait.
func (w *deliveryWait) run(ctx context.Context, timeout time.Duration, ids []string) ([]*sms.DeliveryStatus, deliverySum, error) {
	wctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeoutCause(ctx, timeout, errWaitTimeout)
		defer cancel()
	}
	last := make([]*sms.DeliveryStatus, len(ids))
	pending := make([]int, len(ids))
	for i := range pending {
		pending[i] = i
	}
	var shown *deliverySum
	for attempt := 0; ; attempt++ {
		wait, err := w.poll(wctx, ids, pending, last)
		sum := summarize(last)
		read := slices.ContainsFunc(last, func(st *sms.DeliveryStatus) bool { return st != nil })
		if w.show != nil && read && (shown == nil || *shown != sum) {
			w.show(sum)
			shown = &sum
		}
		if err == nil {
			pending = slices.DeleteFunc(pending, func(i int) bool { return last[i] != nil && last[i].Final() })
			if len(pending) == 0 {
				return last, sum, nil
			}
			err = wctx.Err()
		}
		if err != nil {
			if ctx.Err() == nil && errors.Is(context.Cause(wctx), errWaitTimeout) {
				err = fmt.Errorf("%w: %w", errWaitTimeout, err)
			}
			return last, sum, err
		}
		t := time.NewTimer(max(wait, pollDelay(w.min, w.max, attempt)))
		select {
		case <-t.C:
		case <-wctx.Done():
			t.Stop()
		}
	}
}

// poll reads the status of the campaigns pending, pollers at a time, into last. It returns
// the longest Retry-After of the answers that asked to wait, and the first error that ends
// the wait.
func (w *deliveryWait) poll(ctx context.Context, ids []string, pending []int, last []*sms.DeliveryStatus) (time.Duration, error) {
	var (
		mu    sync.Mutex
		wait  time.Duration
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, pollers)
	)
	for _, i := range pending {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			st, err := w.c.Campaigns.Status(ctx, ids[i], w.params)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				last[i] = st
			case ctx.Err() == nil && (errors.Is(err, sms.ErrRateLimited) || errors.Is(err, sms.ErrServer)):
				var e *sms.Error
				if errors.As(err, &e) {
					wait = max(wait, e.RetryAfter)
				}
			case first == nil:
				first = err
			}
		})
	}
	wg.Wait()
	return wait, first
}

// pollDelay is the wait after poll round attempt (0-based): lo after the first, then a random
// wait between lo and a ceiling that doubles each time, up to hi.
func pollDelay(lo, hi time.Duration, attempt int) time.Duration {
	ceil := lo
	for i := 0; i < attempt && ceil < hi; i++ {
		ceil *= 2
	}
	ceil = min(ceil, hi)
	if attempt == 0 || ceil <= lo {
		return lo
	}
	return lo + rand.N(ceil-lo+1)
}

// summarize sums the statuses read.
func summarize(last []*sms.DeliveryStatus) deliverySum {
	sum := deliverySum{Campaigns: len(last)}
	for _, st := range last {
		if st == nil {
			continue
		}
		if st.Counts != nil { // a server that sends no counts adds nothing
			sum.Counts = sum.Counts.Add(*st.Counts)
		}
		if st.Final() {
			sum.Final++
			if st.Status == sms.StatusFailed && st.MessageID == "" {
				sum.Failed++
			}
		}
	}
	return sum
}

// String says where the delivery stands, for people.
func (s deliverySum) String() string {
	var b strings.Builder
	b.WriteString("delivery: ")
	if s.Campaigns > 1 {
		fmt.Fprintf(&b, "%d of %s final; ", s.Final, plural(s.Campaigns, "campaign", "campaigns"))
	}
	c := s.Counts
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

// show shows s: deliveryWait.show.
func (l *deliveryLine) show(s deliverySum) {
	if !l.tty {
		fmt.Fprintln(l.con, s)
		return
	}
	l.con.locked(func() {
		fmt.Fprint(l.con.w, "\r"+s.String()+"\x1b[K")
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
