package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asking for help prints the usage on stdout and succeeds (exit 0); a wrong flag prints it on
// stderr and fails.
func TestRunHelp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   []string
		ok     bool
		stdout bool // the usage on stdout, else on stderr
	}{
		{[]string{"-h"}, true, true},
		{[]string{"--help"}, true, true},
		{[]string{"-help"}, true, true},
		{[]string{"--no-such-flag"}, false, false},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, &stdout, &stderr)
		if tt.ok {
			require.NoError(t, err, "%v", tt.args)
		} else {
			require.Error(t, err, "%v", tt.args)
		}
		usage, other := stdout.String(), stderr.String()
		if !tt.stdout {
			usage, other = other, usage
		}
		assert.Contains(t, usage, "Usage: sms-mockserver [flags]", "%v", tt.args)
		assert.Contains(t, usage, "-delivery-delay", "%v", tt.args)
		assert.Contains(t, usage, "-reference-dedup on|off", "%v", tt.args)
		assert.NotContains(t, other, "Usage:", "%v", tt.args)
	}
}
