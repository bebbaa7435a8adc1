package mockserver

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// stdJSON is what the mock writes for v with encoding/json: no HTML escaping, no newline.
func stdJSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// randomCampaign is a stored campaign with every field drawn at random, strings included.
func randomCampaign(r *rand.Rand) campaign {
	c := campaign{
		senderID:  randomText(r),
		createdAt: r.Int64N(1<<62) - 1<<61,
		amount:    []int64{0, 1, 99, 100, 320, r.Int64(), -r.Int64(), math.MaxInt64, math.MinInt64}[r.IntN(9)],
		channel:   uint8(r.IntN(len(channelNames))),
		status:    uint8(r.IntN(len(campaignStatusNames))),
		parts:     uint8(r.IntN(256)),
		counts:    [4]int32{r.Int32N(10000), r.Int32N(10000), r.Int32N(10000), r.Int32N(10000)},
	}
	for i := range c.id {
		c.id[i] = byte(r.IntN(256))
	}
	if r.IntN(2) == 0 {
		c.reference = randomText(r)
	}
	if r.IntN(4) == 0 { // invalid UTF-8 and raw control bytes: encoding/json writes \ufffd and \u00XX
		c.senderID += "\xff\x00\xc3"
	}
	if r.IntN(8) == 0 { // whole seconds: RFC 3339 with no fraction
		c.createdAt -= c.createdAt % 1e9
	}
	return c
}

// TestCampaignPageEncoding: the hand-written list encoder writes exactly the bytes
// encoding/json writes for pageBody of campaignJSON, on random pages.
func TestCampaignPageEncoding(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		cs := make([]campaign, r.IntN(4))
		out := make([]campaignJSON, len(cs))
		for i := range cs {
			cs[i] = randomCampaign(r)
			out[i] = campaignOut(&cs[i])
		}
		pg := pagination{Page: r.IntN(1 << 20), Limit: 1 + r.IntN(100), Total: r.IntN(1 << 30)}
		want := stdJSON(t, pageBody{out, pg})
		got := (&campaignPage{cs, pg}).appendJSON(nil)
		require.Equal(t, string(want), string(got))
	}
}

// FuzzCampaignEncoding: for any campaign fields, the hand-written encoders of the list and of
// the send answer write the same bytes as encoding/json.
func FuzzCampaignEncoding(f *testing.F) {
	f.Add("MOCKSMS", "order-1", int64(320), int64(1_700_000_000_123_456_789), uint8(1), uint8(0), uint8(1), []byte("0123456789ab"))
	f.Add("<&>\u2028", "\xff\x01", int64(-1), int64(-62135596800_000_000_0), uint8(0), uint8(1), uint8(255), []byte{})
	f.Fuzz(func(t *testing.T, sender, ref string, amount, created int64, status, channel, parts uint8, id []byte) {
		c := campaign{senderID: sender, reference: ref, amount: amount, createdAt: created,
			status: status % uint8(len(campaignStatusNames)), channel: channel % uint8(len(channelNames)), parts: parts,
			counts: [4]int32{int32(parts), int32(status), 0, 1}}
		copy(c.id[:], id)
		pg := pagination{Page: int(parts), Limit: int(channel), Total: int(amount % 1000)}
		want := stdJSON(t, pageBody{[]campaignJSON{campaignOut(&c)}, pg})
		got := (&campaignPage{[]campaign{c}, pg}).appendJSON(nil)
		if !bytes.Equal(want, got) {
			t.Fatalf("encoding/json:\n%s\nhand-written:\n%s", want, got)
		}
		a := accepted{campaign: c, recipients: int(parts % 8)}
		want = stdJSON(t, sendResponse{Message: "SMS request accepted.", Campaign: sentOut(&a)})
		if got := (sentAnswer{&a}).appendJSON(nil); !bytes.Equal(want, got) {
			t.Fatalf("encoding/json:\n%s\nhand-written:\n%s", want, got)
		}
	})
}

// TestSentAnswerEncoding: the send answer's encoder writes what encoding/json writes for
// sendResponse, on random campaigns.
func TestSentAnswerEncoding(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		a := accepted{campaign: randomCampaign(r), recipients: r.IntN(5)}
		want := stdJSON(t, sendResponse{Message: "SMS request accepted.", Campaign: sentOut(&a)})
		require.Equal(t, string(want), string(sentAnswer{&a}.appendJSON(nil)))
	}
}
