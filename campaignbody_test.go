package sms

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The body of a campaign request: a recipient without a name is a bare number, a named one
// {"phone", "name"}, as the API takes them, whatever the characters.
func TestCampaignBody(t *testing.T) {
	t.Parallel()
	to := []wireRecipient{
		{Phone: "2348030000001"},
		{Phone: "2348030000002", Name: "Ada"},
		{Phone: "2348030000003", Name: "<Obi> & \"Chi\" \\ \u2028 é"},
	}
	b, err := json.Marshal(sendBody[any]{To: campaignTo(to), From: "MOCKSMS", Message: "Hi {{name}}", Channel: ChannelDND, Reference: "job:1"})
	require.NoError(t, err)
	assert.Equal(t, `{"to":["2348030000001",{"phone":"2348030000002","name":"Ada"},`+
		`{"phone":"2348030000003","name":"\u003cObi\u003e \u0026 \"Chi\" \\ \u2028 é"}],`+
		`"from":"MOCKSMS","message":"Hi {{name}}","channel":"dnd","reference":"job:1"}`, string(b))

	b, err = json.Marshal(sendBody[any]{To: campaignTo(to[:1]), From: "MOCKSMS", Message: "Hi", Reference: "r"})
	require.NoError(t, err)
	assert.Equal(t, `{"to":["2348030000001"],"from":"MOCKSMS","message":"Hi","reference":"r"}`, string(b), "no channel when empty")
}

// FuzzCampaignTo: for any recipients, the body reads back as the same recipients, each in
// the form its name calls for.
func FuzzCampaignTo(f *testing.F) {
	f.Add("2348025671695", "Ada", "08025671695", "")
	f.Add("\xff", "<\u2028>", "", "\x00")
	f.Fuzz(func(t *testing.T, phone1, name1, phone2, name2 string) {
		to := []wireRecipient{{phone1, name1}, {phone2, name2}}
		b, err := json.Marshal(campaignTo(to))
		if err != nil {
			t.Fatal(err)
		}
		var items []json.RawMessage
		if err := json.Unmarshal(b, &items); err != nil || len(items) != len(to) {
			t.Fatalf("%s: %v", b, err)
		}
		for i, raw := range items {
			var got wireRecipient
			var err error
			if to[i].Name == "" {
				err = json.Unmarshal(raw, &got.Phone)
			} else {
				err = json.Unmarshal(raw, &got)
			}
			// encoding/json writes invalid UTF-8 as U+FFFD: compare with what it reads back.
			var want wireRecipient
			_ = json.Unmarshal(mustJSON(t, to[i].Phone), &want.Phone)
			_ = json.Unmarshal(mustJSON(t, to[i].Name), &want.Name)
			if err != nil || got != want {
				t.Fatalf("item %d: %s reads as %+v (%v), want %+v", i, raw, got, err, want)
			}
		}
	})
}

func mustJSON(t *testing.T, s string) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkCampaignBody encodes the body of a campaign of 10,000 recipients as every
// campaign request does, without and with names.
func BenchmarkCampaignBody(b *testing.B) {
	for _, named := range []bool{false, true} {
		to := make([]wireRecipient, 10_000)
		for i := range to {
			to[i].Phone = "23480" + strconv.Itoa(10_000_000+i)
			if named {
				to[i].Name = "Customer " + strconv.Itoa(i)
			}
		}
		b.Run("named="+strconv.FormatBool(named), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				body := sendBody[any]{To: campaignTo(to), From: "MOCKSMS", Message: "Your order has shipped.", Reference: "ref-1"}
				if _, err := json.Marshal(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
