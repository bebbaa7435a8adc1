package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Redacted replaces every secret, pin and phone number in the saved answers.
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
	r := redactor{}
	for _, s := range []string{d.cfg.APISecret, d.cfg.DashboardToken} {
		if s != "" {
			r.own = append(r.own, s)
		}
	}
	var errs []error
	for i, a := range d.sent {
		b, err := json.MarshalIndent(r.saved(a.ex), "", "  ")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		name := fmt.Sprintf("%02d-%s.json", i+1, slug(a.endpoint))
		errs = append(errs, os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o600))
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

// redactor replaces secrets, pins and phone numbers. own are the run's own secrets, replaced
// wherever they appear whatever their shape.
type redactor struct{ own []string }

func (r redactor) saved(ex *exchange) saved {
	var s saved
	if ex.method != "" {
		s.Request = &savedRequest{Method: ex.method, URL: r.text(ex.url), Headers: r.headers(ex.reqHeader)}
	}
	if ex.status != 0 {
		s.Response = &savedResponse{Status: ex.status, Headers: r.headers(ex.header), Body: r.body(ex.body)}
	}
	if ex.err != nil {
		s.Error = r.text(ex.err.Error())
	}
	return s
}

// headers returns a copy of h with the credential headers' values replaced, and the secrets
// in the others (not their digits: a header's epoch seconds are no phone number).
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
			kept[i] = r.secrets(v)
		}
		out[r.secrets(k)] = kept
	}
	return out
}

// The shapes of a secret in text: an API secret (up to a character that cannot be in one), a
// Bearer or Basic credential, a JWT; and a run of digits, a phone number when it has 10 to 15
// and stands alone.
var (
	secretShape = regexp.MustCompile(`(?i)sk_(?:live|test)_[^\s"'<>&,;]*|(?i)\b(?:bearer|basic)\s+[^\s"'<>&,;]+|eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`)
	digitRun    = regexp.MustCompile(`\+?[0-9]+`)
)

// secrets replaces the run's own secrets and whatever is shaped like one.
func (r redactor) secrets(s string) string {
	for _, o := range r.own {
		s = strings.ReplaceAll(s, o, Redacted)
	}
	return secretShape.ReplaceAllString(s, Redacted)
}

// text replaces secrets and phone numbers: runs of 10 to 15 digits (after an optional +) that
// stand alone, not inside an ID of letters and digits.
func (r redactor) text(s string) string {
	s = r.secrets(s)
	var b strings.Builder
	last := 0
	for _, m := range digitRun.FindAllStringIndex(s, -1) {
		i, j := m[0], m[1]
		n := j - i - strings.Count(s[i:j], "+")
		if n < 10 || n > 15 || i > 0 && word(s[i-1]) || j < len(s) && word(s[j]) {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(Redacted)
		last = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func word(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// body returns a JSON body redacted, its members in their order, or any other body as a JSON
// string, redacted; nil for an empty body.
func (r redactor) body(b []byte) json.RawMessage {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if json.Valid(b) {
		var out bytes.Buffer
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if r.value(dec, &out) == nil {
			return out.Bytes()
		}
	}
	out, _ := json.Marshal(r.text(string(b))) // a string always marshals
	return out
}

// value copies one JSON value from dec to out, redacted.
func (r redactor) value(dec *json.Decoder, out *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		end := byte('}')
		if t == '[' {
			end = ']'
		}
		out.WriteByte(byte(t))
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			if t == '{' {
				name, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := name.(string)
				writeString(out, r.text(k))
				out.WriteByte(':')
				if hidden(k) { // the whole value, whatever it is
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return err
					}
					writeString(out, Redacted)
					continue
				}
			}
			if err := r.value(dec, out); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		out.WriteByte(end)
	case string:
		writeString(out, r.text(t))
	case json.Number:
		out.WriteString(t.String())
	case bool:
		fmt.Fprint(out, t)
	case nil:
		out.WriteString("null")
	}
	return nil
}

// hidden reports whether a member's whole value is redacted: a secret, a pin, a token, a
// password, or a phone number, by its name.
func hidden(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "pin", "to", "msisdn", "phone", "phone_number", "phonenumber", "recipient":
		return true
	}
	return strings.HasSuffix(n, "secret") || strings.HasSuffix(n, "token") || strings.HasSuffix(n, "password")
}

func writeString(out *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // a string always marshals
	out.Write(b)
}
