package main

import (
	"os"
	"testing"

	"github.com/seedsms/sms-go/internal/pgtest"
)

// postgres is the journal's PostgreSQL for the example's tests, as the SDK's tests start it
// (see internal/pgtest).
var postgres pgtest.Server

func TestMain(m *testing.M) {
	code := m.Run()
	postgres.Stop()
	os.Exit(code)
}

// postgresDSN returns the DSN of a new database of the tests' PostgreSQL server.
func postgresDSN(t *testing.T) string { return postgres.DSN(t) }
