package sms

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Times are read in the forms the service and its provider write: RFC 3339, and
// "YYYY-MM-DD HH:MM:SS" read as UTC; null and "" are a time not given.
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
		{`"2025-05-12"`, nil, false},
		{`"12/05/2025 10:20"`, nil, false},
		{`1747045227`, nil, false},
		{`"2025-13-12 10:20:27"`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			t.Parallel()
			var v struct {
				At *timestamp `json:"at"`
			}
			err := json.Unmarshal([]byte(`{"at":`+tt.json+`}`), &v)
			if !tt.ok {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "RFC 3339")
				return
			}
			require.NoError(t, err)
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
