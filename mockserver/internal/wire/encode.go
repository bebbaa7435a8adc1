package wire

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
)

// bytesPool holds buffers for appending JSON to.
var bytesPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// Buffer returns a pooled buffer to append JSON to; Release gives it back.
func Buffer() *[]byte { return bytesPool.Get().(*[]byte) }

// Release gives back a buffer from Buffer; nothing may use it afterwards.
func Release(b *[]byte) { bytesPool.Put(b) }

// Appender is an answer that writes its own JSON: the bytes encoding/json writes for its
// shape, without reflection. One answer does (httpapi's campaign list).
type Appender interface {
	AppendJSON(dst []byte) []byte
}

// Append appends v's JSON to dst, as encoding/json writes it without escaping HTML, and
// without a trailing newline; an Appender writes its own.
func Append(dst []byte, v any) ([]byte, error) {
	if a, ok := v.(Appender); ok {
		return a.AppendJSON(dst), nil
	}
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// chunkingSize is how much of an answer whose length is not declared net/http buffers before
// it sends it in chunks.
const chunkingSize = 2048

// WriteBody writes body, a JSON object, with requestId added as its last member. body is
// not changed.
func WriteBody(w http.ResponseWriter, status int, requestID string, body []byte) {
	p := Buffer()
	defer Release(p)
	*p = append((*p)[:0], body...)
	WriteBuffer(w, status, requestID, p)
}

// WriteBuffer is WriteBody of the JSON object in *p, a buffer from Buffer, adding requestId
// in place rather than copying the answer: *p is changed.
func WriteBuffer(w http.ResponseWriter, status int, requestID string, p *[]byte) {
	b := (*p)[:len(*p)-1] // the closing brace
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = append(b, `"requestId":"`...)
	b = append(b, requestID...)
	b = append(b, "\"}\n"...)
	*p = b
	h := w.Header()
	h["Content-Type"] = jsonType
	if len(b) > chunkingSize {
		// Declared, so that the body goes out as it is rather than in chunks, with one write
		// less; net/http declares a shorter one itself.
		h.Set("Content-Length", strconv.Itoa(len(b)))
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// jsonType is the Content-Type header's value of every answer, shared rather than made for
// each: net/http copies a handler's header values when it writes them.
var jsonType = []string{"application/json"}

// encodeFailure is the body written when an answer cannot be encoded.
const encodeFailure = `{"error":{"code":"server_error","message":"Could not encode the response."}}`

// WriteJSON encodes v and writes it with requestId; an answer that cannot be encoded is a 500.
func WriteJSON(w http.ResponseWriter, status int, requestID string, v any) {
	p := Buffer()
	defer Release(p)
	body, err := Append((*p)[:0], v)
	*p = body
	if err != nil {
		*p, status = append((*p)[:0], encodeFailure...), http.StatusInternalServerError
	}
	WriteBuffer(w, status, requestID, p)
}

// --- the shapes every answer shares ------------------------------------------------------------

// Data is an answer of one item.
type Data struct {
	Data any `json:"data"`
}

// List is an answer of a whole list.
type List struct {
	Data  any `json:"data"`
	Count int `json:"count"`
}

// Page is an answer of one page of a list.
type Page struct {
	Data       any        `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// NewPage is page page (limit per page) of a list of total items, which holds data.
func NewPage(data any, page, limit, total int) Page {
	return Page{Data: data, Pagination: Pagination{Page: page, Limit: limit, Total: total}}
}

// NairaNumber is kobo as a JSON number of naira, for the answers a client reads most (a
// campaign listed, a send's answer): encoding/json writes a json.Number as it is, where it
// calls Naira's MarshalJSON and then checks and compacts what it returns.
func NairaNumber(kobo int64) json.Number { return json.Number(rules.FormatNaira(kobo)) }

// Pagination says which page a Page is.
type Pagination struct {
	Page  int `json:"page"`
	Limit int `json:"limit"`
	Total int `json:"total"`
}

// Time is unix nanoseconds as a UTC time.
func Time(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// OptTime is Time, or nil for 0.
func OptTime(ns int64) *time.Time {
	if ns == 0 {
		return nil
	}
	t := Time(ns)
	return &t
}

// OptString is s, or nil for "".
func OptString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
