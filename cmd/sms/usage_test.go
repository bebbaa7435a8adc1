package main

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commands returns every command below root, root included.
func commands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		out = append(out, commands(c)...)
	}
	return out
}

// useLine is a command's name followed by the arguments it takes, each in capitals (an ID
// as the argument: CAMPAIGN_ID, PIN_ID), as gh and stripe-cli write them; flags are listed
// by the help's flag section, not spelled out in Use.
var useLine = regexp.MustCompile(`^[a-z][a-z-]*( [A-Z][A-Z_]*)*$`)

func TestUseLinesNameTheArgumentsOnly(t *testing.T) {
	t.Parallel()
	a := &app{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	cmds := commands(a.rootCmd())
	require.Greater(t, len(cmds), 10, "the tree was walked")
	for _, c := range cmds {
		if c.Name() == "help" || c.Name() == "completion" || c.HasParent() && c.Parent().Name() == "completion" {
			continue
		}
		assert.Regexp(t, useLine, c.Use, "%s: Use names the command and its arguments only", c.CommandPath())
	}
	for _, path := range []string{"sms otp verify", "sms campaigns status", "sms keys revoke", "sms campaigns wait"} {
		c := find(t, cmds, path)
		assert.True(t, strings.HasSuffix(c.Use, "_ID"), "%s takes its ID as the argument: %q", path, c.Use)
	}
}

// The same field has the same flag on every command: the message of a send, a bulk send and
// an OTP is --message; the old spelling of the OTP's is a hidden, deprecated alias.
func TestSameFlagForTheSameField(t *testing.T) {
	t.Parallel()
	a := &app{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	cmds := commands(a.rootCmd())
	for _, path := range []string{"sms send", "sms bulk", "sms otp send"} {
		f := find(t, cmds, path).Flags().Lookup("message")
		if assert.NotNil(t, f, "%s has --message", path) {
			assert.False(t, f.Hidden, path)
		}
	}
	for _, c := range cmds {
		if f := c.Flags().Lookup("message-text"); f != nil {
			assert.True(t, f.Hidden, "%s: --message-text is hidden", c.CommandPath())
		}
	}
	otp := find(t, cmds, "sms otp send")
	assert.Empty(t, otp.Flags().Lookup("message").Annotations[cobra.BashCompOneRequiredFlag],
		"the OTP's text is optional, as the SDK's SendOTPParams.Message is")
}

// Usage lines spell out no flags, so the help marks the flags that must be given.
func TestRequiredFlagsSaySo(t *testing.T) {
	t.Parallel()
	a := &app{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	required := 0
	for _, c := range commands(a.rootCmd()) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			req := f.Annotations[cobra.BashCompOneRequiredFlag]
			isReq := len(req) > 0 && req[0] == "true"
			if isReq {
				required++
			}
			assert.Equal(t, isReq, strings.HasSuffix(f.Usage, " (required)"), "%s --%s: %q", c.CommandPath(), f.Name, f.Usage)
		})
	}
	assert.Positive(t, required, "some flags are required")
	r := runCLI(t, nil, "", "otp", "send", "--help")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `--to string +the phone number \(required\)\n`, r.stdout)
}

func find(t *testing.T, cmds []*cobra.Command, path string) *cobra.Command {
	t.Helper()
	for _, c := range cmds {
		if c.CommandPath() == path {
			return c
		}
	}
	require.FailNow(t, "no command "+path)
	return nil
}
