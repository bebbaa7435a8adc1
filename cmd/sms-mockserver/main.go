// Command sms-mockserver runs the in-memory mock of the SMS API.
//
// Once it accepts connections it prints one JSON line on stdout with the URL and the
// credentials of its default workspace:
//
//	{"url": "http://127.0.0.1:4010", "workspaceId": "...", "dashboardToken": "<JWT>",
//	 "liveKey": "pk_live_...", "liveSecret": "sk_live_...", "testKey": "pk_test_...",
//	 "testSecret": "sk_test_...", "senderId": "MOCKSMS", "inbox": "http://127.0.0.1:4010/"}
//
// Open the inbox URL in a browser while your app runs: every SMS the mock received, per phone
// number, live, with the mock's test controls. Listening on all interfaces (-addr 0.0.0.0:4010,
// as in a container), the line names 127.0.0.1, the address the mock answers on that machine.
//
// With -env it prints a line for a POSIX shell instead: export statements of the variables the
// sms command reads, single-quoted:
//
//	export SMS_BASE_URL='http://127.0.0.1:4010' SMS_API_KEY='pk_live_...' SMS_API_SECRET='sk_live_...' SMS_DASHBOARD_TOKEN='<JWT>'
//
// Either way stdout is closed once the line is out, so that a shell's command substitution
// returns while the mock serves on in the background:
//
//	eval "$(sms-mockserver -env & echo "SMS_MOCK_PID=$!")"
//	sms balance
//	kill "$SMS_MOCK_PID"
//
// It stops gracefully on SIGINT or SIGTERM.
//
// Usage:
//
//	sms-mockserver [-addr 127.0.0.1:4010] [-jwt-secret S] [-generic-price 3.20] [-dnd-price 4.50]
//	               [-live-balance 10000.00] [-test-balance 10000.00] [-rate-limit N]
//	               [-read-timeout 30s] [-allow-host name]...
//	               [-message-limit 1000000] [-workspace-limit 10000] [-dnd-limit 1000000]
//	               [-delivery-delay 1s|off] [-profile full|documented] [-reference-dedup on|off]
//	               [-env]
//
// Prices are at most 10,000.00 NGN a part and balances at most 40,000,000,000,000,000.00 NGN.
// A request body must arrive within -read-timeout. Requests must name a loopback host
// (localhost, 127.0.0.0/8, ::1) or one given with -allow-host (repeatable, or comma
// separated), for example the mock's name in a container network; others get 403. Every store
// is bounded: -message-limit recipients of campaigns and OTP messages (the oldest campaigns are
// then forgotten entirely), -workspace-limit workspaces and -dnd-limit numbers on the
// Do-Not-Disturb register (one more is refused). Its collector is Go's: GOGC and GOMEMLIMIT
// set it as for any Go server.
//
// Campaigns finish by themselves: -delivery-delay (default 1s) after a send, its recipients
// move from sent to delivered, or to failed or dnd by the rules of the magic test numbers
// (see mockserver.WithAutoDelivery); 0 or off leaves them sent until POST /_mock/deliver or
// /_mock/campaigns/{id}/deliver moves them.
//
// -profile documented answers only the members and statuses the live service's pages show
// (full, the default, answers everything docs/api.md describes). -reference-dedup says whether
// a send's reference is deduplicated: on, a reference reused within 24 hours replays the
// first answer (or is refused when the body differs); off, the mock is a server that does
// not deduplicate, where every send is a new campaign, sent and charged, its reference only
// stored and listed. It defaults to on under -profile full and off under -profile documented
// (the live pages never promise deduplication); given, it wins over the profile.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sms-mockserver:", err)
		os.Exit(2)
	}
}

// printUsage prints the usage line and the flags to w.
func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "Usage: sms-mockserver [flags]\n\nRuns the in-memory mock of the SMS API and prints its URL and credentials as one JSON line.\n\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// nairaFlag is a flag holding money in kobo, written in naira ("3.20"), from 0 to max kobo.
type nairaFlag struct{ kobo, max int64 }

func (f *nairaFlag) String() string { return rules.FormatNaira(f.kobo) }
func (f *nairaFlag) Set(s string) error {
	k, err := rules.ParseNaira(s)
	if err != nil || k < 0 {
		return rules.ErrMoney
	}
	if k > f.max {
		return fmt.Errorf("at most %s NGN", rules.FormatNaira(f.max))
	}
	f.kobo = k
	return nil
}

// delayFlag is -delivery-delay: a duration, or "off" (the same as 0).
type delayFlag struct{ d time.Duration }

func (f *delayFlag) String() string { return f.d.String() }
func (f *delayFlag) Set(s string) error {
	if s == "off" {
		f.d = 0
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return errors.New(`a non-negative duration such as 1s, or "off"`)
	}
	if d > mockserver.MaxDeliveryDelay {
		return fmt.Errorf("at most %v (3,650 days)", mockserver.MaxDeliveryDelay)
	}
	f.d = d
	return nil
}

// onOffFlag is -reference-dedup: "on" or "off", remembered as given or not, so that an
// absent flag leaves the default to the profile.
type onOffFlag struct{ on, set bool }

func (f *onOffFlag) String() string {
	switch {
	case !f.set:
		return "" // no "(default ...)" in the usage: the profile decides
	case f.on:
		return "on"
	}
	return "off"
}

func (f *onOffFlag) Set(s string) error {
	switch s {
	case "on", "off":
		f.on, f.set = s == "on", true
		return nil
	}
	return errors.New(`want "on" or "off"`)
}

// hostsFlag collects -allow-host values, repeated or comma separated.
type hostsFlag []string

func (f *hostsFlag) String() string { return strings.Join(*f, ",") }
func (f *hostsFlag) Set(s string) error {
	for h := range strings.SplitSeq(s, ",") {
		h = strings.TrimSpace(h)
		if _, err := netip.ParseAddr(strings.Trim(h, "[]")); err != nil && (h == "" || strings.ContainsAny(h, "/ :[]")) {
			return fmt.Errorf("%q is not a host name (give it without scheme or port)", h)
		}
		*f = append(*f, h)
	}
	return nil
}

// run parses args, serves until ctx is done or a signal arrives, and prints the startup line
// on stdout once the listener accepts connections, then closes stdout if it is an io.Closer.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sms-mockserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:4010", "address to listen on")
	jwtSecret := fs.String("jwt-secret", "", "HS256 secret for dashboard JWTs (default: random)")
	generic := &nairaFlag{mockserver.DefaultGenericPrice, mockserver.MaxPrice}
	dnd := &nairaFlag{mockserver.DefaultDNDPrice, mockserver.MaxPrice}
	live := &nairaFlag{mockserver.DefaultBalance, mockserver.MaxBalance}
	test := &nairaFlag{mockserver.DefaultBalance, mockserver.MaxBalance}
	maxPrice, maxBalance := rules.FormatNaira(mockserver.MaxPrice), rules.FormatNaira(mockserver.MaxBalance)
	fs.Var(generic, "generic-price", "price of one SMS part on the generic channel, NGN (0 to "+maxPrice+")")
	fs.Var(dnd, "dnd-price", "price of one SMS part on the dnd channel, NGN (0 to "+maxPrice+")")
	fs.Var(live, "live-balance", "starting live wallet balance, NGN (0 to "+maxBalance+")")
	fs.Var(test, "test-balance", "starting test wallet balance, NGN (0 to "+maxBalance+")")
	rateLimit := fs.Int("rate-limit", 0, "requests per minute per API key (0: no limit)")
	readTimeout := fs.Duration("read-timeout", mockserver.DefaultReadTimeout, "longest time a request body may take to arrive (0: no limit)")
	var hosts hostsFlag
	fs.Var(&hosts, "allow-host", "a host name requests may use besides loopback ones (repeatable)")
	verbose := fs.Bool("v", false, "log one line per request on stderr")
	messageLimit := fs.Int("message-limit", mockserver.DefaultMaxMessages, "recipients of campaigns and OTP messages kept; past it the oldest campaigns are forgotten")
	workspaceLimit := fs.Int("workspace-limit", mockserver.DefaultMaxWorkspaces, "workspaces the mock holds at most, the default one included")
	dndLimit := fs.Int("dnd-limit", mockserver.DefaultMaxDND, "numbers the Do-Not-Disturb register holds at most")
	delivery := &delayFlag{mockserver.DefaultDeliveryDelay}
	fs.Var(delivery, "delivery-delay", `how long after its send a campaign's recipients are delivered by themselves, by the magic numbers' rules (0 or "off": never, until a control delivers them; at most 87600h)`)
	idemTotal := fs.Int("idempotency-total-limit", mockserver.DefaultIdempotencyTotalLimit, "send references the mock remembers at most, every workspace together; past it the oldest are forgotten")
	profileName := fs.String("profile", mockserver.ProfileFull.String(), "answer with everything (full) or only the members and statuses the live docs show (documented)")
	var dedup onOffFlag
	fs.Var(&dedup, "reference-dedup", "whether a send's reference is deduplicated, `on|off`: on, one reused within 24h replays the first answer (409 when the body differs); off, every send is a new campaign, charged, its reference only stored and listed (default: on under -profile full, off under -profile documented)")
	env := fs.Bool("env", false, "print the startup line as shell export statements of SMS_BASE_URL, SMS_API_KEY, SMS_API_SECRET and SMS_DASHBOARD_TOKEN instead of JSON")
	fs.Usage = func() {} // printed below: on stdout when asked for, on stderr after an error
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stdout)
			return nil
		}
		printUsage(fs, stderr)
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *rateLimit < 0 {
		return errors.New("-rate-limit cannot be negative")
	}
	if *readTimeout < 0 {
		return errors.New("-read-timeout cannot be negative")
	}
	for _, l := range []struct {
		name string
		n    int
	}{{"message-limit", *messageLimit}, {"workspace-limit", *workspaceLimit}, {"dnd-limit", *dndLimit}, {"idempotency-total-limit", *idemTotal}} {
		if l.n < 1 {
			return fmt.Errorf("-%s must be at least 1", l.name)
		}
	}
	profile, err := mockserver.ParseProfile(*profileName)
	if err != nil {
		return errors.New("-profile must be full or documented")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	host, allow := dialHost(ln.Addr())
	if allow != "" {
		hosts = append(hosts, allow)
	}
	opts := []mockserver.Option{
		mockserver.WithPrices(generic.kobo, dnd.kobo),
		mockserver.WithBalances(live.kobo, test.kobo),
		mockserver.WithRateLimit(*rateLimit),
		mockserver.WithReadTimeout(*readTimeout),
		mockserver.WithAllowedHosts(hosts...),
		mockserver.WithMessageLimit(*messageLimit),
		mockserver.WithWorkspaceLimit(*workspaceLimit),
		mockserver.WithDNDLimit(*dndLimit),
		mockserver.WithAutoDelivery(delivery.d),
		mockserver.WithProfile(profile),
		mockserver.WithIdempotencyTotalLimit(*idemTotal),
	}
	if dedup.set {
		opts = append(opts, mockserver.WithReferenceDeduplication(dedup.on))
	}
	if *jwtSecret != "" {
		opts = append(opts, mockserver.WithJWTSecret([]byte(*jwtSecret)))
	}
	if *verbose {
		opts = append(opts, mockserver.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))))
	}
	srv, err := mockserver.New(opts...)
	if err != nil {
		_ = ln.Close()
		return err
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	ws := srv.Default()
	ws.URL = "http://" + host
	line, err := startupLine(ws, *env)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
	}
	// Nothing else is ever written there: closing it ends a reader's input, so that
	// $(sms-mockserver &) in a shell returns while the mock serves on.
	if c, ok := stdout.(io.Closer); ok {
		_ = c.Close()
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	return <-served
}

// dialHost returns the host:port a client on this machine dials to reach a listener on a,
// and an IP address to allow as a request's Host besides the loopback ones, if any.
//
// A listener on all interfaces (0.0.0.0 or ::, shown as [::] by Go's dual-stack listener) is
// reached at 127.0.0.1, which the mock answers; a request naming the unspecified address is
// refused like any other non-loopback host. A listener on one non-loopback address was
// asked for by name or number: that address is allowed, so that the URL printed works (an IP
// address cannot be rebound by DNS; names still need -allow-host).
func dialHost(a net.Addr) (hostport, allow string) {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String(), ""
	}
	switch ip := ta.IP; {
	case ip.IsUnspecified():
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port)), ""
	case !ip.IsLoopback():
		return a.String(), ip.String()
	}
	return a.String(), ""
}

// startupLine is the line printed once the mock accepts connections: the default workspace
// and its inbox URL as JSON, or with env the line of envLine.
func startupLine(ws mockserver.Workspace, env bool) ([]byte, error) {
	if env {
		return envLine(ws), nil
	}
	// Credentials: Workspace's own JSON form hides the secrets this line is there to give.
	return json.Marshal(struct {
		mockserver.Credentials
		Inbox string `json:"inbox"` // the inbox page
	}{ws.Credentials(), ws.URL + "/"})
}

// envLine is the startup line of -env: export statements of the variables the sms command
// reads, single-quoted for a POSIX shell. It leaves out the process ID: in a container it
// means nothing to the shell that reads the line (the shell's $! does).
func envLine(ws mockserver.Workspace) []byte {
	var b strings.Builder
	b.WriteString("export")
	for _, kv := range [][2]string{
		{"SMS_BASE_URL", ws.URL},
		{"SMS_API_KEY", ws.LiveKey},
		{"SMS_API_SECRET", ws.LiveSecret},
		{"SMS_DASHBOARD_TOKEN", ws.DashboardToken},
	} {
		fmt.Fprintf(&b, " %s=%s", kv[0], shellQuote(kv[1]))
	}
	return []byte(b.String())
}

// shellQuote quotes s for a POSIX shell: in single quotes, each single quote of s ending the
// quoted string, escaped with a backslash, and starting a new one.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
