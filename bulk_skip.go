package sms

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/seedsms/sms-go/internal/rules"
)

// jobOf returns the JobID of a bulk batch's reference, JobID + ":" + k, or false when ref is
// not one.
func jobOf(ref string) (string, bool) {
	i := strings.LastIndexByte(ref, ':')
	if i <= 0 || i == len(ref)-1 || len(ref)-i-1 > maxBatchDigits {
		return "", false
	}
	if _, err := strconv.ParseUint(ref[i+1:], 10, 64); err != nil || ref[i+1] == '+' {
		return "", false
	}
	return ref[:i], true
}

// readSentBy returns the numbers that the campaigns of the jobs named in p.SkipSentBy were
// sent to: it walks every campaign of the key's mode, keeps those whose reference is JobID + ":" +
// k of one of the jobs and that did not fail, and walks their recipients.
func (s *CampaignsService) readSentBy(ctx context.Context, p *BulkParams) (*numberSet, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("sms: bulk job %q: SkipSentBy: "+format, append([]any{p.JobID}, a...)...)
	}
	found := make(map[string]int, len(p.SkipSentBy)) // campaigns of each job, failed ones too
	var camps []Campaign                             // those that were sent
	for c, err := range s.All(ctx, nil) {
		if err != nil {
			return nil, fail("listing the campaigns: %w", err)
		}
		job, ok := jobOf(c.Reference)
		if !ok || !slices.Contains(p.SkipSentBy, job) {
			continue
		}
		found[job]++
		if c.Status != CampaignStatusFailed { // a failed one was refused and refunded: it reached nobody
			camps = append(camps, c)
		}
	}
	for _, job := range p.SkipSentBy {
		if found[job] == 0 {
			return nil, fail("no campaign with the reference %q found: the server lists no batch of that job "+
				"(a wrong job ID, campaigns of the other mode, or a server that does not list references)", job+":k")
		}
	}
	sent := &numberSet{}
	for _, c := range camps {
		if c.Status == CampaignStatusProcessing {
			return nil, fail("campaign %s (reference %q) is still processing, and its recipients are not listed until the provider takes it: run the job again in a moment",
				c.ID, c.Reference)
		}
		n := 0
		for r, err := range s.AllRecipients(ctx, c.ID, nil) {
			if err != nil {
				return nil, fail("reading the recipients of campaign %s (reference %q): %w", c.ID, c.Reference, err)
			}
			x, err := strconv.ParseUint(r.To, 10, 64)
			if err != nil || x == 0 {
				return nil, fail("campaign %s lists the recipient %s, which is not a normalized number", c.ID, quoteValue(r.To))
			}
			sent.add(x)
			n++
		}
		if c.Recipients != 0 && n != c.Recipients {
			return nil, fail("campaign %s (reference %q) counts %d recipients, but %d were listed", c.ID, c.Reference, c.Recipients, n)
		}
	}
	return sent, nil
}

// checkSkipSentBy checks BulkParams.SkipSentBy.
func checkSkipSentBy(p *BulkParams) error {
	for i, job := range p.SkipSentBy {
		field := "SkipSentBy[" + strconv.Itoa(i) + "]"
		switch {
		case job == "" || len(job) > maxJobIDLen || !rules.ValidReference(job):
			return invalid(field, "a job ID is 1 to "+strconv.Itoa(maxJobIDLen)+" printable ASCII characters")
		case job == p.JobID:
			return invalid(field, "a job cannot skip its own numbers: give the new input a new JobID, and the earlier job here")
		}
	}
	return nil
}
