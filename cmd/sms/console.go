package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"sync"

	"golang.org/x/term"
)

// console is stderr as people read it: notes, retry lines, the progress bar and the delivery
// line share it, one writer at a time. While a bar or a line that is redrawn in place is on
// screen, a line written clears it first; it is drawn again at its next update.
type console struct {
	mu    sync.Mutex
	w     io.Writer
	clear func() // set while a bar or a redrawn line is on screen: erases it; called under mu
}

// Write writes p whole, after clearing what is redrawn in place.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clear != nil {
		c.clear()
	}
	return c.w.Write(p)
}

// locked runs fn with the console to itself: what is redrawn in place draws under it, on w.
func (c *console) locked(fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn()
}

// terminal reports whether the console is a terminal.
func (c *console) terminal() bool {
	f, ok := c.w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// retryLog is the SDK's logger (sms.WithLogger) as this command uses it: of the line the SDK
// logs after each attempt, it prints those followed by a retry, so that a refused connection
// or a 503 is visible at once instead of seconds of silence:
//
//	sms: GET /v1/balance: dial tcp 127.0.0.1:8080: connect: connection refused; retry 1 of 3
type retryLog struct {
	con *console
	max int // the retries allowed (--max-retries)
}

// Enabled is true from the debug level on: the SDK logs each attempt at debug.
func (h *retryLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelDebug }

// urlErrorPrefix is how net/http's *url.Error starts: the method and URL that the line shows
// already.
var urlErrorPrefix = regexp.MustCompile(`^[A-Za-z]+ "[^"]*": `)

// Handle prints the attempt when it is retried.
func (h *retryLog) Handle(_ context.Context, r slog.Record) error {
	var (
		method, path, reqID, errText string
		status, attempt              int
		retry                        bool
	)
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "method":
			method = a.Value.String()
		case "path":
			path = a.Value.String()
		case "requestId":
			reqID = a.Value.String()
		case "error":
			errText = a.Value.String()
		case "status":
			status = int(a.Value.Int64())
		case "attempt":
			attempt = int(a.Value.Int64())
		case "retry":
			retry = a.Value.Bool()
		}
		return true
	})
	// The SDK marks the last attempt retryable too when it failed in a way a retry could fix;
	// no retry follows it.
	if !retry || attempt > h.max {
		return nil
	}
	what := urlErrorPrefix.ReplaceAllString(errText, "")
	if what == "" {
		what = fmt.Sprintf("%d %s", status, http.StatusText(status))
		if reqID != "" {
			what += " [request " + reqID + "]"
		}
	}
	_, err := fmt.Fprintf(h.con, "sms: %s %s: %s; retry %d of %d\n", printable(method), printable(path), printable(what), attempt, h.max)
	return err
}

// WithAttrs returns h: the SDK logs everything on the record.
func (h *retryLog) WithAttrs([]slog.Attr) slog.Handler { return h }

// WithGroup returns h.
func (h *retryLog) WithGroup(string) slog.Handler { return h }
