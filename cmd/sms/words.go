package main

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
)

// The SDK names what it refuses in Go's words: a *sms.ValidationError's Field ("To[0]",
// "PinLength"), the wire's in an *sms.Error ("to[3]", "pin_length"), and its options in the
// errors of NewClient ("WithInsecureHTTP"). A user of this command typed flags and arguments:
// its errors name those, translated here, in one place.

// flagOf maps a parameter, by its key (see paramKey), to the flag that sets it. Parameters
// that a command takes as an argument are in argParams instead.
var flagOf = map[string]string{
	"to":             "--to",
	"from":           "--from",
	"message":        "--message",
	"messagetext":    "--message",
	"channel":        "--channel",
	"reference":      "--reference",
	"pintype":        "--type",
	"pinlength":      "--length",
	"pintimetolive":  "--ttl",
	"pinplaceholder": "--placeholder",
	"pin":            "--pin",
	"jobid":          "--job-id",
	"batchsize":      "--batch-size",
	"concurrency":    "--concurrency",
	"rate":           "--rate",
	"shard":          "--shard",
	"page":           "--page",
	"limit":          "--limit",
	"status":         "--status",
	"mindelay":       "--min-delay",
	"maxdelay":       "--max-delay",
	"name":           "--name",
	"scopes":         "--scopes",
	"expiresindays":  "--expires-in-days",
	"prefix":         "--test",
	"usecase":        "--usecase",
	"company":        "--company",
}

// argParams are the parameters given as a command's argument, named as its usage line names
// it (CAMPAIGN_ID, KEY_ID, PIN_ID, SENDER_ID).
var argParams = map[string]bool{"id": true, "pinid": true, "senderid": true}

// optionWords names the SDK's options as the flags that set them.
var optionWords = strings.NewReplacer(
	"WithInsecureHTTP", "--insecure-http",
	"use WithBaseURL or set "+sms.BaseURLEnv, "use --base-url or set "+sms.BaseURLEnv,
	"WithBaseURL", "--base-url",
	"WithMaxRetries", "--max-retries",
	"WithReferenceDeduplication", "--reference-dedup",
)

// fieldPattern splits a field into its name and index: "To[3]", "to[3]".
var fieldPattern = regexp.MustCompile(`^([A-Za-z_]+)(?:\[([0-9]+)\])?$`)

// paramKey is the key of a parameter whatever its spelling: "PinLength", "pin_length" and
// "pinLength" are all "pinlength".
func paramKey(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, "_", ""))
}

// commandWords names field as cmd's user typed it: "--to, value 4" for "To[3]", "--length"
// for "PinLength", "CAMPAIGN_ID" for "id". It reports false for a field it does not know, or
// that cmd has no flag for.
func commandWords(cmd *cobra.Command, field string) (string, bool) {
	m := fieldPattern.FindStringSubmatch(field)
	if m == nil || cmd == nil {
		return "", false
	}
	key := paramKey(m[1])
	var words string
	switch {
	case argParams[key]:
		words = usageArg(cmd)
	case flagOf[key] != "" && cmd.Flags().Lookup(strings.TrimPrefix(flagOf[key], "--")) != nil:
		words = flagOf[key]
	}
	if words == "" {
		return "", false
	}
	if m[2] != "" {
		i, err := strconv.Atoi(m[2])
		if err != nil {
			return "", false
		}
		words += ", value " + strconv.Itoa(i+1)
	}
	return words, true
}

// usageArg is the argument that cmd's usage line names before its flags, such as
// CAMPAIGN_ID in "status CAMPAIGN_ID", or "".
func usageArg(cmd *cobra.Command) string {
	for _, w := range strings.Fields(cmd.Use)[1:] {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") {
			break
		}
		if strings.Trim(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == "" {
			return w
		}
	}
	return ""
}

// inCommandWords returns err's message with the SDK's names of parameters and options
// replaced by cmd's flags and arguments.
func inCommandWords(cmd *cobra.Command, err error) string {
	msg := err.Error()
	var (
		ve *sms.ValidationError
		ae *sms.Error
	)
	if errors.As(err, &ve) {
		if words, ok := commandWords(cmd, ve.Field); ok {
			msg = strings.Replace(msg, ve.Error(), "sms: invalid "+words+": "+ve.Reason, 1)
		}
	}
	if errors.As(err, &ae) && ae.Field != "" {
		if words, ok := commandWords(cmd, ae.Field); ok {
			msg = strings.Replace(msg, " (field "+ae.Field+")", " ("+words+")", 1)
		}
	}
	return optionWords.Replace(msg)
}
