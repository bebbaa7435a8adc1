package mockserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// RecordedRequest is a request the mock received, as GET /_mock/requests shows it. Secrets
// are replaced by "[REDACTED]": the values of X-API-Secret, Authorization,
// Proxy-Authorization and Cookie, any header or query value shaped like a secret or a token
// (an sk_live_ or sk_test_ secret, a Bearer or Basic credential, a JWT) whatever its name,
// and OTP pins and secrets in bodies. Headers beyond 8 KiB in all are left out, with
// HeadersTruncated set.
type RecordedRequest struct {
	Method           string              `json:"method"`
	Path             string              `json:"path"`
	Query            string              `json:"query"`
	Status           int                 `json:"status"`
	RequestID        string              `json:"requestId"`
	Time             time.Time           `json:"time"`
	Headers          map[string][]string `json:"headers"`
	HeadersTruncated bool                `json:"headersTruncated,omitempty"`
	Body             json.RawMessage     `json:"body,omitempty"`
}

const redacted = "[REDACTED]"

// What the log keeps of one request: a body up to maxRecordedBody (a longer one is recorded
// as a note) and headers up to maxRecordedHeaders bytes (names and values). With the ring's
// 1,000 entries the log holds at most about 25 MB.
const (
	maxRecordedBody    = 16 << 10
	maxRecordedHeaders = 8 << 10
)

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
	// The header map is kept as it came (nothing writes to it once the request is served)
	// and redacted when read: recording stays cheap.
	h, truncated := capHeaders(r.Header)
	rec := RecordedRequest{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status,
		RequestID: rq.id, Time: rq.now, Headers: h, HeadersTruncated: truncated, Body: redactBody(rq.body),
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ring[l.next] = rec
	l.next = (l.next + 1) % len(l.ring)
	l.count = min(l.count+1, len(l.ring))
}

// snapshot returns the kept requests as recorded (headers not yet redacted), oldest first.
func (l *requestLog) snapshot() []RecordedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]RecordedRequest, 0, l.count)
	start := (l.next - l.count + len(l.ring)) % max(len(l.ring), 1)
	for i := range l.count {
		out = append(out, l.ring[(start+i)%len(l.ring)])
	}
	return out
}

// all returns the kept requests, oldest first, redacted.
func (l *requestLog) all() []RecordedRequest {
	out := l.snapshot()
	for i := range out {
		out[i] = out[i].redacted()
	}
	return out
}

// redacted returns a copy of rec fit to show: its own header map, secrets replaced.
func (rec RecordedRequest) redacted() RecordedRequest {
	rec.Headers = redactHeaders(rec.Headers)
	rec.Query = redactQuery(rec.Query)
	return rec
}

// capHeaders returns h when its names and values fit in maxRecordedHeaders bytes, or else a
// copy with as many whole headers, in name order, as fit.
func capHeaders(h http.Header) (map[string][]string, bool) {
	n := 0
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(v)
		}
	}
	if n <= maxRecordedHeaders {
		return h, false
	}
	out := make(map[string][]string)
	n = 0
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			if n+len(k)+len(v) > maxRecordedHeaders {
				continue
			}
			n += len(k) + len(v)
			out[k] = append(out[k], v)
		}
	}
	return out, true
}

func redactHeaders(h map[string][]string) map[string][]string {
	out := make(map[string][]string, len(h))
	for k, v := range h {
		switch http.CanonicalHeaderKey(k) {
		case "X-Api-Secret", "Authorization", "Cookie", "Proxy-Authorization":
			out[k] = []string{redacted}
			continue
		}
		vs := make([]string, len(v))
		for i, x := range v {
			if looksSecret(x) {
				x = redacted
			}
			vs[i] = x
		}
		out[k] = vs
	}
	return out
}

// redactQuery replaces the query values shaped like a secret.
func redactQuery(raw string) string {
	if raw == "" {
		return raw
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return redacted // not a query anyone can read: nothing of it can be vouched for
	}
	found := false
	for _, vs := range q {
		for i, v := range vs {
			if looksSecret(v) {
				vs[i], found = redacted, true
			}
		}
	}
	if !found {
		return raw
	}
	return q.Encode()
}

// looksSecret reports whether a value holds an API secret (sk_live_, sk_test_), is a Bearer
// or Basic credential, or holds a JWT (three base64url segments, the first a JSON object).
func looksSecret(v string) bool {
	lower := strings.ToLower(v)
	if strings.Contains(lower, "sk_live_") || strings.Contains(lower, "sk_test_") {
		return true
	}
	if scheme, _, ok := strings.Cut(strings.TrimSpace(lower), " "); ok && (scheme == "bearer" || scheme == "basic") {
		return true
	}
	for i := strings.Index(v, "eyJ"); i >= 0; {
		if jwtShaped(v[i:]) {
			return true
		}
		next := strings.Index(v[i+3:], "eyJ")
		if next < 0 {
			break
		}
		i += 3 + next
	}
	return false
}

// jwtShaped reports whether s starts with base64url.base64url.base64url, the first two parts
// non-empty.
func jwtShaped(s string) bool {
	dots, run := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			run++
		case c == '.' && dots < 2 && run > 0:
			dots++
			run = 0
		default:
			return dots == 2
		}
	}
	return dots == 2
}

// writeRequests streams the log as {"data": [...], "requestId"}: one item encoded at a time,
// redacted as it goes, so that concurrent readers of a full log do not each build it whole.
func writeRequests(w http.ResponseWriter, status int, requestID string, recs []RecordedRequest) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	bw := bufio.NewWriterSize(w, 32<<10)
	bw.WriteString(`{"data":[`)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range recs {
		if i > 0 {
			bw.WriteByte(',')
		}
		if err := enc.Encode(recs[i].redacted()); err != nil {
			panic(http.ErrAbortHandler) // cannot happen: every member encodes; never send half
		}
		recs[i] = RecordedRequest{} // let what was sent go
	}
	bw.WriteString(`],"requestId":"` + requestID + "\"}\n")
	_ = bw.Flush()
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
