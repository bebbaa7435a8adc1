// Package reqlog keeps the newest requests the mock received, for GET /_mock/requests and
// Server.Requests, with every secret redacted: key secrets, tokens, OTP pins, anything shaped
// like them.
//
// It is a leaf: it imports nothing of the mock's.
package reqlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/seedsms/sms-go/internal/safetext"
)

// Record is a request as the log keeps it: the facade's mockserver.RecordedRequest, which
// documents what is redacted.
type Record struct {
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

// Redacted replaces every secret.
const Redacted = safetext.Redacted

// Redact is Redacted in place of a secret that is there, and "" for one that is not.
func Redact(s string) string {
	if s == "" {
		return ""
	}
	return Redacted
}

// FormatRedacted writes s, the redacted form of a value, for any verb: as a string for the
// verbs of strings (with their flags and width), as it is for the others. A Format method
// that calls it keeps every verb (%d, %t, %x, ...) away from the secrets.
func FormatRedacted(f fmt.State, verb rune, s string) {
	switch verb {
	case 's', 'q', 'x', 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), s)
	default: // v, and every verb that means nothing for a string: d, t, ...
		_, _ = io.WriteString(f, s)
	}
}

// What the log keeps of one request: a body up to maxRecordedBody (a longer one is recorded
// as a note) and headers up to maxRecordedHeaders bytes (names and values). With the ring's
// 1,000 entries the log holds at most about 25 MB.
const (
	maxRecordedBody    = 16 << 10
	maxRecordedHeaders = 8 << 10
)

// DefaultSize is how many requests a log keeps unless told otherwise.
const DefaultSize = 1000

// Log keeps the newest requests in a ring. It is safe for concurrent use.
type Log struct {
	mu    sync.Mutex
	ring  []Record
	next  int
	count int
}

// New returns a log of the newest size requests.
func New(size int) *Log {
	return &Log{ring: make([]Record, size)}
}

// Add records a request answered with status, with its id, its time and its body as read.
// The header map and the body are kept as they came (nothing may write to either once the
// request is served) and redacted when read: recording stays cheap.
func (l *Log) Add(r *http.Request, id string, at time.Time, body []byte, status int) {
	if len(l.ring) == 0 {
		return
	}
	h, truncated := capHeaders(r.Header)
	rec := Record{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status,
		RequestID: id, Time: at, Headers: h, HeadersTruncated: truncated, Body: keptBody(body),
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ring[l.next] = rec
	l.next = (l.next + 1) % len(l.ring)
	l.count = min(l.count+1, len(l.ring))
}

// Snapshot returns the kept requests as recorded (headers, query and body not yet redacted),
// oldest first, for WriteJSON, which redacts them as it writes, or for Redacted.
func (l *Log) Snapshot() []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Record, 0, l.count)
	start := (l.next - l.count + len(l.ring)) % max(len(l.ring), 1)
	for i := range l.count {
		out = append(out, l.ring[(start+i)%len(l.ring)])
	}
	return out
}

// All returns the kept requests, oldest first, redacted.
func (l *Log) All() []Record {
	out := l.Snapshot()
	for i := range out {
		out[i] = out[i].Redacted()
	}
	return out
}

// Redacted returns a copy of rec fit to show: its own header map and body, and every secret
// replaced wherever it is, a path segment, a query parameter's name or value, a header's name
// or value, a body's member or text.
//
// A secret is what the module's one rule finds (internal/safetext): anything shaped like an
// API secret, a Bearer or Basic credential or a JWT (or a segment of one), a body member or a
// query parameter whose name says it holds a secret or a pin (api_secret, api_key, secret,
// token, pin, otp, otp_code, ...: its whole value), and the request's own credentials (its
// X-API-Secret, the credential of its Authorization) whatever their shape: whole, without
// their sk_ prefix, or any piece of 8 characters or more (a secret split over two query
// values or two header values, or cut in shorter pieces with spaces between), base64- or
// %-encoded (once or more), also inside a body's text; and any run of 32 or more letters and
// digits mixing upper case, lower case and digits (a secret the mock made, anyone's, without
// its prefix).
func (rec Record) Redacted() Record {
	own := credentials(rec.Headers)
	r := safetext.New(safetext.Config{Secrets: own, RandomRuns: true})
	rec.Path = redactPath(rec.Path, own, r)
	rec.Query = redactQuery(rec.Query, r)
	rec.Headers = redactHeaders(rec.Headers, r)
	rec.Body = redactBody(rec.Body, r)
	return rec
}

// minCredential is the shortest credential searched for as it is: a shorter one (never one
// the mock issues) would redact ordinary text.
const minCredential = 8

// credentials returns the request's own secrets, from its headers: what no log may show,
// whatever its shape.
func credentials(h map[string][]string) []string {
	var out []string
	for k, vs := range h {
		switch http.CanonicalHeaderKey(k) {
		case "X-Api-Secret", "Authorization", "Proxy-Authorization":
		default:
			continue
		}
		for _, v := range vs {
			v = strings.TrimSpace(v)
			if _, cred, ok := strings.Cut(v, " "); ok && http.CanonicalHeaderKey(k) != "X-Api-Secret" {
				v = strings.TrimSpace(cred) // "Bearer <token>": the token
			}
			if len(v) >= minCredential {
				out = append(out, v)
			}
		}
	}
	return out
}

// isSecret reports whether v holds a secret by r's rule.
func isSecret(v string, r *safetext.Redactor) bool { return r.Secrets(v) != v }

// looksSecret reports whether v holds something shaped like a secret, whoever's it is.
func looksSecret(v string) bool { return isSecret(v, shapes) }

// shapes is the rule without credentials of a request: the shapes of secrets alone.
var shapes = safetext.New(safetext.Config{RandomRuns: true})

// redactPath replaces each segment of path that holds a secret. One of own that spans
// segments is replaced first, as it is.
func redactPath(path string, own []string, r *safetext.Redactor) string {
	for _, c := range own {
		path = strings.ReplaceAll(path, c, Redacted)
	}
	if !isSecret(path, r) {
		return path
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if isSecret(s, r) {
			segs[i] = Redacted
		}
	}
	return strings.Join(segs, "/")
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

// redactHeaders returns a copy of h with the credential headers' values, every value that
// holds a secret or whose name says it is one, and every name that holds one (all under the
// name Redacted) replaced. X-Api-Key is the API's public key, shown.
func redactHeaders(h map[string][]string, r *safetext.Redactor) map[string][]string {
	out := make(map[string][]string, len(h))
	for k, v := range h {
		name := k
		if isSecret(k, r) {
			name = Redacted
		}
		switch ck := http.CanonicalHeaderKey(k); {
		case ck == "X-Api-Secret", ck == "Authorization", ck == "Cookie", ck == "Proxy-Authorization",
			ck != "X-Api-Key" && safetext.Hidden(k):
			out[name] = append(out[name], Redacted)
			continue
		}
		vs := make([]string, len(v))
		for i, x := range v {
			if isSecret(x, r) {
				x = Redacted
			}
			vs[i] = x
		}
		out[name] = append(out[name], vs...)
	}
	return out
}

// redactQuery replaces the query's names and values that hold a secret (the values of all
// such names under the one name Redacted), and the values of a name that says it is a secret;
// a query in which a secret spans names, values and their separators is Redacted whole.
func redactQuery(raw string, r *safetext.Redactor) string {
	if raw == "" {
		return raw
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return Redacted // not a query anyone can read: nothing of it can be vouched for
	}
	found := false
	for k, vs := range q {
		hidden := safetext.Hidden(k)
		for i, v := range vs {
			if hidden && v != "" || isSecret(v, r) {
				vs[i], found = Redacted, true
			}
		}
		if isSecret(k, r) {
			delete(q, k)
			q[Redacted], found = append(q[Redacted], vs...), true
		}
	}
	out := raw
	if found {
		out = q.Encode()
	}
	// A secret may span what the query's parts hold, in the query as written or in the form
	// it is written again in (a name without a value gains "="): then nothing of it is shown.
	if dec, err := url.QueryUnescape(out); isSecret(out, r) || err == nil && isSecret(dec, r) {
		return Redacted
	}
	return out
}

// WriteJSON streams records from Snapshot as {"data": [...], "requestId"}: one item encoded at
// a time, redacted as it goes, so that concurrent readers of a full log do not each build it
// whole. The envelope is written token by token by jsontext, each record by encoding/json.
func WriteJSON(w http.ResponseWriter, status int, requestID string, recs []Record) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	bw := bufio.NewWriterSize(w, 32<<10)
	out := jsontext.NewEncoder(bw, jsontext.PreserveRawStrings(true)) // the records as encoding/json escapes them
	var item bytes.Buffer
	enc := json.NewEncoder(&item)
	enc.SetEscapeHTML(false)
	// A write that fails (the client went away) fails every later one: what was sent stays.
	_ = out.WriteToken(jsontext.BeginObject)
	_ = out.WriteToken(jsontext.String("data"))
	_ = out.WriteToken(jsontext.BeginArray)
	for i := range recs {
		item.Reset()
		if err := enc.Encode(recs[i].Redacted()); err != nil {
			panic(http.ErrAbortHandler) // cannot happen: every member encodes; never send half
		}
		_ = out.WriteValue(item.Bytes())
		recs[i] = Record{} // let what was sent go
	}
	_ = out.WriteToken(jsontext.EndArray)
	_ = out.WriteToken(jsontext.String("requestId"))
	_ = out.WriteToken(jsontext.String(requestID))
	_ = out.WriteToken(jsontext.EndObject)
	_ = bw.Flush()
}

// keptBody is what the log keeps of a body until it is read: the body itself (no copy: nothing
// writes to it once read; a copy only when its array is much larger than it), nil for none,
// or a note for one over maxRecordedBody.
func keptBody(b []byte) json.RawMessage {
	if len(b) > maxRecordedBody {
		return note("[body of " + strconv.Itoa(len(b)) + " bytes not kept]")
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if cap(b)-len(b) > len(b)/4+64 {
		return bytes.Clone(b)
	}
	return b[:len(b):len(b)]
}

// redactBody keeps a JSON body, its members in their order and compacted, with every secret
// redacted by r (see Record.Redacted); other bodies become a JSON string saying what they were.
func redactBody(b []byte, r *safetext.Redactor) json.RawMessage {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if len(b) > maxRecordedBody {
		return note("[body of " + strconv.Itoa(len(b)) + " bytes not kept]")
	}
	if !json.Valid(b) {
		return note("[not JSON]")
	}
	if mayHoldSecret(b) || isSecret(string(b), r) { // else the common case: the body as it came
		b = r.JSON(b) // the walker keeps a valid body valid
	}
	out := bytes.NewBuffer(make([]byte, 0, len(b)))
	if json.Compact(out, b) != nil {
		return note("[not JSON]")
	}
	return out.Bytes()
}

// note is what the log keeps in place of a body: a JSON string saying what it was.
func note(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// mayHoldSecret reports whether r.JSON could change a valid JSON body in which r.Secrets finds
// nothing: a member whose name safetext.Hidden names, or a string with an escape other than \",
// \\ and \/ (a \u could spell a secret, a \t the space of a Bearer credential). Every run of
// a decoded string that could hold a secret is in the body as it is otherwise. One pass.
func mayHoldSecret(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		start := i + 1
		for i = start; i < len(b) && b[i] != '"'; i++ {
			if b[i] == '\\' {
				if i+1 < len(b) && b[i+1] != '"' && b[i+1] != '\\' && b[i+1] != '/' {
					return true
				}
				i++ // the escaped byte, which may be a quote
			}
		}
		j := i + 1
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n') {
			j++
		}
		if j < len(b) && b[j] == ':' && safetext.Hidden(string(b[start:min(i, len(b))])) {
			return true
		}
		i = j - 1
	}
	return false
}
