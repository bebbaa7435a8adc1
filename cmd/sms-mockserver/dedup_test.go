package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

// TestRunReferenceDedup: -reference-dedup on|off decides whether a reused reference replays
// or is a new campaign, charged; without it the profile decides (full: on, documented: off);
// any other value is refused at startup.
func TestRunReferenceDedup(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args  []string
		dedup bool
	}{
		{nil, true},
		{[]string{"-profile", "documented"}, false},
		{[]string{"-reference-dedup", "off"}, false},
		{[]string{"-reference-dedup", "on"}, true},
		{[]string{"-profile", "documented", "-reference-dedup", "on"}, true},
		{[]string{"-reference-dedup", "off", "-profile", "full"}, false},
	} {
		t.Run(strings.Join(append([]string{"flags"}, tt.args...), " "), func(t *testing.T) {
			t.Parallel()
			m := startRun(t, append([]string{"-delivery-delay", "off"}, tt.args...)...)
			var ws struct{ URL, TestKey, TestSecret, SenderID string }
			require.NoError(t, json.Unmarshal([]byte(m.line), &ws))
			client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(ws.URL))
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			before, err := client.Balance.Get(ctx, nil)
			require.NoError(t, err)
			p := &sms.SendParams{To: []string{"08025671695"}, From: ws.SenderID, Message: "Your order shipped", Reference: "order-9"}
			first, err := client.SMS.Send(ctx, p)
			require.NoError(t, err)
			second, err := client.SMS.Send(ctx, p)
			require.NoError(t, err)
			changed, changedErr := client.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671696"}, From: ws.SenderID, Message: p.Message, Reference: p.Reference})
			after, err := client.Balance.Get(ctx, nil)
			require.NoError(t, err)
			charged := before.Balance.Kobo() - after.Balance.Kobo()
			if tt.dedup {
				assert.Equal(t, first.Campaign.ID, second.Campaign.ID)
				assert.True(t, second.Replayed)
				assert.Error(t, changedErr, "the same reference with other recipients")
				assert.Equal(t, first.Campaign.Amount.Kobo(), charged, "one debit")
			} else {
				assert.NotEqual(t, first.Campaign.ID, second.Campaign.ID)
				assert.False(t, second.Replayed)
				require.NoError(t, changedErr)
				assert.Equal(t, first.Campaign.Amount.Kobo()+second.Campaign.Amount.Kobo()+changed.Campaign.Amount.Kobo(), charged, "every send charged")
				assert.Equal(t, 3*first.Campaign.Amount.Kobo(), charged)
			}
			m.cancel()
			require.NoError(t, <-m.done)
		})
	}
	for _, bad := range []string{"yes", "true", "", "ON"} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := run(ctx, []string{"-addr", "127.0.0.1:0", "-reference-dedup", bad}, io.Discard, io.Discard)
		cancel()
		assert.ErrorContains(t, err, "-reference-dedup", "%q", bad)
		assert.ErrorContains(t, err, `want "on" or "off"`, "%q", bad)
	}
}
