package bulk

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/internal/backoff"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Defaults of WaitParams.
const (
	DefaultWaitMinDelay = 2 * time.Second
	DefaultWaitMaxDelay = 30 * time.Second
)

// WaitParams tunes WaitCampaign and Wait. The zero value, or a nil
// *WaitParams, polls after 2 seconds, then backs off up to 30 seconds between polls, honours a
// Retry-After of up to 5 minutes, and has Wait poll 4 campaigns at once.
type WaitParams struct {
	// MinDelay is the wait before the second poll (0: DefaultWaitMinDelay).
	MinDelay time.Duration
	// MaxDelay bounds the wait between polls (0: DefaultWaitMaxDelay). A Retry-After from
	// the server is honoured even when longer, up to MaxRetryAfter.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After honoured (0: 5 minutes). An answer
	// that asks for a longer wait ends the wait with that answer's error, its RetryAfter set.
	MaxRetryAfter time.Duration
	// Concurrency is the number of campaigns Wait polls at once: 1 to
	// MaxConcurrency (0: 4).
	Concurrency int
	// Progress, when set, is told where the delivery stands after the first round of polls
	// that read a status, and after each round that changed it (a count, a campaign final). It
	// is called from the goroutine that called WaitCampaign or Wait, never concurrently, and
	// the wait goes on when it returns. WaitCampaign reports its one campaign as a
	// Delivery of one.
	Progress func(Delivery)
}

// waitConfig is WaitParams checked, with the defaults filled in.
type waitConfig struct {
	lo, hi        time.Duration // delays between polls
	maxRetryAfter time.Duration
	workers       int
	progress      func(Delivery)
}

func (p *WaitParams) config() (waitConfig, error) {
	if p == nil {
		p = &WaitParams{}
	}
	if p.MinDelay < 0 || p.MaxDelay < 0 || p.MaxRetryAfter < 0 || p.Concurrency < 0 {
		return waitConfig{}, invalid("WaitParams", "delays and concurrency cannot be negative (0 for the defaults)")
	}
	cfg := waitConfig{
		lo:            cmp.Or(p.MinDelay, DefaultWaitMinDelay),
		hi:            cmp.Or(p.MaxDelay, DefaultWaitMaxDelay),
		maxRetryAfter: cmp.Or(p.MaxRetryAfter, defaultMaxRetryAfter),
		workers:       cmp.Or(p.Concurrency, defaultConcurrency),
		progress:      p.Progress,
	}
	if cfg.hi < cfg.lo {
		return waitConfig{}, invalid("MaxDelay", "the maximum delay cannot be less than the minimum delay")
	}
	if err := validateConcurrency(p.Concurrency); err != nil {
		return waitConfig{}, err
	}
	return cfg, nil
}

// WaitCampaign polls the delivery status of campaign id until it is final (see Delivery.Final):
// the provider has reported on every recipient, or the campaign failed. It polls at once,
// then after MinDelay, and backs off with jitter up to MaxDelay, as the AWS SDK's waiters do;
// a 429 or 5xx answer (after the request's own retries) waits for its Retry-After, up to
// MaxRetryAfter, and polls again. A failed campaign returns at once.
//
// The final status is returned with the counts of every recipient and the first page of
// them. When ctx ends first, WaitCampaign returns the last status it read (nil if none) and an
// error that matches ctx's, and the last poll's error when that poll was answered with a
// 429 or a 5xx (so that errors.Is(err, sms.ErrServer) holds after polling through 502s). Any
// other error ends the wait and is returned with the last
// status: among them a Retry-After longer than MaxRetryAfter (the answer's *sms.Error, its
// RetryAfter set), a status that no campaign can have (a negative count), which would
// never become final, and a status word the SDK does not know (see sms.DeliveryStatus.Known), returned with
// the status that carried it.
//
// Endpoints: GET /v1/sms/campaigns/{id}/status (scope campaigns), once per poll: see
// Campaigns.Delivery.
func WaitCampaign(ctx context.Context, c *sms.Client, id string, p *WaitParams) (*sms.Delivery, error) {
	if err := checkClient(c); err != nil {
		return nil, err
	}
	s := over(c)
	cfg, err := p.config()
	if err != nil {
		return nil, err
	}
	if id == "" || id == "." || id == ".." {
		return nil, invalid("id", "an id is required")
	}
	if !utf8.ValidString(id) {
		return nil, invalid("id", "the text is not valid UTF-8")
	}
	last, err := s.wait(ctx, []string{id}, nil, cfg)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("bulk: waiting for campaign %s: %w", id, endedWith(ctx, err))
	}
	return last[0], err
}

// wait is the one wait loop: it polls the campaigns ids, in rounds of cfg.workers at a
// time, with the page of recipients sp, until the delivery of each is final, and returns the
// last status read of each (nil where none was). Between rounds it waits the backoff of the
// round, or the longest Retry-After the round was answered with.
func (s *client) wait(ctx context.Context, ids []string, sp *sms.DeliveryParams, cfg waitConfig) ([]*sms.Delivery, error) {
	last := make([]*sms.Delivery, len(ids))
	pending := make([]int, len(ids))
	for i := range pending {
		pending[i] = i
	}
	var shown *Delivery
	var retry error // the error of the latest round's 429 or 5xx answer, polled again
	for attempt := 0; ; attempt++ {
		wait, again, err := s.pollRound(ctx, ids, pending, last, sp, cfg)
		if err != nil {
			// Ended in the middle of a round: the error also matches the latest 429 or 5xx
			// answer, of this round (another campaign's poll) or of the one before.
			if ctx.Err() != nil {
				if again != nil {
					retry = again
				}
				if retry != nil && !errors.Is(err, retry) {
					err = &waitError{ctx: err, last: retry}
				}
			}
			return last, err
		}
		retry = again
		d, err := deliveryOf(ids, last)
		if err != nil {
			return last, err
		}
		if cfg.progress != nil && d.Read > 0 && (shown == nil || !d.sameAs(*shown)) {
			cfg.progress(d.Delivery)
			shown = &d.Delivery
		}
		pending = slices.DeleteFunc(pending, func(i int) bool { return last[i] != nil && last[i].Final() })
		if len(pending) == 0 {
			return last, nil
		}
		t := time.NewTimer(max(wait, backoff.Jitter(cfg.lo, cfg.hi, attempt)))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			if retry != nil { // the last poll's answer too: a 502 is still ErrServer
				return last, &waitError{ctx: ctx.Err(), last: retry}
			}
			return last, ctx.Err()
		}
	}
}

// pollRound polls the campaigns pending, cfg.workers at a time, into last. It returns the
// longest wait the answers asked for, the error of a 429 or 5xx answer of the round (which
// is polled again), and the first error that ends the wait; that error stops the other polls
// of the round.
func (s *client) pollRound(ctx context.Context, ids []string, pending []int, last []*sms.Delivery, sp *sms.DeliveryParams, cfg waitConfig) (time.Duration, error, error) {
	if len(pending) == 1 { // WaitCampaign: no goroutine
		st, wait, retry, err := s.poll(ctx, ids[pending[0]], sp, cfg)
		if st != nil {
			last[pending[0]] = st
		}
		return wait, retry, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		wait  time.Duration
		retry error
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, cfg.workers)
	)
	for _, i := range pending {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			st, w, r, err := s.poll(ctx, ids[i], sp, cfg)
			mu.Lock()
			defer mu.Unlock()
			if st != nil {
				last[i] = st
			}
			if r != nil {
				retry = r
			}
			if err != nil && first == nil {
				first = err
				cancel()
			}
			wait = max(wait, w)
		})
	}
	wg.Wait()
	return wait, retry, first
}

// poll reads the delivery status of campaign id once. It returns the status; or the wait a
// 429 or 5xx answer asked for, with that answer's error (the campaign is polled again); or
// the error that ends the wait (with the status read, when its word is none the SDK knows).
func (s *client) poll(ctx context.Context, id string, sp *sms.DeliveryParams, cfg waitConfig) (*sms.Delivery, time.Duration, error, error) {
	st, err := s.Delivery(ctx, id, sp)
	var wait time.Duration
	switch {
	case err == nil:
		if err := checkCounts(id, deref(st.Counts)); err != nil {
			return nil, 0, nil, err
		}
		if !st.Status.Known() {
			return st, 0, nil, fmt.Errorf("bulk: waiting for campaign %s: the status %q is none the SDK knows, so it cannot tell whether it is final", id, printable(string(st.Status)))
		}
		return st, 0, nil, nil
	case ctx.Err() != nil:
		return nil, 0, nil, endedWith(ctx, err)
	case errors.Is(err, sms.ErrRateLimited) || errors.Is(err, sms.ErrServer):
		var e *sms.Error
		if errors.As(err, &e) {
			wait = e.RetryAfter
		}
		if wait > cfg.maxRetryAfter {
			return nil, 0, nil, fmt.Errorf("bulk: waiting for campaign %s: the server asked to wait %v, more than MaxRetryAfter (%v): %w",
				id, wait, cfg.maxRetryAfter, err)
		}
		return nil, wait, err, nil
	default:
		return nil, 0, nil, err
	}
}

// endedWith is the error of a wait that ctx ended, whose last error was err: it matches both
// ctx's error and err's sentinels (sms.ErrServer after polling through 502s).
func endedWith(ctx context.Context, err error) error {
	if errors.Is(err, ctx.Err()) {
		return err
	}
	return &waitError{ctx: ctx.Err(), last: err}
}

// checkCounts refuses the delivery counts of campaign id when no campaign can have them: a
// negative count, with which Final would never hold.
func checkCounts(id string, c sms.DeliveryCounts) error {
	for _, n := range []struct {
		name  string
		count int
	}{{"sent", c.Sent}, {"delivered", c.Delivered}, {"failed", c.Failed}, {"dnd", c.DND}} {
		if n.count < 0 {
			return fmt.Errorf("bulk: waiting for campaign %s: the status answer is malformed: counts.%s is %d", id, n.name, n.count)
		}
	}
	return nil
}

// Delivery is where the delivery of a set of campaigns stands: what Wait returns, and
// what WaitParams.Progress is told.
type Delivery struct {
	// Counts sums the latest counts of the campaigns waited for (of those whose status was
	// read); when every campaign is final, the counts of the whole job.
	Counts sms.DeliveryCounts
	// Campaigns is the number of campaigns waited for, Final the number of them whose
	// delivery is final, and Failed the number of those the provider refused (refunded;
	// their recipients are counted as failed).
	Campaigns int
	Final     int
	Failed    int
	// Pending lists the campaigns whose delivery is not final, in the report's order: when a
	// wait ends early, those to wait for again (WaitCampaign, or the command sms campaigns wait).
	Pending []string
}

// delivery is a Delivery with the number of campaigns whose status was read.
type delivery struct {
	Delivery
	Read int
}

// sameAs reports whether d stands where e does: the same counts, the same campaigns final.
func (d delivery) sameAs(e Delivery) bool {
	return d.Counts == e.Counts && d.Final == e.Final && d.Failed == e.Failed
}

// deliveryOf sums the last statuses read of the campaigns ids. It fails when the counts do not
// fit an int.
func deliveryOf(ids []string, last []*sms.Delivery) (delivery, error) {
	d := delivery{Delivery: Delivery{Campaigns: len(ids)}}
	for i, st := range last {
		if st == nil {
			d.Pending = append(d.Pending, ids[i])
			continue
		}
		d.Read++
		sum, ok := addCounts(d.Counts, deref(st.Counts))
		if !ok {
			return d, fmt.Errorf("bulk: waiting for %d campaigns: the counts of campaign %s take the sum past what an int holds", len(ids), ids[i])
		}
		d.Counts = sum
		if !st.Final() {
			d.Pending = append(d.Pending, ids[i])
			continue
		}
		d.Final++
		if st.Status == sms.DeliveryStatusFailed && st.MessageID == "" {
			d.Failed++
		}
	}
	return d, nil
}

// Wait waits, as WaitCampaign does, for every campaign of a bulk job's report (see
// Report.CampaignIDs): it polls them in rounds, p.Concurrency at a time, each round
// reading only the counts, until every campaign is final. It returns where the delivery stands
// then; when ctx ends or a wait fails, where it stood at the last round (Pending lists the
// campaigns not final), and the error.
//
// Endpoints: GET /v1/sms/campaigns/{id}/status (scope campaigns), once per campaign
// and poll: see Campaigns.Delivery.
func Wait(ctx context.Context, c *sms.Client, r *Report, p *WaitParams) (*Delivery, error) {
	if err := checkClient(c); err != nil {
		return nil, err
	}
	s := over(c)
	if r == nil {
		return nil, invalid("Report", "a report is required")
	}
	cfg, err := p.config()
	if err != nil {
		return nil, err
	}
	ids := distinct(r.CampaignIDs()) // a campaign named by two batches is counted once
	last, err := s.wait(ctx, ids, &sms.DeliveryParams{Limit: 1}, cfg)
	d, sumErr := deliveryOf(ids, last)
	if err == nil {
		err = sumErr
	}
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("bulk: waiting for job %q: %w", r.JobID, endedWith(ctx, err))
	}
	return &d.Delivery, err
}

// distinct returns ids without repeats, in the order of their first appearance.
func distinct(ids []string) []string {
	seen := make(map[string]struct{}, len(ids))
	return slices.DeleteFunc(ids, func(id string) bool {
		if _, dup := seen[id]; dup {
			return true
		}
		seen[id] = struct{}{}
		return false
	})
}

// addCounts returns a + b of counts that are not negative, and whether every sum, and
// their total, fits an int.
func addCounts(a, b sms.DeliveryCounts) (sms.DeliveryCounts, bool) {
	sum := sms.DeliveryCounts{Sent: a.Sent + b.Sent, Delivered: a.Delivered + b.Delivered, Failed: a.Failed + b.Failed, DND: a.DND + b.DND}
	total := 0
	for _, n := range []int{sum.Sent, sum.Delivered, sum.Failed, sum.DND} {
		if n < 0 || n > math.MaxInt-total { // a sum wrapped, or the total would
			return a, false
		}
		total += n
	}
	return sum, true
}

// waitError is the error of a wait whose context ended while it waited to poll again: it
// matches both the context's error and the last poll's (such as an *sms.Error of a 429 or a 503).
type waitError struct {
	ctx  error // context.Canceled or context.DeadlineExceeded
	last error
}

func (e *waitError) Error() string {
	return e.ctx.Error() + " while waiting to retry after: " + trimPrefix(e.last.Error())
}

func (e *waitError) Unwrap() []error { return []error{e.ctx, e.last} }

// trimPrefix is the text of an error without the package's prefix it starts with, if any.
func trimPrefix(s string) string {
	for _, p := range []string{"sms: ", "bulk: "} {
		if t, ok := strings.CutPrefix(s, p); ok {
			return t
		}
	}
	return s
}
