// Command sms uses the SMS API from a terminal: send an SMS or an OTP, list campaigns and
// their delivery, read the balance, manage sender IDs and API keys, and send a campaign to a
// list exported as CSV.
//
// Install it with
//
//	go install github.com/seedsms/sms-go/cmd/sms@latest
//
// Credentials come from the environment (SMS_API_KEY, SMS_API_SECRET, SMS_DASHBOARD_TOKEN and
// SMS_BASE_URL); flags override them. Secrets are never printed.
//
//	export SMS_BASE_URL=https://api.example.com SMS_API_KEY=pk_live_... SMS_API_SECRET=sk_live_...
//	sms balance
//	sms send --to 08025671695 --from ACME --message 'Your order has shipped.'
//	sms bulk --csv people.csv --from ACME --message 'Hi {{name}}' --job-id promo-2026-11
//
// Tables are for people; --json prints one JSON document, or one JSON object per line for
// lists, for scripts. Results go to stdout, everything else to stderr. With --json, a command
// that fails before printing its result prints {"error": {...}} on stdout instead, as gh api
// does, besides the line on stderr and the exit status.
//
// Exit status: 0 on success, 1 on an API or network error (its code, message and request ID
// are printed on stderr), 2 on a usage or input error, 3 when sms bulk leaves batches in
// doubt (settle each with sms bulk settle), 130 when interrupted.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// The first SIGINT or SIGTERM cancels ctx: a bulk send stops after the batches in flight.
	// Once ctx is cancelled the signals are restored, so a second Ctrl-C ends the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitOK          = 0
	exitFailure     = 1   // an API or network error
	exitUsage       = 2   // a usage or input error
	exitInDoubt     = 3   // sms bulk left batches in doubt: settle them (sms bulk settle)
	exitInterrupted = 130 // stopped by SIGINT or SIGTERM, as shells report it
)

// run runs the command line args (without the program name) and returns the exit status.
// getenv reads the environment; ctx ends when the user interrupts.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	a := &app{stdin: stdin, stdout: &countingWriter{w: stdout}, stderr: stderr, getenv: getenv, args: args}
	return a.execute(ctx)
}
