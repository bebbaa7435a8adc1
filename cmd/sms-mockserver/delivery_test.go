package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

// TestRunDeliversByItself: against the binary, a campaign becomes final with no control
// call (the SDK's Wait returns), after -delivery-delay, by the magic numbers' rules; with
// -delivery-delay off or 0 it stays sent.
func TestRunDeliversByItself(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		delay string
		final bool
	}{
		{"100ms", true},
		{"", true}, // the default, 1s
		{"off", false},
		{"0", false},
	} {
		args := []string{}
		if tt.delay != "" {
			args = append(args, "-delivery-delay", tt.delay)
		}
		m := startRun(t, args...)
		var ws struct{ URL, LiveKey, LiveSecret, SenderID string }
		require.NoError(t, json.Unmarshal([]byte(m.line), &ws))
		client, err := sms.NewClient(ws.LiveKey, ws.LiveSecret, sms.WithBaseURL(ws.URL))
		require.NoError(t, err)
		sent, err := client.SMS.Send(t.Context(), &sms.SendParams{To: []string{"08031234561", "2347000000001"}, From: ws.SenderID, Message: "hi"})
		require.NoError(t, err)

		timeout := 10 * time.Second
		if !tt.final {
			timeout = 1500 * time.Millisecond // past the default delay
		}
		ctx, cancel := context.WithTimeout(t.Context(), timeout)
		st, err := bulk.WaitCampaign(ctx, client, sent.Campaign.ID, &bulk.WaitParams{MinDelay: 50 * time.Millisecond, MaxDelay: 200 * time.Millisecond})
		cancel()
		if tt.final {
			require.NoError(t, err, "-delivery-delay %q", tt.delay)
			assert.Equal(t, sms.DeliveryStatusPartiallyDelivered, st.Status)
			assert.Equal(t, 1, st.Counts.Delivered)
			assert.Equal(t, 1, st.Counts.Failed)
		} else {
			require.ErrorIs(t, err, context.DeadlineExceeded, "-delivery-delay %q", tt.delay)
			assert.Equal(t, sms.DeliveryStatusSent, st.Status)
		}
		m.cancel()
		require.NoError(t, <-m.done)
	}
}
