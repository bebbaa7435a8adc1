package sms

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Defaults of WaitParams.
const (
	DefaultWaitMinDelay = 2 * time.Second
	DefaultWaitMaxDelay = 30 * time.Second
)

// WaitParams tunes CampaignsService.Wait and WaitBulk. The zero value, or a nil *WaitParams,
// polls after 2 seconds, then backs off up to 30 seconds between polls, honours a
// Retry-After of up to 5 minutes, and has WaitBulk poll 4 campaigns at once.
type WaitParams struct {
	// MinDelay is the wait before the second poll (0: DefaultWaitMinDelay).
	MinDelay time.Duration
	// MaxDelay bounds the wait between polls (0: DefaultWaitMaxDelay). A Retry-After from
	// the server is honoured even when longer, up to MaxRetryAfter.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After honoured (0: DefaultMaxRetryAfter). An answer
	// that asks for a longer wait ends the wait with that answer's error, its RetryAfter set.
	MaxRetryAfter time.Duration
	// Concurrency is the number of campaigns WaitBulk polls at once: 1 to
	// MaxBulkConcurrency (0: DefaultBulkConcurrency).
	Concurrency int
}

// waitConfig is WaitParams checked, with the defaults filled in.
type waitConfig struct {
	lo, hi        time.Duration // delays between polls
	maxRetryAfter time.Duration
	workers       int
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
		maxRetryAfter: cmp.Or(p.MaxRetryAfter, DefaultMaxRetryAfter),
		workers:       cmp.Or(p.Concurrency, DefaultBulkConcurrency),
	}
	if cfg.hi < cfg.lo {
		return waitConfig{}, invalid("MaxDelay", "the maximum delay cannot be less than the minimum delay")
	}
	if err := validateConcurrency(p.Concurrency); err != nil {
		return waitConfig{}, err
	}
	return cfg, nil
}

// Wait polls the delivery status of campaign id until it is final (see DeliveryStatus.Final):
// the provider has reported on every recipient, or the campaign failed. It polls at once,
// then after MinDelay, and backs off with jitter up to MaxDelay, as the AWS SDK's waiters do;
// a 429 or 5xx answer (after the request's own retries) waits for its Retry-After, up to
// MaxRetryAfter, and polls again. A failed campaign returns at once.
//
// The final status is returned with the counts of every recipient and the first page of
// them. When ctx ends first, Wait returns the last status it read (nil if none) and an
// error that matches ctx's. Any other error ends the wait and is returned with the last
// status: among them a Retry-After longer than MaxRetryAfter (the answer's *Error, its
// RetryAfter set), a status that no campaign can have (a negative count), which would
// never become final, and a status word the SDK does not know (see Status), returned with
// the status that carried it.
func (s *CampaignsService) Wait(ctx context.Context, id string, p *WaitParams) (*DeliveryStatus, error) {
	cfg, err := p.config()
	if err != nil {
		return nil, err
	}
	if _, err := pathID("id", id); err != nil {
		return nil, err
	}
	return s.wait(ctx, id, cfg)
}

func (s *CampaignsService) wait(ctx context.Context, id string, cfg waitConfig) (*DeliveryStatus, error) {
	var last *DeliveryStatus
	for attempt := 0; ; attempt++ {
		st, err := s.Status(ctx, id, nil)
		var wait time.Duration
		switch {
		case err == nil:
			if err := checkCounts(id, val(st.Counts)); err != nil {
				return last, err
			}
			if !knownDelivery(st.Status) {
				return st, fmt.Errorf("sms: waiting for campaign %s: the status %q is none the SDK knows, so it cannot tell whether it is final", id, printable(string(st.Status)))
			}
			last = st
			if st.Final() {
				return st, nil
			}
		case ctx.Err() != nil:
			return last, fmt.Errorf("sms: waiting for campaign %s: %w", id, ctx.Err())
		case errors.Is(err, ErrRateLimited) || errors.Is(err, ErrServer):
			var e *Error
			if errors.As(err, &e) {
				wait = e.RetryAfter
			}
			if wait > cfg.maxRetryAfter {
				return last, fmt.Errorf("sms: waiting for campaign %s: the server asked to wait %v, more than MaxRetryAfter (%v): %w",
					id, wait, cfg.maxRetryAfter, err)
			}
		default:
			return last, err
		}
		wait = max(wait, waiterDelay(cfg.lo, cfg.hi, attempt))
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return last, fmt.Errorf("sms: waiting for campaign %s: %w", id, ctx.Err())
		}
	}
}

// checkCounts refuses the delivery counts of campaign id when no campaign can have them: a
// negative count, with which Final would never hold.
func checkCounts(id string, c DeliveryCounts) error {
	for _, n := range []struct {
		name  string
		count int
	}{{"sent", c.Sent}, {"delivered", c.Delivered}, {"failed", c.Failed}, {"dnd", c.DND}} {
		if n.count < 0 {
			return fmt.Errorf("sms: waiting for campaign %s: the status answer is malformed: counts.%s is %d", id, n.name, n.count)
		}
	}
	return nil
}

// waiterDelay is the wait after poll attempt (0-based): MinDelay after the first, then a
// random wait between MinDelay and a ceiling that doubles each time, up to MaxDelay.
func waiterDelay(lo, hi time.Duration, attempt int) time.Duration {
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

// BulkDelivery is the delivery of a bulk job's campaigns, as WaitBulk reports it.
type BulkDelivery struct {
	// Counts sums the counts of the campaigns waited for.
	Counts DeliveryCounts
	// Campaigns is the number of campaigns waited for, and Failed the number of them the
	// provider refused (refunded; their recipients are counted as failed).
	Campaigns int
	Failed    int
}

// WaitBulk waits, as Wait does, for every campaign of a bulk job's report (see
// BulkReport.CampaignIDs), p.Concurrency at a time, and sums their delivery counts. When ctx
// ends or a wait fails, it returns what it has summed of the campaigns that became final,
// and the first error.
func (s *CampaignsService) WaitBulk(ctx context.Context, r *BulkReport, p *WaitParams) (*BulkDelivery, error) {
	if r == nil {
		return nil, invalid("BulkReport", "a report is required")
	}
	cfg, err := p.config()
	if err != nil {
		return nil, err
	}
	ids := make(chan string)
	var (
		mu    sync.Mutex
		out   BulkDelivery
		first error
		wg    sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fail := func(err error) { // with mu held
		if first == nil {
			first = err
			cancel()
		}
	}
	for range cfg.workers {
		wg.Go(func() {
			for id := range ids {
				st, err := s.wait(ctx, id, cfg)
				mu.Lock()
				switch {
				case err != nil:
					fail(err)
				default:
					sum, ok := addCounts(out.Counts, val(st.Counts))
					if !ok {
						fail(fmt.Errorf("sms: waiting for bulk job %q: the counts of campaign %s take the sum past what an int holds", r.JobID, id))
						break
					}
					out.Counts = sum
					out.Campaigns++
					if st.Status == StatusFailed && st.MessageID == "" {
						out.Failed++
					}
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, id := range r.CampaignIDs() {
		select {
		case ids <- id:
		case <-ctx.Done():
			break feed
		}
	}
	close(ids)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = fmt.Errorf("sms: waiting for bulk job %q: %w", r.JobID, ctx.Err())
	}
	return &out, first
}

// addCounts returns a + b of counts that are not negative, and whether every sum, and
// their total, fits an int.
func addCounts(a, b DeliveryCounts) (DeliveryCounts, bool) {
	sum := a.Add(b)
	total := 0
	for _, n := range []int{sum.Sent, sum.Delivered, sum.Failed, sum.DND} {
		if n < 0 || n > math.MaxInt-total { // a sum wrapped, or the total would
			return a, false
		}
		total += n
	}
	return sum, true
}
