package bulk_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

// readmeBulkSwitch is the README's bulk error switch, its cases in the README's order, each
// returning what its comment says to do.
func readmeBulkSwitch(err error) string {
	switch {
	case errors.Is(err, bulk.ErrBatchesInDoubt):
		return "in doubt: check by reference"
	case errors.Is(err, sms.ErrOutcomeUnknown):
		return "may have been sent: do not rerun"
	case errors.Is(err, sms.ErrInsufficientBalance):
		return "top up, rerun"
	case errors.Is(err, bulk.ErrIncomplete):
		return "rerun"
	case err != nil:
		return "error"
	}
	return "done"
}

// The README's bulk error switch tests its cases in the order readmeBulkSwitch does.
func TestREADMEBulkSwitchOrder(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	block := regexp.MustCompile("(?s)report, err := bulk.Send.*?\n}\n").Find(readme)
	require.NotNil(t, block)
	var cases []string
	for _, m := range regexp.MustCompile(`case errors\.Is\(err, (?:sms|bulk)\.(\w+)\)`).FindAllSubmatch(block, -1) {
		cases = append(cases, string(m[1]))
	}
	assert.Equal(t, []string{"ErrBatchesInDoubt", "ErrOutcomeUnknown", "ErrInsufficientBalance", "ErrIncomplete"}, cases)
}

// Each case of the README's switch is taken where its comment says, and shows in the report
// where it says: no error that matches ErrOutcomeUnknown is ever advised a rerun.
func TestREADMEBulkSwitch(t *testing.T) {
	t.Parallel()
	post := func(f mockserver.FaultRule) mockserver.FaultRule {
		f.Method, f.Path, f.Times = "POST", "/v1/sms/campaigns", 1
		return f
	}
	tests := []struct {
		name    string
		faults  []mockserver.FaultRule // to the batches in order, one at a time
		journal bool
		garble  bool // the first answer cannot be read
		want    string
		check   func(t *testing.T, r *bulk.Report)
	}{
		{name: "a batch refused, one dropped after the server took it", want: "may have been sent: do not rerun",
			faults: []mockserver.FaultRule{post(mockserver.FaultRule{Status: 400}), post(mockserver.FaultRule{Drop: true})},
			check: func(t *testing.T, r *bulk.Report) {
				require.Len(t, r.Failed(), 2, "without a journal, the dropped batch is among Failed()")
				assert.ErrorIs(t, r.Failed()[1].Err, sms.ErrOutcomeUnknown)
			}},
		{name: "a batch dropped after the server took it", want: "may have been sent: do not rerun",
			faults: []mockserver.FaultRule{post(mockserver.FaultRule{Drop: true})},
			check:  func(t *testing.T, r *bulk.Report) { require.Len(t, r.Failed(), 1) }},
		{name: "a batch accepted, its answer unreadable", want: "may have been sent: do not rerun", garble: true,
			check: func(t *testing.T, r *bulk.Report) {
				assert.Equal(t, 1, r.UnconfirmedBatches)
				assert.Empty(t, r.Failed())
			}},
		{name: "with a journal, a batch dropped after the server took it", journal: true, want: "in doubt: check by reference",
			faults: []mockserver.FaultRule{post(mockserver.FaultRule{Status: 400}), post(mockserver.FaultRule{Drop: true})},
			check: func(t *testing.T, r *bulk.Report) {
				assert.Equal(t, 1, r.InDoubtBatches)
				assert.True(t, r.Batches[1].InDoubt)
				assert.Len(t, r.Failed(), 1)
			}},
		{name: "the wallet empty", want: "top up, rerun",
			faults: []mockserver.FaultRule{post(mockserver.FaultRule{Status: 402})},
			check:  func(t *testing.T, r *bulk.Report) { assert.Zero(t, r.Sent) }},
		{name: "a batch refused", want: "rerun",
			faults: []mockserver.FaultRule{post(mockserver.FaultRule{Status: 400})},
			check: func(t *testing.T, r *bulk.Report) {
				require.Len(t, r.Failed(), 1)
				assert.NotErrorIs(t, r.Failed()[0].Err, sms.ErrOutcomeUnknown)
			}},
		{name: "all sent", want: "done", check: func(t *testing.T, r *bulk.Report) { assert.True(t, r.Complete) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			require.NoError(t, srv.AddFaults(tt.faults...))
			var rt http.RoundTripper = srv.Transport()
			if tt.garble {
				var once sync.Once
				rt = roundTripFunc(func(req *http.Request) (*http.Response, error) {
					resp, err := srv.Transport().RoundTrip(req)
					if err == nil && req.Method == http.MethodPost {
						once.Do(func() {
							resp.Body.Close()
							resp.Body = io.NopCloser(strings.NewReader(`{"message":"SMS request accepted."}`))
							resp.ContentLength = -1
							resp.Header.Del("Content-Length")
						})
					}
					return resp, err
				})
			}
			c := newClient(t, srv, sms.WithHTTPClient(&http.Client{Transport: rt}), sms.WithRetryWait(0, 0), sms.WithMaxRetries(0))
			p := journalJob("job", customersOf([]int{1, 2, 3, 4, 5, 6, 7, 8, 9}), nil)
			if tt.journal {
				p.Journal = openJournal(t, filepath.Join(t.TempDir(), "j"))
			}
			r, err := bulk.Send(context.Background(), c, p)
			require.NotNil(t, r)
			assert.Equal(t, tt.want, readmeBulkSwitch(err), "%v", err)
			tt.check(t, r)
		})
	}
}
