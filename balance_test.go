package sms_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

func TestBalanceGet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kobo int64
		want string
	}{
		{"default", mockserver.DefaultBalance, "10000.00"},
		{"one kobo", 1, "0.01"},
		{"empty", 0, "0.00"},
		{"three twenty", 320, "3.20"},
		{"large", 9_000_000_000_000_000_07, "9000000000000000.07"}, // beyond float64 precision
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := mockserver.NewTest(t)
			require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.Test, tt.kobo))
			b, err := newClient(t, srv).Balance.Get(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tt.kobo, b.Balance.Kobo())
			assert.Equal(t, tt.want, b.Balance.String())
			require.NotNil(t, b.Cashback, "the mock sends cashback")
			assert.Equal(t, sms.Amount{}, *b.Cashback)
			assert.Equal(t, "NGN", b.Currency)
		})
	}
}

func TestBalanceOfKeyMode(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	ws := srv.Default()
	require.NoError(t, srv.SetBalance(ws.WorkspaceID, mockserver.Live, 12345))
	live := newClientOf(t, srv, ws.LiveKey, ws.LiveSecret)
	b, err := live.Balance.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "123.45", b.Balance.String())

	b, err = newClient(t, srv).Balance.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "10000.00", b.Balance.String(), "the test wallet is separate")
}

func TestBalanceErrors(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	_, err := newScopedClient(t, srv, sms.ScopeSMS).Balance.Get(context.Background())
	var se *sms.ScopeError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, sms.ScopeBalance, se.Scope)

	srv.AddFaults(mockserver.FaultRule{Method: "GET", Path: "/v1/balance", Status: 503, Times: 2})
	b, err := newClient(t, srv).Balance.Get(context.Background())
	require.NoError(t, err, "GETs are retried on 503")
	assert.Equal(t, "10000.00", b.Balance.String())
	assert.Equal(t, 3, requestsTo(srv, "GET", "/v1/balance")-1)
}
