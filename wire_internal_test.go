package sms

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Times are read in the forms such services write: RFC 3339 (with or without a colon in the
// offset), "YYYY-MM-DD HH:MM:SS" and "DD/MM/YYYY HH:MM" read as UTC, epoch seconds and
// milliseconds; null and "" are a time not given; anything else is unreadable, not an error.
func TestTimestamp(t *testing.T) {
	t.Parallel()
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		require.NoError(t, err)
		return &v
	}
	tests := []struct {
		json string
		want *time.Time
		ok   bool
	}{
		{`"2026-01-02T03:04:05Z"`, at("2026-01-02T03:04:05Z"), true},
		{`"2026-01-02T03:04:05.123456789Z"`, at("2026-01-02T03:04:05.123456789Z"), true},
		{`"2026-01-02T04:04:05+01:00"`, at("2026-01-02T03:04:05Z"), true},
		{`"2025-05-12 10:20:27"`, at("2025-05-12T10:20:27Z"), true},
		{`"2025-05-12 10:20:27.5"`, at("2025-05-12T10:20:27.5Z"), true},
		{`"2025-05-12T10:20:27"`, at("2025-05-12T10:20:27Z"), true},
		{`null`, nil, true},
		{`""`, nil, true},
		{`"2026-01-02T04:04:05+0100"`, at("2026-01-02T03:04:05Z"), true},
		{`"2026-01-02T04:04:05.5+0100"`, at("2026-01-02T03:04:05.5Z"), true},
		{`"2025-05-12"`, at("2025-05-12T00:00:00Z"), true},
		{`"12/05/2025 10:20"`, at("2025-05-12T10:20:00Z"), true},
		{`"29/03/2021 16:51"`, at("2021-03-29T16:51:00Z"), true},
		{`1747045227`, at("2025-05-12T10:20:27Z"), true},
		{`"1747045227"`, at("2025-05-12T10:20:27Z"), true},
		{`1747045227123`, at("2025-05-12T10:20:27.123Z"), true},
		{`"2025-13-12 10:20:27"`, nil, false},
		{`"05/29/2021 16:51"`, nil, false},
		{`"yesterday"`, nil, false},
		{`{}`, nil, false},
		{`[1]`, nil, false},
		{`true`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			t.Parallel()
			var v struct {
				At *timestamp `json:"at"`
			}
			require.NoError(t, json.Unmarshal([]byte(`{"at":`+tt.json+`}`), &v), "a time never fails the answer")
			assert.Equal(t, !tt.ok, v.At.unread(), "unreadable")
			got := v.At.time()
			if tt.want == nil {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.True(t, tt.want.Equal(*got), "%v, want %v", got, tt.want)
		})
	}
	var absent struct {
		At *timestamp `json:"at"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{}`), &absent))
	assert.Nil(t, absent.At.time(), "absent")
}

func TestVerdict(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]verdict{
		`true`: {verified: true}, `false`: {}, `"True"`: {verified: true}, `"false"`: {}, `"TRUE"`: {verified: true},
		`"Expired"`: {expired: true}, `"expired"`: {expired: true},
	} {
		var d verdict
		require.NoError(t, json.Unmarshal([]byte(in), &d), in)
		assert.Equal(t, want, d, in)
	}
	for _, in := range []string{`1`, `"yes"`, `{}`, `""`} {
		var d verdict
		assert.Error(t, json.Unmarshal([]byte(in), &d), in)
	}
}

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
