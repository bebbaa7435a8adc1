package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seedsms/sms-go/mockserver"
)

// TestRun runs the walk-through end to end against the embedded mock, in both profiles; it
// fails, saying why, against a mock that does not deduplicate references, as its replays
// would not happen.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []mockserver.Option
		wantErr string
	}{
		{"full", []mockserver.Option{mockserver.WithProfile(mockserver.ProfileFull)}, ""},
		{"documented", []mockserver.Option{mockserver.WithProfile(mockserver.ProfileDocumented)}, ""},
		{"without deduplication", []mockserver.Option{mockserver.WithReferenceDeduplication(false)}, "does the server deduplicate references?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(context.Background(), tc.opts...)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.wantErr)
		})
	}
}
