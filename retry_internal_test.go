package sms

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRetryAfterHeader(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"2", 2 * time.Second, true},
		{" 2 ", 2 * time.Second, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"99999999999999", maxRetryAfter * time.Second, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"Saturday, 21-Nov-26 10:00:05 GMT", 5 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"tomorrow", 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.v != "" {
			h.Set("Retry-After", tt.v)
		}
		got, ok := retryAfter(h, now)
		assert.Equal(t, tt.ok, ok, tt.v)
		assert.Equal(t, tt.want, got, tt.v)
	}
}

func TestBackoffBounds(t *testing.T) {
	t.Parallel()
	for attempt := range 70 {
		d := backoff(time.Second, 30*time.Second, attempt, nil)
		assert.GreaterOrEqual(t, d, time.Second)
		assert.LessOrEqual(t, d, min(time.Second<<min(attempt, 10), 30*time.Second), "attempt %d", attempt)
	}
	assert.Equal(t, time.Duration(0), backoff(0, time.Second, 5, nil))
	assert.Equal(t, time.Second, backoff(time.Second, time.Second, 5, nil))
	resp := &http.Response{Header: http.Header{"Retry-After": {"100"}}}
	assert.Equal(t, 30*time.Second, backoff(time.Second, 30*time.Second, 0, resp))
}
