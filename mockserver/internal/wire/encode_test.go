package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver/internal/store"
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

// sendResponse and sentCampaign are the answer of a send as encoding/json writes it: the
// oracle of sentAnswer's hand-written encoder.
type sendResponse struct {
	Message  string       `json:"message"`
	Campaign sentCampaign `json:"campaign"`
}

type sentCampaign struct {
	ID         string      `json:"id"`
	Status     string      `json:"status"`
	MessageID  *string     `json:"message_id"`
	Recipients int         `json:"recipients"`
	Amount     json.Number `json:"amount"`
	Currency   string      `json:"currency"`
	SMSParts   int         `json:"sms_parts"`
}

func sentOut(c *store.Accepted) sendResponse {
	out := sentCampaign{
		ID: c.ID.String(), Status: c.Status.String(), Recipients: c.Recipients,
		Amount: NairaNumber(c.Amount), Currency: "NGN", SMSParts: int(c.Parts),
	}
	if c.HasMessageID() {
		out.MessageID = OptString(c.MessageID())
	}
	return sendResponse{Message: "SMS request accepted.", Campaign: out}
}

// randomCampaign is a campaign with every field drawn at random, strings included.
func randomCampaign(r *rand.Rand) store.Campaign {
	c := store.Campaign{
		SenderID:  randomText(r),
		CreatedAt: r.Int64N(1<<62) - 1<<61,
		Amount:    []int64{0, 1, 99, 100, 320, r.Int64(), -r.Int64(), math.MaxInt64, math.MinInt64}[r.IntN(9)],
		Channel:   store.Channel(r.IntN(len(store.ChannelNames))),
		Status:    store.CampaignStatus(r.IntN(len(store.CampaignStatusNames))),
		Parts:     uint8(r.IntN(256)),
		Counts:    [4]int32{r.Int32N(10000), r.Int32N(10000), r.Int32N(10000), r.Int32N(10000)},
	}
	for i := range c.ID {
		c.ID[i] = byte(r.IntN(256))
	}
	if r.IntN(2) == 0 {
		c.Reference = randomText(r)
	}
	if r.IntN(4) == 0 { // invalid UTF-8 and raw control bytes: encoding/json writes \ufffd and \u00XX
		c.SenderID += "\xff\x00\xc3"
	}
	if r.IntN(8) == 0 { // whole seconds: RFC 3339 with no fraction
		c.CreatedAt -= c.CreatedAt % 1e9
	}
	return c
}

// TestCampaignPageEncoding: the hand-written list encoder writes exactly the bytes
// encoding/json writes for pageBody of CampaignJSON, on random pages.
func TestCampaignPageEncoding(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		cs := make([]store.Campaign, r.IntN(4))
		out := make([]CampaignJSON, len(cs))
		for i := range cs {
			cs[i] = randomCampaign(r)
			out[i] = CampaignOut(&cs[i])
		}
		pg := Pagination{Page: r.IntN(1 << 20), Limit: 1 + r.IntN(100), Total: r.IntN(1 << 30)}
		want := stdJSON(t, Page{out, pg})
		got := (&CampaignPage{cs, pg}).AppendJSON(nil)
		require.Equal(t, string(want), string(got))
	}
}

// FuzzCampaignEncoding: for any campaign fields, the hand-written encoders of the list and of
// the send answer write the same bytes as encoding/json.
func FuzzCampaignEncoding(f *testing.F) {
	f.Add("MOCKSMS", "order-1", int64(320), int64(1_700_000_000_123_456_789), uint8(1), uint8(0), uint8(1), []byte("0123456789ab"))
	f.Add("<&>\u2028", "\xff\x01", int64(-1), int64(-62135596800_000_000_0), uint8(0), uint8(1), uint8(255), []byte{})
	f.Fuzz(func(t *testing.T, sender, ref string, amount, created int64, status, channel, parts uint8, id []byte) {
		c := store.Campaign{SenderID: sender, Reference: ref, Amount: amount, CreatedAt: created,
			Status: store.CampaignStatus(status % uint8(len(store.CampaignStatusNames))), Channel: store.Channel(channel % uint8(len(store.ChannelNames))),
			Parts: parts, Counts: [4]int32{int32(parts), int32(status), 0, 1}}
		copy(c.ID[:], id)
		pg := Pagination{Page: int(parts), Limit: int(channel), Total: int(amount % 1000)}
		want := stdJSON(t, Page{[]CampaignJSON{CampaignOut(&c)}, pg})
		got := (&CampaignPage{[]store.Campaign{c}, pg}).AppendJSON(nil)
		if !bytes.Equal(want, got) {
			t.Fatalf("encoding/json:\n%s\nhand-written:\n%s", want, got)
		}
		a := store.Accepted{Campaign: c, Recipients: int(parts % 8)}
		want = stdJSON(t, sentOut(&a))
		if got := (SentAnswer{&a}).AppendJSON(nil); !bytes.Equal(want, got) {
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
		a := store.Accepted{Campaign: randomCampaign(r), Recipients: r.IntN(5)}
		want := stdJSON(t, sentOut(&a))
		require.Equal(t, string(want), string(SentAnswer{&a}.AppendJSON(nil)))
	}
}
