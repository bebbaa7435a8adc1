package mockserver

import (
	"encoding/hex"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// bytesPool holds buffers for appending JSON to.
var bytesPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// Hand-written JSON encoding for the hot paths. Each encoder writes exactly the bytes
// encoding/json writes for the same wire struct (encode_test.go proves it on random values).

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string exactly as encoding/json writes it: invalid UTF-8
// becomes \ufffd, U+2028 and U+2029 are escaped, and with escapeHTML so are <, > and &.
func appendString(dst []byte, s string, escapeHTML bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!escapeHTML || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsonAppender is a handler's answer that writes its own JSON, byte for byte what
// encoding/json writes for its wire struct, without reflection.
type jsonAppender interface {
	appendJSON(dst []byte) []byte
}

// campaignPage is the answer of GET /v1/sms/campaigns: pageBody of campaignJSON.
type campaignPage struct {
	campaigns []campaign
	page      pagination
}

func (p *campaignPage) appendJSON(b []byte) []byte {
	b = append(b, `{"data":[`...)
	for i := range p.campaigns {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCampaign(b, &p.campaigns[i])
	}
	b = append(b, `],"pagination":`...)
	return appendPagination(b, p.page)
}

func appendPagination(b []byte, p pagination) []byte {
	b = append(b, `{"page":`...)
	b = strconv.AppendInt(b, int64(p.Page), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(p.Limit), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(p.Total), 10)
	return append(b, "}}"...)
}

// appendCampaign writes campaignOut(c).
func appendCampaign(b []byte, c *campaign) []byte {
	b = append(b, `{"_id":"`...)
	b = hex.AppendEncode(b, c.id[:])
	b = append(b, `","senderId":`...)
	b = appendString(b, c.senderID, false)
	b = append(b, `,"recipientCount":`...)
	b = strconv.AppendInt(b, int64(c.total()), 10)
	b = append(b, `,"amount":`...)
	b = appendNaira(b, c.amount)
	b = append(b, `,"status":"`...)
	b = append(b, campaignStatusNames[c.status]...)
	b = append(b, `","currency":"NGN","channel":"`...)
	b = append(b, channelNames[c.channel]...)
	b = append(b, `","smsParts":`...)
	b = strconv.AppendInt(b, int64(c.parts), 10)
	b = append(b, `,"messageId":`...)
	if c.hasMessageID() {
		b = append(b, `"msg_`...)
		b = hex.AppendEncode(b, c.id[:])
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"reference":`...)
	if c.reference != "" {
		b = appendString(b, c.reference, false)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"createdAt":"`...)
	b = timeOf(c.createdAt).AppendFormat(b, time.RFC3339Nano)
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

// sentAnswer is the answer of POST /v1/sms/send and /v1/sms/campaigns: sendResponse.
type sentAnswer struct{ c *campaign }

func (a sentAnswer) appendJSON(b []byte) []byte {
	c := a.c
	b = append(b, `{"message":"SMS request accepted.","campaign":{"id":"`...)
	b = hex.AppendEncode(b, c.id[:])
	b = append(b, `","status":"`...)
	b = append(b, campaignStatusNames[c.status]...)
	b = append(b, `","message_id":`...)
	if c.hasMessageID() {
		b = append(b, `"msg_`...)
		b = hex.AppendEncode(b, c.id[:])
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"recipients":`...)
	b = strconv.AppendInt(b, int64(len(c.recipients)), 10)
	b = append(b, `,"amount":`...)
	b = appendNaira(b, c.amount)
	b = append(b, `,"currency":"NGN","sms_parts":`...)
	b = strconv.AppendInt(b, int64(c.parts), 10)
	return append(b, "}}"...)
}
