package sms

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Defaults of WaitParams.
const (
	DefaultWaitMinDelay = 2 * time.Second
	DefaultWaitMaxDelay = 30 * time.Second
)

// WaitParams tunes CampaignsService.Wait. The zero value, or a nil *WaitParams, polls after
// 2 seconds, then backs off up to 30 seconds between polls.
type WaitParams struct {
	// MinDelay is the wait before the second poll (0: DefaultWaitMinDelay).
	MinDelay time.Duration
	// MaxDelay bounds the wait between polls (0: DefaultWaitMaxDelay). A Retry-After from
	// the server is honoured even when longer.
	MaxDelay time.Duration
	// Concurrency is the number of campaigns WaitBulk polls at once (0: 4).
	Concurrency int
}

func (p *WaitParams) delays() (lo, hi time.Duration, err error) {
	if p == nil {
		return DefaultWaitMinDelay, DefaultWaitMaxDelay, nil
	}
	if p.MinDelay < 0 || p.MaxDelay < 0 || p.Concurrency < 0 {
		return 0, 0, invalid("WaitParams", "delays and concurrency cannot be negative (0 for the defaults)")
	}
	lo, hi = cmp.Or(p.MinDelay, DefaultWaitMinDelay), cmp.Or(p.MaxDelay, DefaultWaitMaxDelay)
	if hi < lo {
		return 0, 0, invalid("MaxDelay", "the maximum delay cannot be less than the minimum delay")
	}
	return lo, hi, nil
}

// Wait polls the delivery status of campaign id until it is final (see DeliveryStatus.Final):
// the provider has reported on every recipient, or the campaign failed. It polls at once,
// then after MinDelay, and backs off with jitter up to MaxDelay, as the AWS SDK's waiters do;
// a 429 or 5xx answer (after the request's own retries) waits for its Retry-After and polls
// again. A failed campaign returns at once.
//
// The final status is returned with the counts of every recipient and the first page of
// them. When ctx ends first, Wait returns the last status it read (nil if none) and an
// error that matches ctx's. Any other error ends the wait and is returned with the last
// status.
func (s *CampaignsService) Wait(ctx context.Context, id string, p *WaitParams) (*DeliveryStatus, error) {
	lo, hi, err := p.delays()
	if err != nil {
		return nil, err
	}
	if _, err := pathID("id", id); err != nil {
		return nil, err
	}
	var last *DeliveryStatus
	for attempt := 0; ; attempt++ {
		st, err := s.Status(ctx, id, nil)
		var wait time.Duration
		switch {
		case err == nil:
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
		default:
			return last, err
		}
		wait = max(wait, waiterDelay(lo, hi, attempt))
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return last, fmt.Errorf("sms: waiting for campaign %s: %w", id, ctx.Err())
		}
	}
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
	if _, _, err := p.delays(); err != nil {
		return nil, err
	}
	workers := DefaultBulkConcurrency
	if p != nil && p.Concurrency > 0 {
		workers = p.Concurrency
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
	for range workers {
		wg.Go(func() {
			for id := range ids {
				st, err := s.Wait(ctx, id, p)
				mu.Lock()
				switch {
				case err != nil:
					if first == nil {
						first = err
						cancel()
					}
				default:
					out.Campaigns++
					out.Counts = out.Counts.Add(val(st.Counts))
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
