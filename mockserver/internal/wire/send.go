package wire

import (
	"bytes"
	"crypto/sha256"
	"strconv"
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

// Fingerprint is the fingerprint of a send decoded by DecodeSend: the SHA-256 of path, a zero
// byte and its members encoded in the order of their names, to in its canonical form. Two
// bodies with the same members have the same one, whatever their layout; it is not the
// Fingerprint of the body (a body that does not decode has no members to compare), and need
// not be: a body that decodes is never the same request as one that does not.
func (f *SendFields) Fingerprint(path string) [32]byte {
	to := jsontext.Value(bytes.Clone(f.To))
	_ = to.Canonicalize() // it decoded: it has a canonical form
	b, err := json.Marshal(struct {
		Channel   *string        `json:"channel,omitzero"`
		From      *string        `json:"from,omitzero"`
		Message   *string        `json:"message,omitzero"`
		Reference *string        `json:"reference,omitzero"`
		To        jsontext.Value `json:"to,omitzero"`
	}{f.Channel, f.From, f.Message, f.Reference, to})
	if err != nil { // strings and a valid value always encode
		panic(err)
	}
	h := sha256.New()
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write(b)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
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
func parseCampaignTo(raw jsontext.Value) ([]store.Target, error) {
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
