package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/doctor"
)

func (a *app) doctorCmd() *cobra.Command {
	var (
		timeout     time.Duration
		require     []string
		probeWrites bool
		saveDir     string
	)
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check a deployment, read-only: credentials, scopes and every read endpoint",
		Long: `Check that the base URL and the key pair work with this SDK, with GET requests only, so
that nothing is sent and nothing is spent: the credentials, each scope of the key, and every
read endpoint (the balance, the active sender IDs, the campaigns, the first campaign's
delivery status, and the API keys when a dashboard token is set). Each check prints OK, WARN,
FAIL or SKIP, the status and latency of its request, and what the SDK found: members it
expected and did not get, members it got and does not know.

A scope is read from the GET that needs it (balance, sender_ids, campaigns), and, with a
dashboard token, from the key list. Without a token the write scopes that no GET shows (sms,
otp) are reported SKIP, "not checked" (FAIL when --require-scopes names them).

--probe-writes checks those by POSTing an empty JSON object, {}, to their endpoints
(/v1/sms/send, /v1/otp/send, /v1/sms/campaigns), for the scopes no read settled: 403
insufficient_scope means the key lacks the scope, 400 that it has it. This relies on the
server checking the scope before the body, as the mock does (the service's pages do not say),
so the report calls a scope granted this way "inferred". A server that accepts an empty
write (2xx) fails the check, and no further POST is sent.

--save DIR writes every answer, headers and body, with its request, one JSON file per request
in the order sent (01-get-v1-balance.json, 02-get-v1-sender-ids.json, ...), for a bug report
or new test fixtures. Secrets (X-API-Secret, Authorization, cookies, any secret, pin or token
member, anything shaped like an API secret or a JWT), and phone numbers (any run of 10 to 15
digits, any to, msisdn or phone member) are replaced by [REDACTED]. Read the files before
sharing them.

Requests are never retried (--max-retries does not apply); each is bounded by --timeout.
Exit status: 0 when no check failed (warnings and skipped checks do not fail), 1 when one
did, 2 on a usage error.`,
		Example: `  sms doctor
  sms doctor --base-url https://api.example.com --require-scopes sms,balance
  sms doctor --json | jq '.checks[] | select(.level != "ok")'
  sms doctor --save ./doctor-answers     # for a bug report: the answers, redacted
  sms doctor --probe-writes              # also infer sms, otp from empty POSTs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cfg, err := a.doctorConfig(timeout, require)
			if err != nil {
				return err
			}
			cfg.ProbeWrites, cfg.SaveDir = probeWrites, saveDir
			r, err := doctor.Run(ctx, cfg)
			var saveErr error
			switch {
			case err != nil && ctx.Err() != nil:
				return apiErr(ctx, err)
			case err != nil && r != nil: // the answers could not be saved: the report stands
				saveErr = err
			case err != nil:
				return &usageError{err}
			}
			if a.jsonOut {
				err = writeJSON(a.stdout, r)
			} else {
				err = printReport(a.stdout, r)
			}
			if err != nil {
				return err
			}
			if saveErr != nil {
				return &failure{saveErr}
			}
			if n := r.Count(doctor.LevelFail); n > 0 {
				return &failure{fmt.Errorf("doctor: %d of %d checks failed", n, len(r.Checks))}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", doctor.DefaultTimeout, "bound on each request")
	cmd.Flags().StringSliceVar(&require, "require-scopes", nil, "scopes the key must have: one missing fails instead of warning (sms,otp,campaigns,sender_ids,balance)")
	cmd.Flags().BoolVar(&probeWrites, "probe-writes", false, "infer the sms, otp and campaigns scopes that no read settled from an empty POST to their endpoints")
	cmd.Flags().StringVar(&saveDir, "save", "", "write every answer, redacted, to this directory (one JSON file per request)")
	_ = cmd.MarkFlagDirname("save")
	completeValues(cmd, "require-scopes", "sms", "otp", "campaigns", "sender_ids", "balance")
	return cmd
}

// doctorConfig gathers the settings of a run: the dashboard token is optional.
func (a *app) doctorConfig(timeout time.Duration, require []string) (doctor.Config, error) {
	cfg := doctor.Config{BaseURL: a.setting(a.baseURL, sms.BaseURLEnv), APIKey: a.setting(a.apiKey, envAPIKey), Timeout: timeout, InsecureHTTP: a.insecure}
	switch {
	case cfg.BaseURL == "":
		return cfg, usagef("no base URL: set %s or use --base-url", sms.BaseURLEnv)
	case cfg.APIKey == "":
		return cfg, usagef("no API key: set %s or use --api-key", envAPIKey)
	case timeout <= 0:
		return cfg, usagef("--timeout must be positive")
	}
	var err error
	if cfg.APISecret, err = a.secret("api-secret", a.apiSecret, a.apiSecretFile, envAPISecret); err != nil {
		return cfg, err
	}
	if cfg.APISecret == "" {
		return cfg, usagef("no API secret: set %s or use --api-secret-file", envAPISecret)
	}
	if cfg.DashboardToken, err = a.secret("dashboard-token", a.dashToken, a.dashTokenFile, envDashboard); err != nil {
		return cfg, err
	}
	for _, s := range require {
		cfg.RequireScopes = append(cfg.RequireScopes, sms.Scope(strings.TrimSpace(s)))
	}
	if a.transport != nil {
		cfg.HTTPClient = &http.Client{Transport: a.transport}
	}
	return cfg, nil
}

// printReport prints a report for people: one line per check, then a summary.
func printReport(w io.Writer, r *doctor.Report) error {
	t := newTable(w, "LEVEL", "CHECK", "ENDPOINT", "STATUS", "LATENCY", "DETAIL")
	for _, c := range r.Checks {
		status, took := "", ""
		if c.Status != 0 {
			status = itoa(c.Status)
		}
		if c.Status != 0 || c.Level != doctor.LevelSkip {
			took = latency(c.Latency)
		}
		t.row(strings.ToUpper(string(c.Level)), c.Name, c.Endpoint, status, took, c.Detail)
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s, %s key, %d checks: %d ok, %d warn, %d fail, %d skip\n", r.BaseURL, r.Mode,
		len(r.Checks), r.Count(doctor.LevelOK), r.Count(doctor.LevelWarn), r.Count(doctor.LevelFail), r.Count(doctor.LevelSkip))
	return err
}

// latency writes a duration to the millisecond, or to the microsecond below one.
func latency(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}
