package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	sms "github.com/seedsms/sms-go"
)

// progress shows a bulk job's progress on stderr: a bar when stderr is a terminal, one plain
// line per finished batch otherwise. SendBulk calls update one call at a time.
type progress struct {
	w       io.Writer
	bar     *progressbar.ProgressBar // nil: plain lines
	total   int                      // recipients of this shard
	batches int
	failed  int // batches that failed after their retries
	start   time.Time
	now     func() time.Time
}

func newProgress(w io.Writer, total, batches int) *progress {
	p := &progress{w: w, total: total, batches: batches, now: time.Now}
	p.start = p.now()
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("sending"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("recipients"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
		)
	}
	return p
}

// update is BulkParams.Progress.
func (p *progress) update(bp sms.BulkProgress) {
	// A batch held back by an interrupt was not sent: it did not fail.
	if err := bp.Batch.Err; err != nil && !errors.Is(err, context.Canceled) {
		p.failed++
	}
	if p.bar != nil {
		p.bar.Describe("charged " + bp.Amount.String() + " NGN")
		_ = p.bar.Set(bp.Sent + bp.Replayed)
		return
	}
	fmt.Fprintln(p.w, p.line(bp))
}

// line is the plain progress line after a batch.
func (p *progress) line(bp sms.BulkProgress) string {
	done := bp.Sent + bp.Replayed // recipients of the batches sent or replayed
	elapsed := p.now().Sub(p.start)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
	}
	pct := 100
	if p.total > 0 {
		pct = done * 100 / p.total
	}
	eta := "-"
	if rate > 0 && done < p.total {
		eta = time.Duration(float64(p.total-done) / rate * float64(time.Second)).Round(time.Second).String()
	} else if done >= p.total {
		eta = "0s"
	}
	s := fmt.Sprintf("batch %d/%d: %d/%d recipients (%d%%), %.0f/s, charged %s NGN, ETA %s",
		bp.Batches, p.batches, done, p.total, pct, rate, bp.Amount, eta)
	if bp.Replayed > 0 {
		s += fmt.Sprintf(", %d replayed from an earlier run", bp.Replayed)
	}
	if p.failed > 0 {
		s += fmt.Sprintf(", %d batches failed", p.failed)
	}
	return s
}

// done ends the bar where it stands, leaving it on screen.
func (p *progress) done() {
	if p.bar != nil {
		_ = p.bar.Exit()
		fmt.Fprintln(p.w)
	}
}
