package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

// Environment variables read for credentials; the flags of the same names override them.
const (
	envAPIKey    = "SMS_API_KEY"
	envAPISecret = "SMS_API_SECRET"
	envDashboard = "SMS_DASHBOARD_TOKEN"
)

// app is one run of the command: its streams, environment and global flags.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	args   []string // the command line, for the command that resumes a bulk job
	con    *console // stderr for people: notes, retries, progress

	baseURL       string
	apiKey        string
	apiSecret     string
	apiSecretFile string
	dashToken     string
	dashTokenFile string
	jsonOut       bool
	maxRetries    int
	insecure      bool
	dedup         bool // the server deduplicates references: sends may be retried

	// transport, when set, sends the requests instead of the default transport: tests use
	// the mock's in-process transport to run on a testing/synctest bubble's virtual time.
	transport http.RoundTripper
}

// usageError is a usage or input error found by this command: exit status 2, as for any
// error that is not a failure.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// failure is an error of the API, the network or the system: exit status 1.
type failure struct{ err error }

func (e *failure) Error() string { return e.err.Error() }
func (e *failure) Unwrap() error { return e.err }

// interrupted reports that the user stopped the command: exit status 130.
type interrupted struct{ err error }

func (e *interrupted) Error() string { return e.err.Error() }
func (e *interrupted) Unwrap() error { return e.err }

// apiErr classifies the error of an SDK call: a *sms.ValidationError, found before any
// request, is an input error; anything else is a failure of the API or the network.
func apiErr(ctx context.Context, err error) error {
	var ve *sms.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		return &usageError{err}
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return &interrupted{err}
	}
	return &failure{err}
}

// exitCode maps an error to the exit status.
func exitCode(err error) int {
	var (
		f  *failure
		in *interrupted
	)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, bulk.ErrBatchesInDoubt):
		return exitInDoubt
	case errors.As(err, &in):
		return exitInterrupted
	case errors.As(err, &f):
		return exitFailure
	}
	return exitUsage
}

func (a *app) execute(ctx context.Context) int {
	root := a.rootCmd()
	root.SetArgs(a.args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	fmt.Fprintln(a.console(), errorLine(cmd, err))
	if cw, ok := a.stdout.(*countingWriter); ok && a.jsonOut && cw.n == 0 {
		_ = writeJSON(a.stdout, errorOut(cmd, err, code))
	}
	if apiErr := (*sms.Error)(nil); errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest && apiErr.Field == "from" {
		a.note("'sms sender-ids list' shows the workspace's sender IDs and which are active")
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		a.note("nothing answers at %s: is the server running, and is the base URL right?", a.setting(a.baseURL, sms.BaseURLEnv))
	}
	// cobra's own errors (flags, arguments, commands) get a pointer to the help; ours say
	// what to do.
	var ue *usageError
	if code == exitUsage && cmd != nil && !errors.As(err, &ue) {
		fmt.Fprintf(a.console(), "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}

// errorLine is the line printed for an error, in the words of cmd, the command that ran (see
// inCommandWords), with control characters escaped. The SDK's errors carry the status, code,
// message and request ID, and never a credential.
func errorLine(cmd *cobra.Command, err error) string {
	msg := printableText(inCommandWords(cmd, err))
	switch {
	case strings.HasPrefix(msg, "bulk: "): // package bulk's, as the sms bulk command says it
		msg = "sms " + msg
	case !strings.HasPrefix(msg, "sms: "):
		msg = "sms: " + msg
	}
	return msg
}

// console returns stderr as people read it, shared by notes, retry lines and progress.
func (a *app) console() *console {
	if a.con == nil {
		a.con = &console{w: a.stderr}
	}
	return a.con
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "sms",
		Short: "Use the SMS API from a terminal",
		Long: `sms sends SMS and OTPs, lists campaigns and their delivery, reads the balance,
manages sender IDs and API keys, and sends campaigns to lists exported as CSV.

Credentials come from the environment; flags override them:
  SMS_BASE_URL          the API's base URL (--base-url)
  SMS_API_KEY           the public key, pk_live_... or pk_test_... (--api-key)
  SMS_API_SECRET        its secret, sk_live_... or sk_test_... (--api-secret-file)
  SMS_DASHBOARD_TOKEN   a dashboard JWT, for the keys commands (--dashboard-token-file)

Secrets are never printed. Results go to stdout, everything else to stderr. With
--json, a command that fails before printing its result prints the error as a JSON
object on stdout, {"error": {"message", "exitCode", "status", "code", "field", "scope",
"requestId"}}, besides its line on stderr.
Exit status: 0 success, 1 an API or network error (or a send whose campaign failed),
2 a usage or input error, 130 interrupted.`,
		Example: `  export SMS_BASE_URL=https://api.example.com SMS_API_KEY=pk_live_... SMS_API_SECRET=sk_live_...
  sms balance
  sms send --to 08025671695 --from ACME --message 'Your order has shipped.'
  sms campaigns list --json | jq .status`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			a.warnSecretFlags(cmd)
			return nil
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.baseURL, "base-url", "", "the API's base URL (default $"+sms.BaseURLEnv+")")
	pf.StringVar(&a.apiKey, "api-key", "", "the API key, pk_live_... or pk_test_... (default $"+envAPIKey+")")
	pf.StringVar(&a.apiSecret, "api-secret", "", "the API secret (default $"+envAPISecret+"); visible in shell history: prefer the variable or --api-secret-file")
	pf.StringVar(&a.apiSecretFile, "api-secret-file", "", "read the API secret from this file (- for stdin)")
	pf.StringVar(&a.dashToken, "dashboard-token", "", "the dashboard JWT for the keys commands (default $"+envDashboard+"); visible in shell history: prefer the variable or --dashboard-token-file")
	pf.StringVar(&a.dashTokenFile, "dashboard-token-file", "", "read the dashboard JWT from this file (- for stdin)")
	pf.BoolVar(&a.jsonOut, "json", false, "print JSON for scripts: one document, or one object per line for lists")
	pf.IntVar(&a.maxRetries, "max-retries", sms.DefaultMaxRetries, "retries of a failed request, 0 to "+itoa(maxRetries)+" (0 turns them off); each is shown on stderr")
	pf.BoolVar(&a.dedup, "reference-dedup", false, "the server deduplicates the reference of a send: retry sends after a failure whose outcome is unknown, and rerun bulk jobs safely (only if you know it does: see the README)")
	pf.BoolVar(&a.insecure, "insecure-http", false, "allow a plain http:// base URL to a host that is not loopback")

	root.AddCommand(
		a.sendCmd(),
		a.otpCmd(),
		a.campaignsCmd(),
		a.balanceCmd(),
		a.senderIDsCmd(),
		a.keysCmd(),
		a.bulkCmd(),
		a.doctorCmd(),
	)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.console())
	_ = root.MarkPersistentFlagFilename("api-secret-file")
	_ = root.MarkPersistentFlagFilename("dashboard-token-file")
	// cobra adds help and completion when it runs; added now, they get examples too.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  sms help bulk"
		case "completion":
			c.Example = "  source <(sms completion bash)\n  sms completion zsh > \"${fpath[1]}/_sms\""
			for _, sh := range c.Commands() {
				switch sh.Name() {
				case "fish":
					sh.Example = "  sms completion fish | source"
				case "powershell":
					sh.Example = "  sms completion powershell | Out-String | Invoke-Expression"
				default:
					sh.Example = "  source <(sms completion " + sh.Name() + ")"
				}
			}
		}
	}
	markRequired(root)
	return root
}

// markRequired ends the help line of every required flag with "(required)": usage lines name
// a command's arguments only, so the flag list says which flags must be given.
func markRequired(cmd *cobra.Command) {
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if req := f.Annotations[cobra.BashCompOneRequiredFlag]; len(req) > 0 && req[0] == "true" && !strings.HasSuffix(f.Usage, "(required)") {
			f.Usage += " (required)"
		}
	})
	for _, c := range cmd.Commands() {
		markRequired(c)
	}
}

// completeValues offers values for a flag in shell completion.
func completeValues(cmd *cobra.Command, flag string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// warnSecretFlags warns that a secret given as a flag lands in shell history and process
// lists.
func (a *app) warnSecretFlags(cmd *cobra.Command) {
	for _, w := range []struct{ flag, env string }{
		{"api-secret", envAPISecret},
		{"dashboard-token", envDashboard},
	} {
		if f := cmd.Flags().Lookup(w.flag); f != nil && f.Changed {
			fmt.Fprintf(a.console(), "warning: --%s is visible in shell history and process lists; set %s or use --%s-file (- reads stdin) instead\n", w.flag, w.env, w.flag)
		}
	}
}

// setting returns the flag's value when set, else the environment variable's.
func (a *app) setting(flagValue, env string) string {
	if flagValue != "" {
		return flagValue
	}
	return strings.TrimSpace(a.getenv(env))
}

// secret returns a secret from its flag, its file flag or the environment, in that order.
func (a *app) secret(flagName, flagValue, file, env string) (string, error) {
	if flagValue != "" && file != "" {
		return "", usagef("--%s and --%s-file are exclusive", flagName, flagName)
	}
	if file == "" {
		return a.setting(flagValue, env), nil
	}
	var (
		b   []byte
		err error
	)
	if file == "-" {
		var line string
		line, err = a.readSecret(strings.ReplaceAll(flagName, "-", " "))
		b = []byte(line)
	} else {
		b, err = os.ReadFile(file)
	}
	if err != nil {
		return "", usagef("--%s-file: %w", flagName, err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", usagef("--%s-file: the file is empty", flagName)
	}
	return s, nil
}

// Bounds of numeric flags, checked before anything is read or sent. A value past them is a
// mistake, and some would exhaust the machine (a concurrency of 1<<40 is that many workers).
const (
	maxRetries     = 10                  // --max-retries: with waits of up to 30 s, minutes of retrying
	maxConcurrency = bulk.MaxConcurrency // bulk --concurrency: each worker holds a batch of up to 10,000
)

// checkInt refuses a value of flag outside lo to hi.
func checkInt(flag string, v, lo, hi int) error {
	if v < lo || v > hi {
		return usagef("--%s %d: want %d to %d", flag, v, lo, hi)
	}
	return nil
}

// checkDuration refuses a duration of flag outside lo to hi.
func checkDuration(flag string, d, lo, hi time.Duration) error {
	if d < lo || d > hi {
		return usagef("--%s %v: want %v to %v", flag, d, lo, hi)
	}
	return nil
}

func (a *app) options() ([]sms.Option, error) {
	base := a.setting(a.baseURL, sms.BaseURLEnv)
	if base == "" {
		return nil, usagef("no base URL: set %s or use --base-url", sms.BaseURLEnv)
	}
	if err := checkInt("max-retries", a.maxRetries, 0, maxRetries); err != nil {
		return nil, err
	}
	opts := []sms.Option{
		sms.WithBaseURL(base), sms.WithMaxRetries(a.maxRetries), sms.WithUserAgent("sms-cli/" + sms.Version()),
		sms.WithLogger(slog.New(&retryLog{con: a.console(), max: a.maxRetries})),
	}
	if a.insecure {
		opts = append(opts, sms.WithInsecureHTTP())
	}
	if a.dedup {
		opts = append(opts, sms.WithReferenceDeduplication())
	}
	if a.transport != nil {
		opts = append(opts, sms.WithHTTPClient(&http.Client{Transport: a.transport, Timeout: sms.DefaultTimeout}))
	}
	return opts, nil
}

// client returns a client for the developer endpoints, with extra options.
func (a *app) client(extra ...sms.Option) (*sms.Client, error) {
	key := a.setting(a.apiKey, envAPIKey)
	if key == "" {
		return nil, usagef("no API key: set %s or use --api-key", envAPIKey)
	}
	secret, err := a.secret("api-secret", a.apiSecret, a.apiSecretFile, envAPISecret)
	if err != nil {
		return nil, err
	}
	if secret == "" {
		return nil, usagef("no API secret: set %s or use --api-secret-file", envAPISecret)
	}
	opts, err := a.options()
	if err != nil {
		return nil, err
	}
	c, err := sms.NewClient(key, secret, append(opts, extra...)...)
	if err != nil {
		return nil, &usageError{err}
	}
	return c, nil
}

// dashboard returns a client for the keys endpoints.
func (a *app) dashboard() (*sms.DashboardClient, error) {
	tok, err := a.secret("dashboard-token", a.dashToken, a.dashTokenFile, envDashboard)
	if err != nil {
		return nil, err
	}
	if tok == "" {
		return nil, usagef("no dashboard token: set %s or use --dashboard-token-file", envDashboard)
	}
	opts, err := a.options()
	if err != nil {
		return nil, err
	}
	c, err := sms.NewDashboardClient(tok, opts...)
	if err != nil {
		return nil, &usageError{err}
	}
	return c, nil
}

// note prints a line for people on stderr. Its text arguments are escaped (see printable):
// they may come from the server or the CSV file.
func (a *app) note(format string, args ...any) {
	fmt.Fprintf(a.console(), format+"\n", printableArgs(args)...)
}

// readSecret reads one line from stdin: typed without echo after a prompt on stderr when
// stdin is a terminal, else the first line of what is piped in.
func (a *app) readSecret(what string) (string, error) {
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(a.stderr, "%s: ", what)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(a.stderr)
		return strings.TrimSpace(string(b)), err
	}
	line, err := bufio.NewReader(io.LimitReader(a.stdin, 64<<10)).ReadString('\n')
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return strings.TrimSpace(line), err
}
