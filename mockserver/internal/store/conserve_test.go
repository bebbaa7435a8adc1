package store

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Send debits the wallet and creates the campaign under one lock: under concurrent sends, some
// refused by the provider (refunded) and some past what the wallet holds (refused with
// nothing charged), the wallet never goes below zero and what it lost is exactly what the
// campaigns kept hold, kobo for kobo.
func TestSendConservesTheWalletUnderConcurrency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		balance int64
		refused bool // every fourth send names MagicRefused: failed and refunded
	}{
		{"the wallet runs out", 320*150 + 17, false},
		{"the wallet runs out, refunds among the sends", 320*150 + 17, true},
		{"the wallet holds enough", 1 << 40, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, c := newTestStore(t, nil)
			require.NoError(t, st.SetBalance(c.Workspace.String(), Live, tt.balance))
			const workers, sends = 8, 40
			var (
				wg       sync.WaitGroup
				mu       sync.Mutex
				accepted int
				refunded int
			)
			for w := range workers {
				wg.Go(func() {
					for i := range sends {
						phones := []uint64{2348025670000 + uint64(w*sends+i), 2348035670000 + uint64(i)}
						if tt.refused && i%4 == 0 {
							phones = append(phones, MagicRefused)
						}
						targets := make([]Target, len(phones))
						for j, p := range phones {
							targets[j] = Target{Phone: p, Index: j}
						}
						a, err := st.Send(c, SendParams{From: DefaultSenderID, Message: "hi", Targets: targets}, testNow)
						if err != nil {
							assert.ErrorIs(t, err, ErrInsufficientBalance)
							continue
						}
						mu.Lock()
						accepted++
						if a.Status == CampaignFailed {
							refunded++
							assert.Zero(t, a.Amount, "a refused campaign keeps nothing")
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()

			var kept int64
			listed := 0
			for page := 1; ; page++ {
				list, total := st.Campaigns(c, page, 100, testNow.UnixNano())
				for _, cp := range list {
					kept += cp.Amount
				}
				listed += len(list)
				if listed >= total || len(list) == 0 {
					assert.Equal(t, accepted, total, "every accepted send is one campaign, and no refused one is")
					break
				}
			}
			balance := st.Balance(c)
			assert.GreaterOrEqual(t, balance, int64(0))
			assert.Equal(t, tt.balance, balance+kept, "the wallet's loss is what the campaigns hold")
			if tt.balance < 1<<40 {
				assert.Less(t, balance, int64(2*320), "sends stopped only when the wallet could not pay for one more")
			} else {
				assert.Equal(t, workers*sends, accepted)
			}
			if tt.refused {
				assert.Positive(t, refunded)
			}
		})
	}
}

// A failed debit leaves no trace: no campaign, no message, the balance as it was.
func TestSendRefusedForMoneyLeavesNoTrace(t *testing.T) {
	t.Parallel()
	st, c := newTestStore(t, nil)
	require.NoError(t, st.SetBalance(c.Workspace.String(), Live, 319))
	_, err := st.Send(c, SendParams{From: DefaultSenderID, Message: "hi", Targets: []Target{{Phone: 2348025671695}}}, testNow)
	require.True(t, errors.Is(err, ErrInsufficientBalance), "got %v", err)
	_, total := st.Campaigns(c, 1, 100, testNow.Add(time.Second).UnixNano())
	assert.Zero(t, total)
	msgs, n := st.Messages(Query{}, 0, 10)
	assert.Zero(t, n)
	assert.Empty(t, msgs)
	assert.Equal(t, int64(319), st.Balance(c))
}
