package httpapi

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// randomText is text of every kind a string can hold: ASCII, quotes, backslashes, HTML
// characters, control bytes, other scripts, invalid UTF-8.
func randomText(r *rand.Rand) string {
	parts := []string{"MOCKSMS", "r-1", `"`, `\`, "<b>&", "\x00", "\n", "\u2028", "é", "😀", "\xff", " ", "~"}
	s := ""
	for range r.IntN(5) {
		s += parts[r.IntN(len(parts))]
	}
	return s
}

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
	if r.IntN(8) == 0 { // whole seconds: RFC 3339 with no fraction
		c.CreatedAt -= c.CreatedAt % 1e9
	}
	return c
}

// TestCampaignPageIsEncodingJSON: the list's own encoder writes exactly the bytes
// encoding/json writes for the page of campaignOut of its campaigns, on random pages.
func TestCampaignPageIsEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		cs := make([]store.Campaign, r.IntN(4))
		out := make([]campaignJSON, len(cs))
		for i := range cs {
			cs[i] = randomCampaign(r)
			out[i] = campaignOut(&cs[i])
		}
		pg := wire.Pagination{Page: r.IntN(1 << 20), Limit: 1 + r.IntN(100), Total: r.IntN(1 << 30)}
		want, err := wire.Append(nil, wire.Page{Data: out, Pagination: pg})
		require.NoError(t, err)
		got := (&campaignPage{cs, pg}).AppendJSON(nil)
		require.Equal(t, string(want), string(got))
	}
}
