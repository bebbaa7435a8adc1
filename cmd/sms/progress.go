package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/seedsms/sms-go/bulk"
)

// The rate and ETA of the plain progress lines are measured on the recipients this run sent
// (a replay costs a round trip, not a send), over a moving window, and shown only once they
// mean something: after the first batches a rate is noise (one batch of 10,000 done in
// 0.13 s while three more are in flight reads "78,000/s, ETA 1s").
const (
	rateWindow     = 30 * time.Second // the rate is over the last 30 s of sending
	rateMinTime    = 2 * time.Second  // no rate before 2 s
	rateMinBatches = 2                // nor before 2 batches were sent
)

// progress shows a bulk job's progress on stderr: a bar when stderr is a terminal, one plain
// line per finished batch otherwise. bulk.Send calls update one call at a time.
type progress struct {
	con     *console
	bar     *progressbar.ProgressBar // nil: plain lines
	total   int                      // recipients of this shard
	batches int
	failed  int // batches that failed after their retries
	sent    int // batches sent by this run
	start   time.Time
	samples []rateSample // of the last rateWindow, oldest first
	now     func() time.Time
}

// rateSample is how many recipients this run had sent at a time.
type rateSample struct {
	at   time.Time
	sent int
}

func newProgress(con *console, total, batches int) *progress {
	p := &progress{con: con, total: total, batches: batches, now: time.Now}
	p.start = p.now()
	p.samples = []rateSample{{at: p.start}}
	if con.terminal() {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(con.w),
			progressbar.OptionSetDescription("sending"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("recipients"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
		)
		con.locked(func() {
			_ = p.bar.RenderBlank() // starts the bar's clock now, not at the first batch
			con.clear = func() { _ = p.bar.Clear() }
		})
	}
	return p
}

// update is bulk.Params.Progress.
func (p *progress) update(bp bulk.Progress) {
	// A batch held back by an interrupt was not sent: it did not fail; nor did one the server
	// accepted (Unconfirmed), nor one in doubt (it may have been sent).
	err := bp.Batch.Err
	switch {
	case err != nil && !bp.Batch.Unconfirmed && !bp.Batch.InDoubt && !errors.Is(err, context.Canceled):
		p.failed++
	case err == nil && !bp.Batch.Replayed && !bp.Batch.FromJournal:
		p.sent++
	}
	p.sample(bp.Sent)
	if p.bar != nil {
		p.con.locked(func() {
			p.bar.Describe(p.describe(bp))
			_ = p.bar.Set(doneRecipients(bp))
		})
		return
	}
	fmt.Fprintln(p.con, p.line(bp))
}

// describe is the bar's description: the amount charged, and the recipients replayed.
func (p *progress) describe(bp bulk.Progress) string {
	s := "charged " + bp.Amount.String() + " NGN"
	if bp.Replayed > 0 {
		s += ", " + itoa(bp.Replayed) + " replayed"
	}
	if bp.FromJournal > 0 {
		s += ", " + itoa(bp.FromJournal) + " sent before"
	}
	if bp.Unconfirmed > 0 {
		s += ", " + itoa(bp.Unconfirmed) + " at an unknown cost"
	}
	if bp.InDoubt > 0 {
		s += ", " + itoa(bp.InDoubt) + " in doubt"
	}
	if p.failed > 0 {
		s += ", " + plural(p.failed, "batch", "batches") + " failed"
	}
	return s
}

// sample records the recipients sent so far, keeping the samples of the last rateWindow and
// the one before them.
func (p *progress) sample(sent int) {
	now := p.now()
	p.samples = append(p.samples, rateSample{at: now, sent: sent})
	for len(p.samples) > 2 && !p.samples[1].at.After(now.Add(-rateWindow)) {
		p.samples = p.samples[1:]
	}
}

// rate returns the recipients sent per second over the window, once it means something.
func (p *progress) rate() (float64, bool) {
	first, last := p.samples[0], p.samples[len(p.samples)-1]
	d := last.at.Sub(first.at)
	if p.sent < rateMinBatches || last.at.Sub(p.start) < rateMinTime || d <= 0 || last.sent <= first.sent {
		return 0, false
	}
	return float64(last.sent-first.sent) / d.Seconds(), true
}

// line is the plain progress line after a batch.
func (p *progress) line(bp bulk.Progress) string {
	done := doneRecipients(bp)
	pct := 100
	if p.total > 0 {
		pct = done * 100 / p.total
	}
	var b strings.Builder
	fmt.Fprintf(&b, "batch %d/%d: %d/%d recipients (%d%%), charged %s NGN",
		bp.Batches, p.batches, done, p.total, pct, bp.Amount)
	if bp.Replayed > 0 {
		fmt.Fprintf(&b, ", %d replayed from an earlier run", bp.Replayed)
	}
	if bp.FromJournal > 0 {
		fmt.Fprintf(&b, ", %d sent by an earlier run (journal)", bp.FromJournal)
	}
	if bp.Unconfirmed > 0 {
		fmt.Fprintf(&b, ", %d accepted at an unknown cost", bp.Unconfirmed)
	}
	if bp.InDoubt > 0 {
		fmt.Fprintf(&b, ", %d in doubt", bp.InDoubt)
	}
	if p.failed > 0 {
		fmt.Fprintf(&b, ", %s failed", plural(p.failed, "batch", "batches"))
	}
	if done >= p.total {
		return b.String()
	}
	if rate, ok := p.rate(); ok {
		eta := time.Duration(float64(p.total-done) / rate * float64(time.Second)).Round(time.Second)
		fmt.Fprintf(&b, "; %.0f/s, ETA %v", rate, max(eta, time.Second))
	}
	return b.String()
}

// done ends the bar where it stands, leaving it on screen.
func (p *progress) done() {
	if p.bar != nil {
		p.con.locked(func() {
			_ = p.bar.Exit()
			fmt.Fprintln(p.con.w)
			p.con.clear = nil
		})
	}
}

// doneRecipients counts the recipients of the batches done: sent, replayed, recorded as sent
// in the journal, accepted at an unknown cost, or in doubt (not to be sent by this run).
func doneRecipients(bp bulk.Progress) int {
	return bp.Sent + bp.Replayed + bp.FromJournal + bp.Unconfirmed + bp.InDoubt
}
