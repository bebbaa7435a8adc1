package sms

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// saysSomething is the reference reading of an error or errors member, independent of
// presence: null, false, 0, a blank string, {} and [] say nothing.
func saysSomething(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return true
	}
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		return strings.TrimSpace(v) != ""
	case map[string]any:
		return len(v) > 0
	case []any:
		return len(v) > 0
	}
	return true
}

// referenceFailed is envelope.failed written again from a generic decode: the body is an
// object whose members, matched ignoring case, say it is an error (see envelope.failed's
// list). ok is false for a body the reference cannot judge the same way (two members whose
// names differ only in case, which encoding/json reads in an order a map does not keep).
func referenceFailed(body []byte) (failed, ok bool) {
	body = bytes.TrimPrefix(body, []byte("\ufeff"))
	var m map[string]json.RawMessage
	if len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &m) != nil {
		return false, true
	}
	names := []string{"status", "statuscode", "success", "error", "errors", "requestid", "code", "responsecode", "response_code",
		"msg", "message", "smsstatus", "timezone"}
	seen := map[string]bool{}
	member := map[string]json.RawMessage{}
	for k, raw := range m {
		for _, name := range names {
			if strings.EqualFold(k, name) {
				if seen[name] {
					return false, false
				}
				seen[name] = true
				member[name] = raw
			}
		}
	}
	asText := func(name string) string {
		raw, ok := member[name]
		if !ok {
			return ""
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' || raw[0] == 't' || raw[0] == 'f') {
			return string(raw)
		}
		return ""
	}
	says := func(name string) bool {
		raw, ok := member[name]
		return ok && saysSomething(raw)
	}
	errorNumber := func(s string) bool { // three digits, 400 to 599
		s = strings.TrimSpace(s)
		n, err := strconv.Atoi(s)
		return len(s) == 3 && err == nil && s[0] != '+' && s[0] != '-' && n >= 400 && n <= 599
	}
	failedCode := func(code string, words bool) bool {
		code = strings.TrimSpace(code)
		if code == "" {
			return false
		}
		if n, err := strconv.Atoi(code); err == nil {
			return n != 0 && (n < 200 || n > 299)
		}
		if !words || code == "true" || code == "false" {
			return false
		}
		switch strings.ToLower(code) {
		case "ok", "success", "successful", "succeeded", "done", "accepted", "sent":
			return false
		}
		return true
	}
	status := asText("status")
	switch strings.ToLower(strings.TrimSpace(status)) {
	case "error", "fail", "failed", "failure":
		failed = true
	}
	responseCode := asText("responsecode")
	if responseCode == "" {
		responseCode = asText("response_code")
	}
	failed = failed || strings.EqualFold(status, "false") ||
		!says("smsstatus") && errorNumber(status) ||
		strings.EqualFold(asText("success"), "false") || says("error") || says("errors") ||
		errorNumber(asText("statuscode")) ||
		failedCode(responseCode, false) ||
		failedCode(asText("code"), says("msg") || says("message"))
	return failed, true
}

// FuzzBodyClassifier checks the one rule that tells a body is an error: bodyFailed agrees with
// a reference written from a generic decode, with the envelope read in the same pass as a wire
// struct's data, and a body it calls an error gives an *Error with one printable line.
func FuzzBodyClassifier(f *testing.F) {
	for _, seed := range []string{
		`{"success":false,"message":"DB timeout","data":[]}`,
		`{"status":"error","message":"Invalid API key"}`,
		`{"status":"FAILED","data":{}}`, `{"status":"200","data":{"pinId":"p"}}`, `{"status":"success"}`,
		`{"error":null,"errors":[],"success":true}`, `{"error":{},"errors":{ }}`, `{"error":0,"errors":"  "}`,
		`{"error":"\u0020"}`, `{"error":-0}`, `{"error":1e-400}`, `{"Error":"x"}`, `{"statusCode":503}`, `{"statusCode":"404 "}`,
		`{"errors":{"to":["required"]}}`, `{"errors":[{"detail":"x"}]}`, `{"success":"False"}`, "\ufeff{\"error\":true}",
		`{"data":[{"_id":"c1","status":"failed"}]}`, `[{"error":"x"}]`, `<html>`, ``,
		`{"status":false,"message":"Invalid API key","data":[]}`, `{"status":"401"}`, `{"status":"400","smsStatus":"Message Failed"}`,
		`{"responseCode":"99"}`, `{"response_code":"00"}`, `{"code":"E01","msg":"x"}`, `{"Code":"1"}`, `{"code":"True","message":"m"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := bodyFailed(body)
		if want, ok := referenceFailed(body); ok && got != want {
			t.Fatalf("bodyFailed(%q) = %v, the reference says %v", body, got, want)
		}
		var out struct {
			envelope
			Data json.RawMessage `json:"data"`
		}
		if trimmed := bytes.TrimPrefix(body, utf8BOM); json.Unmarshal(trimmed, &out) == nil && len(trimmed) > 0 && trimmed[0] == '{' {
			if out.failed() != got {
				t.Fatalf("%q: read with the data %v, alone %v", body, out.failed(), got)
			}
		}
		if !got {
			return
		}
		err := apiError(http.StatusOK, http.Header{}, bytes.TrimPrefix(body, utf8BOM))
		var e *Error
		if !errors.As(err, &e) || e.StatusCode != http.StatusOK || !e.inBody {
			t.Fatalf("%q: %T %v", body, err, err)
		}
		checkLine(t, err.Error())
	})
}

// checkLine fails unless s is one printable line of valid UTF-8, of bounded length.
func checkLine(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r\x1b\x00") || len(s) > 4096 {
		t.Fatalf("not one printable line: %q", s)
	}
}

// FuzzErrorReader reads arbitrary error bodies under any error status, and the server's
// words written in every shape the reader knows: it never panics, always gives an *Error of
// that status with a code and one printable line, and keeps the words.
func FuzzErrorReader(f *testing.F) {
	f.Add(400, []byte(`{"statusCode":400,"message":["to must be a phone number"],"error":"Bad Request"}`), "IP address not whitelisted.")
	f.Add(403, []byte(`{"type":"about:blank","title":"Forbidden","status":403,"detail":"no"}`), "Invalid API key")
	f.Add(422, []byte(`{"errors":{"to":["required"],"from":"short"}}`), "The pin has expired.")
	f.Add(502, []byte(`<html>Bad Gateway</html>`), "line\nbreak\x1b[2J")
	f.Add(401, []byte(`{"error":{"code":401,"message":{"x":1}}}`), "Unauthorized")
	f.Fuzz(func(t *testing.T, status int, body []byte, words string) {
		if status < 0 {
			status = -status
		}
		status = 400 + status%200
		read := func(body []byte) *Error {
			err := apiError(status, http.Header{}, body)
			var e *Error
			if !errors.As(err, &e) || e.StatusCode != status || e.Code == "" {
				t.Fatalf("%d %q: %T %v", status, body, err, err)
			}
			checkLine(t, err.Error())
			return e
		}
		read(body)
		w, err := json.Marshal(words)
		if err != nil || strings.TrimSpace(words) == "" || isStatusText(words) || !utf8.ValidString(words) {
			return
		}
		q := string(w)
		for _, shape := range []string{
			`{"error":{"code":"x","message":` + q + `}}`, `{"error":` + q + `}`, `{"message":` + q + `}`,
			`{"statusCode":400,"message":["first",` + q + `],"error":"Bad Request"}`,
			`{"type":"about:blank","title":"Forbidden","detail":` + q + `}`,
			`{"errors":[` + q + `]}`, `{"errors":[{"status":"422","detail":` + q + `}]}`, `{"errors":{"to":[` + q + `]}}`,
			`{"error":"invalid_request","error_description":` + q + `}`,
		} {
			if e := read([]byte(shape)); !strings.Contains(e.Message, words) {
				t.Fatalf("%s: the words are lost: %q", shape, e.Message)
			}
		}
	})
}
