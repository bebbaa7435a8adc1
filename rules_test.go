package sms_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

func TestCountParts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg   string
		parts int
		enc   sms.Encoding
	}{
		{"", 0, sms.EncodingGSM7},
		{"Hello", 1, sms.EncodingGSM7},
		{strings.Repeat("a", 160), 1, sms.EncodingGSM7},
		{strings.Repeat("a", 161), 2, sms.EncodingGSM7},
		{strings.Repeat("€", 80), 1, sms.EncodingGSM7},
		{strings.Repeat("ж", 70), 1, sms.EncodingUCS2},
		{strings.Repeat("ж", 71), 2, sms.EncodingUCS2},
		{strings.Repeat("a", 1531), 11, sms.EncodingGSM7},
	}
	for _, tt := range tests {
		parts, enc := sms.CountParts(tt.msg)
		assert.Equal(t, tt.parts, parts)
		assert.Equal(t, tt.enc, enc)
	}
	assert.Equal(t, "GSM-7", sms.EncodingGSM7.String())
	assert.Equal(t, "UCS-2", sms.EncodingUCS2.String())
	assert.Equal(t, "Encoding(0)", sms.Encoding(0).String())
}

func TestNormalizePhone(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"08025671695": "2348025671695", "+2348025671695": "2348025671695", "12345678": "12345678", "234 802 567 1695": "2348025671695"} {
		got, err := sms.NormalizePhone(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	for _, in := range []string{"", "0802", "+0802567169", "0802 567 169"} {
		_, err := sms.NormalizePhone(in)
		assert.Error(t, err, in)
	}
}
