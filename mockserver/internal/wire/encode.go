package wire

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/seedsms/sms-go/internal/jsonenc"
	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// bytesPool holds buffers for appending JSON to.
var bytesPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// Buffer returns a pooled buffer to append JSON to; Release gives it back.
func Buffer() *[]byte { return bytesPool.Get().(*[]byte) }

// Release gives back a buffer from Buffer; nothing may use it afterwards.
func Release(b *[]byte) { bytesPool.Put(b) }

// Hand-written JSON encoding for the hot paths. Each encoder writes exactly the bytes
// encoding/json writes for the same wire struct (encode_test.go proves it on random values).

// Appender is an answer that writes its own JSON, byte for byte what encoding/json writes
// for its wire struct, without reflection.
type Appender interface {
	AppendJSON(dst []byte) []byte
}

// Append appends v's JSON, an object, to dst, without a trailing newline and without
// escaping HTML: by hand for an Appender, with encoding/json otherwise.
func Append(dst []byte, v any) ([]byte, error) {
	if a, ok := v.(Appender); ok {
		return a.AppendJSON(dst), nil
	}
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimRight(buf.Bytes(), "\n")...), nil
}

// CampaignPage is the answer of GET /v1/sms/campaigns: Page of CampaignJSON.
type CampaignPage struct {
	Campaigns  []store.Campaign
	Pagination Pagination
}

// AppendJSON writes Page{CampaignOut of each campaign, p.Pagination}.
func (p *CampaignPage) AppendJSON(b []byte) []byte {
	b = append(b, `{"data":[`...)
	for i := range p.Campaigns {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCampaign(b, &p.Campaigns[i])
	}
	b = append(b, `],"pagination":`...)
	return appendPagination(b, p.Pagination)
}

func appendPagination(b []byte, p Pagination) []byte {
	b = append(b, `{"page":`...)
	b = strconv.AppendInt(b, int64(p.Page), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(p.Limit), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(p.Total), 10)
	return append(b, "}}"...)
}

// appendCampaign writes CampaignOut(c).
func appendCampaign(b []byte, c *store.Campaign) []byte {
	b = append(b, `{"_id":"`...)
	b = hex.AppendEncode(b, c.ID[:])
	b = append(b, `","senderId":`...)
	b = jsonenc.AppendString(b, c.SenderID, false)
	b = append(b, `,"recipientCount":`...)
	b = strconv.AppendInt(b, int64(c.Total()), 10)
	b = append(b, `,"amount":`...)
	b = appendNaira(b, c.Amount)
	b = append(b, `,"status":"`...)
	b = append(b, c.Status.String()...)
	b = append(b, `","currency":"NGN","channel":"`...)
	b = append(b, c.Channel.String()...)
	b = append(b, `","smsParts":`...)
	b = strconv.AppendInt(b, int64(c.Parts), 10)
	b = append(b, `,"messageId":`...)
	if c.HasMessageID() {
		b = append(b, '"')
		b = c.ID.AppendMessageID(b)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"reference":`...)
	if c.Reference != "" {
		b = jsonenc.AppendString(b, c.Reference, false)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"createdAt":"`...)
	b = AppendTime(b, c.CreatedAt)
	return append(b, `"}`...)
}

// appendNaira writes kobo as rules.FormatNaira does: naira with two decimals.
func appendNaira(b []byte, kobo int64) []byte {
	u := uint64(kobo)
	if kobo < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/100, 10)
	frac := u % 100
	return append(b, '.', byte('0'+frac/10), byte('0'+frac%10))
}

// SentAnswer is the answer of POST /v1/sms/send and /v1/sms/campaigns.
type SentAnswer struct{ Campaign *store.Accepted }

// AppendJSON writes the answer.
func (a SentAnswer) AppendJSON(b []byte) []byte {
	c := a.Campaign
	b = append(b, `{"message":"SMS request accepted.","campaign":{"id":"`...)
	b = hex.AppendEncode(b, c.ID[:])
	b = append(b, `","status":"`...)
	b = append(b, c.Status.String()...)
	b = append(b, `","message_id":`...)
	if c.HasMessageID() {
		b = append(b, '"')
		b = c.ID.AppendMessageID(b)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"recipients":`...)
	b = strconv.AppendInt(b, int64(c.Recipients), 10)
	b = append(b, `,"amount":`...)
	b = appendNaira(b, c.Amount)
	b = append(b, `,"currency":"NGN","sms_parts":`...)
	b = strconv.AppendInt(b, int64(c.Parts), 10)
	return append(b, "}}"...)
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

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

// CampaignJSON is a campaign as the API lists it.
type CampaignJSON struct {
	ID             string      `json:"_id"`
	SenderID       string      `json:"senderId"`
	RecipientCount int         `json:"recipientCount"`
	Amount         json.Number `json:"amount"`
	Status         string      `json:"status"`
	Currency       string      `json:"currency"`
	Channel        string      `json:"channel"`
	SMSParts       int         `json:"smsParts"`
	MessageID      *string     `json:"messageId"`
	Reference      *string     `json:"reference"`
	CreatedAt      string      `json:"createdAt"` // RFC 3339, formatted here: cheaper than time.Time's MarshalJSON
}

// NairaNumber is kobo as a JSON number of naira. On hot paths it is cheaper than Naira, whose
// MarshalJSON output encoding/json checks and compacts again.
func NairaNumber(kobo int64) json.Number { return json.Number(rules.FormatNaira(kobo)) }

// CampaignOut is c as the API lists it.
func CampaignOut(c *store.Campaign) CampaignJSON {
	out := CampaignJSON{
		ID: c.ID.String(), SenderID: c.SenderID, RecipientCount: c.Total(),
		Amount: NairaNumber(c.Amount), Status: c.Status.String(), Currency: "NGN",
		Channel: c.Channel.String(), SMSParts: int(c.Parts), Reference: OptString(c.Reference),
		CreatedAt: Time(c.CreatedAt).Format(time.RFC3339Nano),
	}
	if c.HasMessageID() {
		out.MessageID = OptString(c.MessageID())
	}
	return out
}
