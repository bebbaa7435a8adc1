package bulk_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/seedsms/sms-go/internal/sdktest"
)

// TestMain checks that no test leaves a goroutine behind. The PostgreSQL server of the SQL
// journal's tests, if one started, is stopped at the end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("net/http.(*conn).closeWriteAndWait"), goleak.Cleanup(func(int) { postgres.Stop() }))
}

// The helpers package bulk's tests share with package sms's (internal/sdktest): clients of the
// mock (newClient: the test key of the default workspace; newClientOf: any key pair) and of a
// fake transport (newClientFor, and offlineClients over a transport that refuses every
// request and counts them), and the mock's test wallet.
var (
	newClient      = sdktest.Client
	newClientOf    = sdktest.ClientOf
	newClientFor   = sdktest.ClientFor
	offlineClients = sdktest.OfflineClients
	newServer      = sdktest.Server
	requestsTo     = sdktest.RequestsTo
	balance        = sdktest.Balance
	fund           = sdktest.Fund
	campaignTotal  = sdktest.CampaignTotal
	numbers        = sdktest.Numbers
	asAPIError     = sdktest.AsAPIError
)

const (
	inProcessBase = sdktest.InProcessBase
	fakeKey       = sdktest.FakeKey
	fakeSecret    = sdktest.FakeSecret
	fakeJWT       = sdktest.FakeJWT
)

type (
	roundTripFunc = sdktest.RoundTripFunc
	recorder      = sdktest.Recorder
)
