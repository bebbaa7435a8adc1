package sms_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

func TestScopesMarshal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scopes sms.Scopes
		want   string
	}{
		{nil, `{"sms":false,"otp":false,"campaigns":false,"sender_ids":false,"balance":false}`},
		{sms.Scopes{sms.ScopeSMS}, `{"sms":true,"otp":false,"campaigns":false,"sender_ids":false,"balance":false}`},
		{sms.Scopes{sms.ScopeBalance, sms.ScopeSenderIDs, sms.ScopeBalance}, `{"sms":false,"otp":false,"campaigns":false,"sender_ids":true,"balance":true}`},
		{sms.AllScopes(), `{"sms":true,"otp":true,"campaigns":true,"sender_ids":true,"balance":true}`},
	}
	for _, tt := range tests {
		out, err := json.Marshal(tt.scopes)
		require.NoError(t, err)
		assert.Equal(t, tt.want, string(out), "all five members, in the API's order")
	}
	_, err := json.Marshal(sms.Scopes{"admin"})
	assert.Error(t, err)
}

func TestScopesUnmarshal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want sms.Scopes
	}{
		{`{"sms":true,"otp":false,"campaigns":false,"sender_ids":false,"balance":true}`, sms.Scopes{sms.ScopeSMS, sms.ScopeBalance}},
		{`{"balance":true,"sms":true}`, sms.Scopes{sms.ScopeSMS, sms.ScopeBalance}},
		{`{}`, sms.Scopes{}},
		{`{"sms":false,"reports":true,"audit":true}`, sms.Scopes{"audit", "reports"}},
	}
	for _, tt := range tests {
		var got sms.Scopes
		require.NoError(t, json.Unmarshal([]byte(tt.in), &got), tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	for _, in := range []string{`{"sms":"yes"}`, `["sms"]`, `true`} {
		var got sms.Scopes
		assert.Error(t, json.Unmarshal([]byte(in), &got), in)
	}
	s := sms.AllScopes()
	assert.True(t, s.Has(sms.ScopeOTP))
	assert.False(t, sms.Scopes{sms.ScopeSMS}.Has(sms.ScopeOTP))
	assert.Equal(t, sms.Scopes{sms.ScopeSMS, sms.ScopeOTP, sms.ScopeCampaigns, sms.ScopeSenderIDs, sms.ScopeBalance}, s)
}
