package sms

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomWireText is a string of pieces that JSON escapes in different ways.
// MarshalJSON is the plain encoding/json form of a recipient that campaignBody must match.
func (r wireRecipient) MarshalJSON() ([]byte, error) {
	if r.Name == "" {
		return json.Marshal(r.Phone)
	}
	return json.Marshal(struct {
		Phone string `json:"phone"`
		Name  string `json:"name"`
	}{r.Phone, r.Name})
}

func randomWireText(r *rand.Rand) string {
	pieces := []string{"a", "7", " ", "{{name}}", "é", "😀", "<", ">", "&", "\"", "\\", "\n", "\x01",
		"\u2028", "\xff"}
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// TestCampaignBodyEncoding: the campaign body written by hand is byte for byte what
// json.Marshal writes for the same members with a json.Marshal per recipient, on random
// bodies (named and unnamed recipients, empty and nil lists, awkward characters).
func TestCampaignBodyEncoding(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		var to []wireRecipient
		if i%50 != 0 {
			to = make([]wireRecipient, r.IntN(5))
		}
		for j := range to {
			to[j] = wireRecipient{Phone: randomWireText(r)}
			if r.IntN(2) == 0 {
				to[j].Name = randomWireText(r)
			}
		}
		b := sendBody[wireRecipient]{To: to, From: randomWireText(r), Message: randomWireText(r),
			Channel: Channel([]string{"", "generic", "dnd", randomWireText(r)}[r.IntN(4)]), Reference: randomWireText(r)}
		want, err := json.Marshal(b)
		require.NoError(t, err)
		got, err := json.Marshal(campaignBody(b))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
}

// FuzzCampaignBody: for any members, the hand-written campaign body is what encoding/json
// writes.
func FuzzCampaignBody(f *testing.F) {
	f.Add("2348025671695", "Ada", "08025671695", "MOCKSMS", "Hi {{name}} <3 & \u2028", "dnd", "ref-1")
	f.Add("\xff", "", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, phone1, name1, phone2, from, message, channel, ref string) {
		b := sendBody[wireRecipient]{To: []wireRecipient{{phone1, name1}, {phone2, ""}}, From: from,
			Message: message, Channel: Channel(channel), Reference: ref}
		want, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(campaignBody(b))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, got) {
			t.Fatalf("encoding/json:\n%s\nhand-written:\n%s", want, got)
		}
	})
}

// BenchmarkCampaignBody encodes the body of a campaign of 10,000 numbers as Create does
// (json.Marshal of campaignBody, recipients appended by hand) and the former way
// (json.Marshal of sendBody[wireRecipient], a MarshalJSON and a json.Marshal per recipient).
func BenchmarkCampaignBody(b *testing.B) {
	to := make([]wireRecipient, 10_000)
	for i := range to {
		to[i].Phone = "23480" + strconv.Itoa(10_000_000+i)
	}
	body := sendBody[wireRecipient]{To: to, From: "MOCKSMS", Message: "Your order has shipped.", Reference: "ref-1"}
	for _, bm := range []struct {
		name string
		v    any
	}{{"appended", campaignBody(body)}, {"marshal-each", body}} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(bm.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
