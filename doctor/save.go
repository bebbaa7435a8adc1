package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/seedsms/sms-go/internal/safefile"
	"github.com/seedsms/sms-go/internal/safetext"
)

// Redacted replaces every secret and pin in the saved answers (phone numbers are masked).
const Redacted = "[REDACTED]"

// saved is one file of SaveDir (see the package's "Saved answers").
type saved struct {
	Request  *savedRequest  `json:"request"`
	Response *savedResponse `json:"response"`
	Error    string         `json:"error,omitempty"`
}

type savedRequest struct {
	Method  string              `json:"method"`
	URL     string              `json:"url"`
	Headers map[string][]string `json:"headers"`
}

type savedResponse struct {
	Status  int                 `json:"status"`
	Headers map[string][]string `json:"headers"`
	Body    json.RawMessage     `json:"body"`
}

// save writes every request of the run and its answer to dir, redacted, one file each.
func (d *doctor) save(dir string) error {
	r := redactor{safetext.New(safetext.Config{Secrets: []string{d.cfg.APISecret, d.cfg.DashboardToken}, People: true})}
	var errs []error
	for i, a := range d.sent {
		b, err := json.MarshalIndent(r.saved(a.ex), "", "  ")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		name := fmt.Sprintf("%02d-%s.json", i+1, slug(a.endpoint))
		// Never through a link or into another user's file: a directory shared with others
		// must not turn the save into a write elsewhere.
		errs = append(errs, safefile.WriteFile(filepath.Join(dir, name), append(b, '\n')))
	}
	return errors.Join(errs...)
}

// slug is an endpoint as a file name: "GET /v1/sms/campaigns/{id}/status" is
// "get-v1-sms-campaigns-id-status" (the query left out).
func slug(endpoint string) string {
	endpoint, _, _ = strings.Cut(strings.ToLower(endpoint), "?")
	return strings.Trim(nonWord.ReplaceAllString(endpoint, "-"), "-")
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// redactor replaces secrets and pins, and masks phone numbers, by the module's one rule
// (internal/safetext) with the run's own secret and token.
type redactor struct{ r *safetext.Redactor }

func (r redactor) saved(ex *exchange) saved {
	var s saved
	if ex.method != "" {
		s.Request = &savedRequest{Method: ex.method, URL: r.r.Text(ex.url), Headers: r.headers(ex.reqHeader)}
	}
	if ex.status != 0 {
		s.Response = &savedResponse{Status: ex.status, Headers: r.headers(ex.header), Body: r.body(ex.body)}
	}
	if ex.err != nil {
		s.Error = r.r.Text(ex.err.Error())
	}
	return s
}

// headers returns a copy of h with the credential headers' values replaced, and the others
// redacted as text (an epoch time's digits are no phone number: see safetext.MaskPhones).
func (r redactor) headers(h http.Header) map[string][]string {
	out := make(map[string][]string, len(h))
	for k, vs := range h {
		switch http.CanonicalHeaderKey(k) {
		case "X-Api-Secret", "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie":
			out[k] = []string{Redacted}
			continue
		}
		kept := make([]string, len(vs))
		for i, v := range vs {
			kept[i] = r.r.Text(v)
		}
		out[r.r.Text(k)] = kept
	}
	return out
}

// body returns a JSON body redacted, its members in their order, compacted, or any other body
// as a JSON string, redacted; nil for an empty body.
func (r redactor) body(b []byte) json.RawMessage {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if json.Valid(b) {
		var out bytes.Buffer
		if json.Compact(&out, r.r.JSON(b)) == nil { // the walker keeps a valid body valid
			return out.Bytes()
		}
	}
	out, _ := json.Marshal(r.r.Text(string(b))) // a string always marshals
	return out
}
