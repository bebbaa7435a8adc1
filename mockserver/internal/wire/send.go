package wire

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// SendFields are the members POST /v1/sms/send and /v1/sms/campaigns share.
type SendFields struct {
	To        jsontext.Value `json:"to"`
	From      *string        `json:"from"`
	Message   *string        `json:"message"`
	Channel   *string        `json:"channel"`
	Reference *string        `json:"reference"`
}

// DecodeSend decodes a send or campaign body strictly (Decode), for the idempotency check,
// which hands what it decoded on to the handler (ReadSend).
func DecodeSend(body []byte) (*SendFields, *Error) {
	f := new(SendFields)
	if e := Decode(body, f); e != nil {
		return nil, e
	}
	return f, nil
}

// ReadSend returns the members and recipients of a send (campaign false) or campaign body:
// those of f, the body already decoded by DecodeSend, or when f is nil, of the body decoded
// now; or what is wrong with it in the contract's words.
func ReadSend(f *SendFields, body []byte, campaign bool) (SendFields, []store.Target, error) {
	if f == nil {
		var e *Error
		if f, e = DecodeSend(body); e != nil {
			return SendFields{}, nil, e
		}
	}
	var targets []store.Target
	var err error
	if campaign {
		targets, err = parseCampaignTo(f.To)
	} else {
		targets, err = parseSendTo(f.To)
	}
	return *f, targets, err
}

// Fingerprint is the fingerprint of a send decoded by DecodeSend: the SHA-256 of path and
// its members in the order of their names, each given or not and of a given length, to in
// its canonical form (RFC 8785). Two bodies with the same members have the same one,
// whatever their layout; it is not the Fingerprint of the body (a body that does not decode
// has no members to compare), and need not be: a body that decodes is never the same
// request as one that does not.
func (f *SendFields) Fingerprint(path string) [32]byte {
	p := Buffer()
	defer Release(p)
	b := append((*p)[:0], path...)
	for _, v := range [...]*string{f.Channel, f.From, f.Message, f.Reference} {
		if v == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(*v)))
		b = append(b, *v...)
	}
	start := len(b)
	b = append(b, f.To...)
	to := jsontext.Value(b[start:])
	_ = to.Canonicalize() // it decoded: it has a canonical form
	b = append(b[:start], to...)
	*p = b
	return sha256.Sum256(b)
}

// parseSendTo reads POST /v1/sms/send's to: a number or an array of 1 to 100 numbers.
func parseSendTo(raw jsontext.Value) ([]store.Target, error) {
	if len(raw) == 0 {
		return nil, errorf("to", "to is required.")
	}
	var one string
	if raw.Kind() == '"' && json.Unmarshal(raw, &one) == nil {
		p, err := store.ParsePhone("to", one)
		if err != nil {
			return nil, err
		}
		return []store.Target{{Phone: p}}, nil
	}
	var many []jsontext.Value
	if raw.Kind() != '[' || json.Unmarshal(raw, &many) != nil {
		return nil, errorf("to", "to must be a phone number or an array of phone numbers.")
	}
	if len(many) == 0 || len(many) > rules.MaxSendRecipients {
		return nil, errorf("to", "to must hold 1 to %d numbers.", rules.MaxSendRecipients)
	}
	b := newTargets(len(many))
	for i, item := range many {
		field := "to[" + strconv.Itoa(i) + "]"
		var n string
		if item.Kind() != '"' || json.Unmarshal(item, &n) != nil {
			return nil, errorf(field, "%s must be a phone number string.", field)
		}
		p, err := store.ParsePhone(field, n)
		if err != nil {
			return nil, err
		}
		b.add(p, "", i)
	}
	return b.list, nil
}

// parseCampaignTo reads POST /v1/sms/campaigns' to: 1 to 10,000 numbers or {phone, name}.
// A to of the shapes senders write (strings, and objects of a string phone and a string name)
// is read in one pass of the library's decoder (campaignItem); any other, and any to with a
// fault, is read again by readCampaignTo, which says what is wrong in the contract's words.
func parseCampaignTo(raw jsontext.Value) ([]store.Target, error) {
	if targets, ok := fastCampaignTo(raw); ok {
		return targets, nil
	}
	return readCampaignTo(raw)
}

// fastCampaignTo is parseCampaignTo of a to without any fault, or false.
func fastCampaignTo(raw jsontext.Value) ([]store.Target, bool) {
	if raw.Kind() != '[' {
		return nil, false
	}
	p := campaignItems.Get().(*[]campaignItem)
	defer func() {
		clear(*p)
		*p = (*p)[:0]
		campaignItems.Put(p)
	}()
	if json.Unmarshal(raw, p) != nil {
		return nil, false
	}
	items := *p
	if len(items) == 0 || len(items) > rules.MaxCampaignRecipients {
		return nil, false
	}
	b := newTargets(len(items))
	for i, it := range items {
		ph, err := store.ParsePhone("", it.phone)
		if err != nil || utf8.RuneCountInString(it.name) > rules.MaxNameLen {
			return nil, false
		}
		b.add(ph, it.name, i)
	}
	return b.list, true
}

// campaignItems holds the slices fastCampaignTo decodes into, emptied.
var campaignItems = sync.Pool{New: func() any { return new([]campaignItem) }}

// campaignItem is one recipient of a campaign's to as fastCampaignTo reads it: a string, or
// an object of a string phone and, or not, a string name. Anything else, an escaped member
// name included, is errSlowPath: readCampaignTo reads the body again and tells the fault.
type campaignItem struct{ phone, name string }

var errSlowPath = errors.New("not a recipient of the common shapes")

// UnmarshalJSONFrom reads one item with the decoder of the whole to, which refuses what the
// contract refuses of its syntax (duplicate names, invalid UTF-8).
func (c *campaignItem) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		*c = campaignItem{phone: tok.String()}
		return nil
	case '{':
	default:
		return errSlowPath
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	*c = campaignItem{}
	phone := false
	for dec.PeekKind() == '"' {
		name, err := dec.ReadValue() // as written: an escaped name goes the slow way
		if err != nil {
			return err
		}
		isPhone, isName := string(name) == `"phone"`, string(name) == `"name"` // before the next read reuses name
		if !isPhone && !isName || dec.PeekKind() != '"' {
			return errSlowPath
		}
		v, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if isPhone {
			c.phone, phone = v.String(), true
		} else {
			c.name = v.String()
		}
	}
	if _, err := dec.ReadToken(); err != nil { // the object's end
		return err
	}
	if !phone {
		return errSlowPath
	}
	return nil
}

// readCampaignTo is parseCampaignTo, item by item, naming the first fault.
func readCampaignTo(raw jsontext.Value) ([]store.Target, error) {
	if len(raw) == 0 {
		return nil, errorf("to", "to is required.")
	}
	var many []jsontext.Value
	if raw.Kind() != '[' || json.Unmarshal(raw, &many) != nil {
		return nil, errorf("to", "to must be an array of phone numbers or {phone, name} objects.")
	}
	if len(many) == 0 || len(many) > rules.MaxCampaignRecipients {
		return nil, errorf("to", "to must hold 1 to %d recipients.", rules.MaxCampaignRecipients)
	}
	b := newTargets(len(many))
	for i, item := range many {
		field := "to[" + strconv.Itoa(i) + "]"
		var n string
		if item.Kind() == '"' && json.Unmarshal(item, &n) == nil {
			p, err := store.ParsePhone(field, n)
			if err != nil {
				return nil, err
			}
			b.add(p, "", i)
			continue
		}
		var obj struct {
			Phone *string `json:"phone"`
			Name  *string `json:"name"`
		}
		if e := Decode(item, &obj); e != nil {
			if e.Field != "" {
				e.Field = field + "." + e.Field
				e.Message = field + ": " + e.Message
			} else {
				e.Field, e.Message = field, field+" must be a phone number or a {phone, name} object."
			}
			return nil, e
		}
		if obj.Phone == nil {
			return nil, errorf(field+".phone", "%s.phone is required.", field)
		}
		p, err := store.ParsePhone(field+".phone", *obj.Phone)
		if err != nil {
			return nil, err
		}
		name := ""
		if obj.Name != nil {
			name = *obj.Name
			if utf8.RuneCountInString(name) > rules.MaxNameLen {
				return nil, errorf(field+".name", "%s.name must be at most %d characters.", field, rules.MaxNameLen)
			}
		}
		b.add(p, name, i)
	}
	return b.list, nil
}

// targets collects recipients in order, keeping the first of duplicate numbers.
type targets struct {
	list []store.Target
	seen map[uint64]struct{}
}

func newTargets(n int) *targets {
	return &targets{list: make([]store.Target, 0, n), seen: make(map[uint64]struct{}, n)}
}

func (t *targets) add(p uint64, name string, index int) {
	if _, dup := t.seen[p]; dup {
		return
	}
	t.seen[p] = struct{}{}
	t.list = append(t.list, store.Target{Phone: p, Name: name, Index: index})
}
