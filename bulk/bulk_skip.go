package bulk

import (
	"context"
	"fmt"
	"github.com/seedsms/sms-go"
	"maps"
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
// sent to. A job of which p.Journal holds records is read from the journal. For the others, it
// walks every campaign of the key's mode, keeps those whose reference is JobID + ":" + k of
// one of the jobs and that did not fail, and walks their recipients; a gap in a job's batch
// indices is an error unless p.SkipSentByPartial.
func (s *client) readSentBy(ctx context.Context, p *Params) (*numberSet, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("bulk: job %q: SkipSentBy: "+format, append([]any{p.JobID}, a...)...)
	}
	sent := &numberSet{}
	var jobs []string // those the server is asked about
	for _, job := range p.SkipSentBy {
		if p.Journal != nil {
			ok, err := s.sentByJournal(ctx, p, job, sent)
			if err != nil {
				return nil, err
			}
			if ok {
				continue
			}
		}
		jobs = append(jobs, job)
	}
	if len(jobs) == 0 {
		return sent, nil
	}
	found := make(map[string]map[uint64]bool, len(jobs)) // batch indices of each job, failed ones too
	var camps []sms.Campaign                             // those that were sent
	for c, err := range s.All(ctx, nil) {
		if err != nil {
			return nil, fail("listing the campaigns: %w", err)
		}
		job, ok := jobOf(c.Reference)
		if !ok || !slices.Contains(jobs, job) {
			continue
		}
		if found[job] == nil {
			found[job] = make(map[uint64]bool)
		}
		k, _ := strconv.ParseUint(c.Reference[len(job)+1:], 10, 64) // checked by jobOf
		found[job][k] = true
		if c.Status != sms.CampaignStatusFailed { // a failed one was refused and refunded: it reached nobody
			camps = append(camps, c)
		}
	}
	for _, job := range jobs {
		if len(found[job]) == 0 {
			return nil, fail("no campaign with the reference %q found: the server lists no batch of that job "+
				"(a wrong job ID, campaigns of the other mode, or a server that does not list references)", job+":k")
		}
		if p.SkipSentByPartial {
			continue
		}
		last := slices.Max(slices.Collect(maps.Keys(found[job])))
		if uint64(len(found[job])) != last+1 {
			k := uint64(0)
			for found[job][k] {
				k++
			}
			return nil, fail("the server lists batch %d of job %q but not batch %d (forgotten by the server, or never sent): "+
				"the numbers of the batches it does not list would be sent again; set SkipSentByPartial to go on all the same", last, job, k)
		}
	}
	for _, c := range camps {
		if c.Status == sms.CampaignStatusProcessing {
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

// checkSkipSentBy checks Params.SkipSentBy.
func checkSkipSentBy(p *Params) error {
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
