package mockserver_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
	"github.com/seedsms/sms-go/mockserver/internal/faults"
	"github.com/seedsms/sms-go/mockserver/internal/idem"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// TestOptionsOutOfRange: every option checks its value with the one policy: out of its range,
// New fails naming the option, and NewTest fails the test with the same words, so that no
// server exists to answer a request with a configuration error. A negative limit is never
// taken for the default.
func TestOptionsOutOfRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		opt  mockserver.Option
		name string
	}{
		{mockserver.WithAddr(""), "WithAddr"},
		{mockserver.WithPrices(-1, 450), "WithPrices"},
		{mockserver.WithPrices(math.MaxInt64, 450), "WithPrices"}, // x 2 parts would wrap to a credit
		{mockserver.WithPrices(320, mockserver.MaxPrice+1), "WithPrices"},
		{mockserver.WithBalances(-1, 0), "WithBalances"},
		{mockserver.WithBalances(0, mockserver.MaxBalance+1), "WithBalances"},
		{mockserver.WithCountry(""), "WithCountry"},
		{mockserver.WithRateLimit(-1), "WithRateLimit"},
		{mockserver.WithClock(nil), "WithClock"},
		{mockserver.WithReadTimeout(-time.Second), "WithReadTimeout"},
		{mockserver.WithWriteTimeout(-time.Second), "WithWriteTimeout"},
		{mockserver.WithAllowedHosts("a b"), "WithAllowedHosts"},
		{mockserver.WithMessageLimit(-1), "WithMessageLimit"},
		{mockserver.WithWorkspaceLimit(-1), "WithWorkspaceLimit"},
		{mockserver.WithDNDLimit(-1), "WithDNDLimit"},
		{mockserver.WithIdempotencyLimit(-1), "WithIdempotencyLimit"},
		{mockserver.WithAutoDelivery(-time.Second), "WithAutoDelivery"},
		{mockserver.WithAutoDelivery(mockserver.MaxDeliveryDelay + 1), "WithAutoDelivery"},
		{mockserver.WithAutoDelivery(2_100_000 * time.Hour), "WithAutoDelivery"}, // a send's due time would wrap to 1681
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, err := mockserver.New(tt.opt)
			require.Error(t, err)
			assert.Nil(t, srv)
			assert.Contains(t, err.Error(), tt.name)

			ft := &fatalT{}
			func() {
				defer func() { _ = recover() }() // fatalT stops the goroutine as t.Fatal would
				mockserver.NewTest(ft, tt.opt)
			}()
			assert.Contains(t, ft.msg, tt.name, "NewTest fails the test, naming the option")
		})
	}
}

// fatalT is a mockserver.TB that records the message of Fatalf and stops there.
type fatalT struct{ msg string }

func (*fatalT) Helper()        {}
func (*fatalT) Cleanup(func()) {}
func (f *fatalT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

// TestZeroLimitsMeanTheDefaults: a zero limit is the documented default, not a store that
// holds nothing.
func TestZeroLimitsMeanTheDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithMessageLimit(0), mockserver.WithWorkspaceLimit(0),
		mockserver.WithDNDLimit(0), mockserver.WithIdempotencyLimit(0))
	e.newWorkspace()
	require.NoError(t, e.srv.AddDND(num(2)))
	e.send(sms(num(1), "reference", "r-1"))
	assert.Len(t, e.srv.Messages(mockserver.Filter{}), 1, "the message is kept")
	assert.Equal(t, "true", e.send(sms(num(1), "reference", "r-1")).Header.Get("Idempotent-Replayed"), "the reference is kept")
}

// TestConstantsAreTheInternalOnes: the limits and defaults the package documents are the ones
// its internal packages enforce.
func TestConstantsAreTheInternalOnes(t *testing.T) {
	t.Parallel()
	assert.Equal(t, store.DefaultSenderID, mockserver.DefaultSenderID)
	assert.Equal(t, int64(store.MaxPrice), int64(mockserver.MaxPrice))
	assert.Equal(t, int64(store.MaxBalance), int64(mockserver.MaxBalance))
	assert.Equal(t, store.DefaultMaxMessages, mockserver.DefaultMaxMessages)
	assert.Equal(t, store.DefaultMaxWorkspaces, mockserver.DefaultMaxWorkspaces)
	assert.Equal(t, store.DefaultMaxDND, mockserver.DefaultMaxDND)
	assert.Equal(t, idem.DefaultLimit, mockserver.DefaultIdempotencyLimit)
	assert.Equal(t, faults.MaxRules, mockserver.MaxFaultRules)
	assert.Equal(t, idem.DefaultTotalLimit, mockserver.DefaultIdempotencyTotalLimit)
	assert.Equal(t, store.SlowDeliveryDelay, mockserver.SlowDeliveryDelay)
	assert.Equal(t, store.MaxDeliveryDelay, mockserver.MaxDeliveryDelay)
}
