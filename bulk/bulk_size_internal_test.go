package bulk

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go"
)

// jsonLen bounds what encoding/json writes, exactly but for rare control characters, so that
// bulk.Send's batches are cut as late as they can be and never past 1 MiB.
func TestJSONLenBoundsEncodingJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s     string
		exact bool
	}{
		{"", true},
		{"Customer 12", true},
		{`quote " and backslash \`, true},
		{"new\nline\ttab\rreturn", true},
		{"<b>&amp;</b>", true},
		{"é€漢字🙂", true},
		{"\u2028\u2029", true},
		{"bad utf-8 \xff\xfe", true},
		{"bell \a form \f back \b nul \x00", false},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.s)
		require.NoError(t, err)
		got := jsonLen(tt.s) + 2
		if tt.exact {
			assert.Equal(t, len(b), got, "%q", tt.s)
		} else {
			assert.GreaterOrEqual(t, got, len(b), "%q", tt.s)
		}
	}
}

func FuzzJSONLenBoundsEncodingJSON(f *testing.F) {
	f.Add("Ada")
	f.Add("<\u2028\xff\x01")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonLen(s) + 2; got < len(b) {
			t.Fatalf("jsonLen(%q) = %d, encoded %d", s, got-2, len(b))
		}
		if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' && r != '\t' }) && utf8.ValidString(s) {
			if got := jsonLen(s) + 2; got != len(b) {
				t.Fatalf("jsonLen(%q) = %d, encoded %d", s, got-2, len(b))
			}
		}
	})
}

// The body Campaigns.Create writes for a batch is what recipientSize and bodyOverhead add up
// to, exactly, with the longest reference, whatever the JobID: one of characters that JSON escapes (<, >, & as
// \u003c and so on, " and \ with a backslash) counts as its escaped form, so that a hostile
// JobID cannot take a body past 1 MiB.
func TestBatchSizeEstimateBoundsTheBody(t *testing.T) {
	t.Parallel()
	hostile := strings.Repeat(`<>&"\`, maxJobIDLen/5)
	require.True(t, len(hostile) <= maxJobIDLen)
	for _, tt := range []struct {
		jobID string
		ch    sms.Channel
	}{
		{"job-42", ""},
		{"job-42", sms.ChannelDND},
		{hostile, ""},
		{strings.Repeat("<", maxJobIDLen), sms.ChannelGeneric},
	} {
		p := &Params{JobID: tt.jobID, From: "MOCKSMS", Message: "Hi {{name}} <3", Channel: tt.ch}
		require.NoError(t, checkBulk(&Params{JobID: p.JobID, From: p.From, Message: p.Message, Channel: p.Channel, Recipients: RecipientsFrom(nil)}))
		to := []sms.Recipient{{Phone: "2348030000001"}, {Phone: "2348030000002", Name: "Ada \"A\" <Obi>"}, {Phone: "2348030000003", Name: "é"}}
		want := bodyOverhead(p) + len(to) - 1
		for _, r := range to {
			want += recipientSize(r.Phone, r.Name)
		}
		ref := p.JobID + ":" + strings.Repeat("9", maxBatchDigits)
		var body []byte
		c, err := sms.NewClient("pk_test_abc123", "sk_test_def456", sms.WithBaseURL("http://127.0.0.1"),
			sms.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
				var err error
				body, err = io.ReadAll(req.Body)
				require.NoError(t, err)
				req.Body = io.NopCloser(bytes.NewReader(body))
				return acceptCampaigns{}.RoundTrip(req)
			})}))
		require.NoError(t, err)
		_, err = c.Campaigns.Create(context.Background(), &sms.CreateCampaignParams{To: to, From: p.From, Message: p.Message, Channel: tt.ch, Reference: ref})
		require.NoError(t, err)
		assert.Equal(t, want, len(body), "JobID %q, channel %q: exact with the longest reference", tt.jobID, tt.ch)
	}
}

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
