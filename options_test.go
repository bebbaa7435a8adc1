package sms_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	sms "github.com/seedsms/sms-go"
)

func TestOptionErrors(t *testing.T) {
	t.Parallel()
	for _, o := range []sms.Option{sms.WithMaxRetries(-1), sms.WithRetryWait(-time.Second, time.Second), sms.WithRetryWait(2*time.Second, time.Second)} {
		_, err := sms.NewClient(fakeKey, fakeSecret, sms.WithBaseURL("https://api.example.com"), o)
		assert.Error(t, err)
		_, err = sms.NewDashboardClient(fakeJWT, sms.WithBaseURL("https://api.example.com"), o)
		assert.Error(t, err)
	}
}
