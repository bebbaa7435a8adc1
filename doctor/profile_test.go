package doctor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/doctor"
	"github.com/seedsms/sms-go/mockserver"
)

// Against the mock's documented profile (only what the live docs show), the doctor reports
// the members it misses as warnings, never a failure.
func TestRunAgainstTheDocumentedProfile(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithProfile(mockserver.ProfileDocumented))
	ws := srv.Default()
	sendOne(t, srv.URL(), ws)
	r, err := doctor.Run(context.Background(), doctor.Config{BaseURL: srv.URL(), APIKey: ws.TestKey, APISecret: ws.TestSecret, DashboardToken: ws.DashboardToken})
	require.NoError(t, err)
	assert.False(t, r.Failed(), "%+v", r.Checks)
	assert.Zero(t, r.Count(doctor.LevelFail))
	assert.NotZero(t, r.Count(doctor.LevelWarn), "the sender-ID list lacks members the SDK expects: %+v", r.Checks)
	for _, c := range r.Checks {
		t.Logf("%s %v %s", c.Name, c.Level, c.Detail)
	}
}
