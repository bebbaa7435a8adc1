package mockserver

import (
	"encoding/hex"
	"strconv"
	"sync"
	"time"

	"github.com/seedsms/sms-go/internal/jsonenc"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// bytesPool holds buffers for appending JSON to.
var bytesPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// Hand-written JSON encoding for the hot paths. Each encoder writes exactly the bytes
// encoding/json writes for the same wire struct (encode_test.go proves it on random values).
// jsonAppender is a handler's answer that writes its own JSON, byte for byte what
// encoding/json writes for its wire struct, without reflection.
type jsonAppender interface {
	appendJSON(dst []byte) []byte
}

// campaignPage is the answer of GET /v1/sms/campaigns: pageBody of campaignJSON.
type campaignPage struct {
	campaigns []store.Campaign
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
		b = append(b, `"msg_`...)
		b = hex.AppendEncode(b, c.ID[:])
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
	b = timeOf(c.CreatedAt).AppendFormat(b, time.RFC3339Nano)
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

// sentAnswer is the answer of POST /v1/sms/send and /v1/sms/campaigns.
type sentAnswer struct{ c *store.Accepted }

func (a sentAnswer) appendJSON(b []byte) []byte {
	c := a.c
	b = append(b, `{"message":"SMS request accepted.","campaign":{"id":"`...)
	b = hex.AppendEncode(b, c.ID[:])
	b = append(b, `","status":"`...)
	b = append(b, c.Status.String()...)
	b = append(b, `","message_id":`...)
	if c.HasMessageID() {
		b = append(b, `"msg_`...)
		b = hex.AppendEncode(b, c.ID[:])
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
