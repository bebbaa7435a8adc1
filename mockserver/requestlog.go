package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"
)

// RecordedRequest is a request the mock received, as GET /_mock/requests shows it. Secrets
// (X-API-Secret, Authorization) and OTP pins are replaced by "[REDACTED]".
type RecordedRequest struct {
	Method    string              `json:"method"`
	Path      string              `json:"path"`
	Query     string              `json:"query"`
	Status    int                 `json:"status"`
	RequestID string              `json:"requestId"`
	Time      time.Time           `json:"time"`
	Headers   map[string][]string `json:"headers"`
	Body      json.RawMessage     `json:"body,omitempty"`
}

const redacted = "[REDACTED]"

// maxRecordedBody is how much of a body is kept; longer bodies are recorded as a note.
const maxRecordedBody = 16 << 10

// requestLog keeps the newest size requests in a ring.
type requestLog struct {
	mu    sync.Mutex
	ring  []RecordedRequest
	next  int
	count int
}

func newRequestLog(size int) *requestLog {
	return &requestLog{ring: make([]RecordedRequest, size)}
}

func (l *requestLog) add(rq *request, status int) {
	if len(l.ring) == 0 {
		return
	}
	r := rq.r
	rec := RecordedRequest{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status,
		RequestID: rq.id, Time: rq.now, Headers: redactHeaders(r.Header), Body: redactBody(rq.body),
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ring[l.next] = rec
	l.next = (l.next + 1) % len(l.ring)
	l.count = min(l.count+1, len(l.ring))
}

// all returns the kept requests, oldest first.
func (l *requestLog) all() []RecordedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]RecordedRequest, 0, l.count)
	start := (l.next - l.count + len(l.ring)) % max(len(l.ring), 1)
	for i := range l.count {
		out = append(out, l.ring[(start+i)%len(l.ring)])
	}
	return out
}

func redactHeaders(h http.Header) map[string][]string {
	out := make(map[string][]string, len(h))
	for k, v := range h {
		switch http.CanonicalHeaderKey(k) {
		case "X-Api-Secret", "Authorization", "Cookie", "Proxy-Authorization":
			out[k] = []string{redacted}
		default:
			out[k] = append([]string(nil), v...)
		}
	}
	return out
}

// redactBody keeps a JSON body with any "pin" member redacted; other bodies become a JSON
// string saying what they were.
func redactBody(b []byte) json.RawMessage {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if len(b) > maxRecordedBody {
		return json.RawMessage(`"[body of ` + itoa(len(b)) + ` bytes not kept]"`)
	}
	if !json.Valid(b) {
		return json.RawMessage(`"[not JSON]"`)
	}
	if !mayHoldSecret(b) { // the common case: keep the body as it came, compacted
		var out bytes.Buffer
		if json.Compact(&out, b) == nil {
			return out.Bytes()
		}
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return json.RawMessage(`"[not JSON]"`)
	}
	redactPins(v)
	out, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`"[not JSON]"`)
	}
	return out
}

// mayHoldSecret reports whether a JSON body might have a member that redactPins redacts: one
// named pin or secret in any case, or any escaped name, which could spell either.
func mayHoldSecret(b []byte) bool {
	lower := bytes.ToLower(b)
	return bytes.Contains(lower, []byte(`"pin"`)) || bytes.Contains(lower, []byte(`"secret"`)) ||
		bytes.Contains(b, []byte(`\u`))
}

func redactPins(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if strings.EqualFold(k, "pin") || strings.EqualFold(k, "secret") {
				t[k] = redacted
				continue
			}
			redactPins(x)
		}
	case []any:
		for _, x := range t {
			redactPins(x)
		}
	}
}
