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
			require.NoError(t, srv.SetBalance(srv.Default().WorkspaceID, mockserver.ModeTest, tt.kobo))
			b, err := newClient(t, srv).Balance.Get(context.Background(), nil)
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
	require.NoError(t, srv.SetBalance(ws.WorkspaceID, mockserver.ModeLive, 12345))
	live := newClientOf(t, srv, ws.LiveKey, ws.LiveSecret)
	b, err := live.Balance.Get(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, "123.45", b.Balance.String())

	b, err = newClient(t, srv).Balance.Get(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, "10000.00", b.Balance.String(), "the test wallet is separate")
}

func TestBalanceErrors(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	_, err := newScopedClient(t, srv, sms.ScopeSMS).Balance.Get(context.Background(), nil)
	var se *sms.ScopeError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, sms.ScopeBalance, se.Scope)

	srv.AddFaults(mockserver.FaultRule{Method: "GET", Path: "/v1/balance", Status: 503, Times: 2})
	b, err := newClient(t, srv).Balance.Get(context.Background(), nil)
	require.NoError(t, err, "GETs are retried on 503")
	assert.Equal(t, "10000.00", b.Balance.String())
	assert.Equal(t, 3, requestsTo(srv, "GET", "/v1/balance")-1)
}

// TestParamsOptional holds the calls without options to their params: nil and the zero value
// ask the same thing.
func TestParamsOptional(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name string
		call func(c *sms.Client, d *sms.DashboardClient, zero bool) (any, error)
	}{
		{"Balance.Get", func(c *sms.Client, _ *sms.DashboardClient, zero bool) (any, error) {
			p := (*sms.GetBalanceParams)(nil)
			if zero {
				p = &sms.GetBalanceParams{}
			}
			b, err := c.Balance.Get(ctx, p)
			if err != nil {
				return nil, err
			}
			return b.Balance, nil
		}},
		{"Keys.List", func(_ *sms.Client, d *sms.DashboardClient, zero bool) (any, error) {
			p := (*sms.ListKeysParams)(nil)
			if zero {
				p = &sms.ListKeysParams{}
			}
			page, err := d.Keys.List(ctx, p)
			if err != nil {
				return nil, err
			}
			return len(page.Items), nil
		}},
		{"Keys.All", func(_ *sms.Client, d *sms.DashboardClient, zero bool) (any, error) {
			p := (*sms.ListKeysParams)(nil)
			if zero {
				p = &sms.ListKeysParams{}
			}
			n := 0
			for _, err := range d.Keys.All(ctx, p) {
				if err != nil {
					return nil, err
				}
				n++
			}
			return n, nil
		}},
		{"Keys.Revoke", func(_ *sms.Client, d *sms.DashboardClient, zero bool) (any, error) {
			p := (*sms.RevokeKeyParams)(nil)
			if zero {
				p = &sms.RevokeKeyParams{}
			}
			k, err := d.Keys.Create(ctx, &sms.CreateKeyParams{Name: "revoked", Scopes: sms.Scopes{sms.ScopeSMS}})
			if err != nil {
				return nil, err
			}
			k, err = d.Keys.Revoke(ctx, k.ID, p)
			if err != nil {
				return nil, err
			}
			return k.RevokedAt != nil, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got [2]any
			for i, zero := range []bool{false, true} {
				srv := mockserver.NewTest(t)
				v, err := tt.call(newClient(t, srv), newDashboardClient(t, srv), zero)
				require.NoError(t, err, "zero value: %v", zero)
				got[i] = v
			}
			assert.Equal(t, got[0], got[1], "nil and the zero value ask the same")
		})
	}
}
