package main

import (
	"context"
	"testing"

	"github.com/seedsms/sms-go/mockserver"
)

// TestRun runs the walk-through end to end against the embedded mock, in both profiles.
func TestRun(t *testing.T) {
	for _, p := range []mockserver.Profile{mockserver.ProfileFull, mockserver.ProfileDocumented} {
		t.Run(p.String(), func(t *testing.T) {
			if err := run(context.Background(), mockserver.WithProfile(p)); err != nil {
				t.Fatal(err)
			}
		})
	}
}
