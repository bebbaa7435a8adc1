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
// number, live, with the mock's test controls.
//
// It stops gracefully on SIGINT or SIGTERM.
//
// Usage:
//
//	sms-mockserver [-addr 127.0.0.1:4010] [-jwt-secret S] [-generic-price 3.20] [-dnd-price 4.50]
//	               [-live-balance 10000.00] [-test-balance 10000.00] [-rate-limit N]
//	               [-read-timeout 30s] [-allow-host name]... [-gc-headroom-mb 32]
//	               [-message-limit 1000000] [-workspace-limit 10000] [-dnd-limit 1000000]
//
// Prices are at most 10,000.00 NGN a part and balances at most 40,000,000,000,000,000.00 NGN.
// A request body must arrive within -read-timeout. Requests must name a loopback host
// (localhost, 127.0.0.0/8, ::1) or one given with -allow-host (repeatable, or comma
// separated), for example the mock's name in a container network; others get 403. Every store
// is bounded: -message-limit recipients of campaigns and OTP messages (the oldest campaigns are
// then forgotten entirely), -workspace-limit workspaces and -dnd-limit numbers on the
// Do-Not-Disturb register (one more is refused).
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
// on stdout once the listener accepts connections.
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
	gcHeadroom := fs.Int("gc-headroom-mb", 32, "let the heap grow this many MB past the live heap between collections while the live heap is smaller (0: the Go default)")
	messageLimit := fs.Int("message-limit", mockserver.DefaultMaxMessages, "recipients of campaigns and OTP messages kept; past it the oldest campaigns are forgotten")
	workspaceLimit := fs.Int("workspace-limit", mockserver.DefaultMaxWorkspaces, "workspaces the mock holds at most, the default one included")
	dndLimit := fs.Int("dnd-limit", mockserver.DefaultMaxDND, "numbers the Do-Not-Disturb register holds at most")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *gcHeadroom < 0 {
		return errors.New("-gc-headroom-mb cannot be negative")
	}
	if *gcHeadroom > 0 {
		tuneGC(uint64(*gcHeadroom) << 20)
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
	for name, n := range map[string]int{"message-limit": *messageLimit, "workspace-limit": *workspaceLimit, "dnd-limit": *dndLimit} {
		if n < 1 {
			return fmt.Errorf("-%s must be at least 1", name)
		}
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
	}
	if *jwtSecret != "" {
		opts = append(opts, mockserver.WithJWTSecret([]byte(*jwtSecret)))
	}
	if *verbose {
		opts = append(opts, mockserver.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))))
	}
	srv := mockserver.New(opts...)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	ws := srv.Default()
	ws.URL = "http://" + ln.Addr().String()
	line, err := json.Marshal(struct {
		mockserver.Workspace
		Inbox string `json:"inbox"` // the inbox page
	}{ws, ws.URL + "/"})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
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
