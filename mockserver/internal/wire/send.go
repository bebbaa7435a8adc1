package wire

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// SendFields are the members POST /v1/sms/send and /v1/sms/campaigns share.
type SendFields struct {
	To        json.RawMessage `json:"to"`
	From      *string         `json:"from"`
	Message   *string         `json:"message"`
	Channel   *string         `json:"channel"`
	Reference *string         `json:"reference"`
}

// ReadSend returns the members and recipients of a send (campaign false) or campaign body:
// those of in, the body decoded in one pass on the way in, or when there is none, the body
// decoded strictly, which says what is wrong with it in the contract's words.
func ReadSend(in *SendInput, body []byte, campaign bool) (SendFields, []store.Target, error) {
	if in != nil {
		targets, err := in.Targets()
		return in.Fields(), targets, err
	}
	var f SendFields
	if e := Decode(body, &f); e != nil {
		return SendFields{}, nil, e
	}
	var targets []store.Target
	var err error
	if campaign {
		targets, err = parseCampaignTo(f.To)
	} else {
		targets, err = parseSendTo(f.To)
	}
	return f, targets, err
}

// parseSendTo reads POST /v1/sms/send's to: a number or an array of 1 to 100 numbers.
func parseSendTo(raw json.RawMessage) ([]store.Target, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errorf("to", "to is required.")
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		p, err := store.ParsePhone("to", one)
		if err != nil {
			return nil, err
		}
		return []store.Target{{Phone: p}}, nil
	}
	var many []json.RawMessage
	if json.Unmarshal(raw, &many) != nil {
		return nil, errorf("to", "to must be a phone number or an array of phone numbers.")
	}
	if len(many) == 0 || len(many) > rules.MaxSendRecipients {
		return nil, errorf("to", "to must hold 1 to %d numbers.", rules.MaxSendRecipients)
	}
	b := newTargets(len(many))
	for i, item := range many {
		field := "to[" + strconv.Itoa(i) + "]"
		var n string
		if json.Unmarshal(item, &n) != nil {
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
func parseCampaignTo(raw json.RawMessage) ([]store.Target, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errorf("to", "to is required.")
	}
	var many []json.RawMessage
	if json.Unmarshal(raw, &many) != nil {
		return nil, errorf("to", "to must be an array of phone numbers or {phone, name} objects.")
	}
	if len(many) == 0 || len(many) > rules.MaxCampaignRecipients {
		return nil, errorf("to", "to must hold 1 to %d recipients.", rules.MaxCampaignRecipients)
	}
	b := newTargets(len(many))
	for i, item := range many {
		field := "to[" + strconv.Itoa(i) + "]"
		var n string
		if json.Unmarshal(item, &n) == nil {
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

// The one-pass decoder of POST /v1/sms/send and /v1/sms/campaigns bodies. It reads a body once
// and gets everything the idempotency check and the handler need from that one pass: the
// members, with the contract's exact spelling and no null, the recipients (plain numbers
// without a json.Unmarshal each), and the fingerprint. It accepts only bodies it fully
// understands: a JSON object of known members, each once, all strings of valid UTF-8, and
// for to the forms the route takes. It declines anything else (malformed JSON, another
// type, an unknown or repeated member, a null, invalid UTF-8, an empty or too long to),
// and the request then goes the general way (Decode, ReferenceOf, Fingerprint), which
// says what is wrong in the contract's words. So the fast path changes no answer: for a body
// it accepts, the general way finds the same members and the same fingerprint
// (decode_test.go checks this on random bodies, FuzzDecodeSend on arbitrary ones).

// SendInput is a send or campaign body decoded in one pass.
type SendInput struct {
	From, Message, Channel, Reference *string
	to                                []toItem
	single                            bool // to was one string, not an array
	Fingerprint                       [32]byte
	vals                              [4]string       // what From, Message, Channel and Reference point to
	oneTo                             [1]toItem       // to, when it is one number
	oneTarget                         [1]store.Target // its target
}

// toItem is one element of to: a number, or a {phone, name} object.
type toItem struct {
	phone   string
	name    string
	object  bool
	hasName bool
}

// DecodeSend decodes body with the fast path, or reports that it declines it. campaign says
// which route: a campaign's to is an array of numbers or objects, a send's a number or an
// array of numbers. path goes into the fingerprint.
func DecodeSend(path string, body []byte, campaign bool) (*SendInput, bool) {
	// One conversion of the whole body: every string decoded is a view into it, the phone
	// numbers parsed into integers; the store copies the strings it keeps.
	d := sendDecoder{scanner: scanner{s: string(body), strict: true}, campaign: campaign}
	in, ok := d.object()
	if !ok {
		return nil, false
	}
	d.space()
	if d.i != len(d.s) {
		return nil, false
	}
	in.Fingerprint = in.hash(path)
	return in, true
}

// sendDecoder reads a send body with the package's scanner, strictly: it declines what the
// general way must say something about.
type sendDecoder struct {
	scanner
	campaign bool
}

func (d *sendDecoder) object() (*SendInput, bool) {
	if !d.next('{') {
		return nil, false
	}
	in := &SendInput{}
	seen := 0
	for {
		if !d.next('"') {
			return nil, false
		}
		name, ok := d.str()
		if !ok || !d.next(':') {
			return nil, false
		}
		var bit, val int
		var dst **string
		switch name {
		case "to":
			bit = 1
		case "from":
			bit, dst, val = 2, &in.From, 0
		case "message":
			bit, dst, val = 4, &in.Message, 1
		case "channel":
			bit, dst, val = 8, &in.Channel, 2
		case "reference":
			bit, dst, val = 16, &in.Reference, 3
		default:
			return nil, false
		}
		if seen&bit != 0 {
			return nil, false
		}
		seen |= bit
		if dst != nil {
			if !d.next('"') {
				return nil, false
			}
			v, ok := d.str()
			if !ok {
				return nil, false
			}
			in.vals[val] = v
			*dst = &in.vals[val] // in the input: no allocation of its own
		} else if !d.to(in) {
			return nil, false
		}
		if d.next('}') {
			return in, seen&1 != 0 // no to: left to the general way, which says it is required
		}
		if !d.next(',') {
			return nil, false
		}
	}
}

func (d *sendDecoder) to(in *SendInput) bool {
	switch d.peek() {
	case '"':
		if d.campaign {
			return false
		}
		d.i++
		p, ok := d.str()
		in.oneTo[0] = toItem{phone: p}
		in.to, in.single = in.oneTo[:], true
		return ok
	case '[':
		d.i++
	default:
		return false
	}
	limit := rules.MaxSendRecipients
	if d.campaign {
		limit = rules.MaxCampaignRecipients
	}
	// Most bodies are numbers of about 16 bytes each, separators included.
	in.to = make([]toItem, 0, min(limit, (len(d.s)-d.i)/16+1))
	for {
		if len(in.to) == limit {
			return false
		}
		switch d.peek() {
		case '"':
			d.i++
			p, ok := d.str()
			if !ok {
				return false
			}
			in.to = append(in.to, toItem{phone: p})
		case '{':
			if !d.campaign {
				return false
			}
			d.i++
			it, ok := d.recipient()
			if !ok {
				return false
			}
			in.to = append(in.to, it)
		default:
			return false
		}
		if d.next(']') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

// recipient reads a {phone, name} object after its '{'.
func (d *sendDecoder) recipient() (toItem, bool) {
	it := toItem{object: true}
	hasPhone := false
	for {
		if !d.next('"') {
			return it, false
		}
		name, ok := d.str()
		if !ok || !d.next(':') || !d.next('"') {
			return it, false
		}
		v, ok := d.str()
		if !ok {
			return it, false
		}
		switch {
		case name == "phone" && !hasPhone:
			it.phone, hasPhone = v, true
		case name == "name" && !it.hasName:
			it.name, it.hasName = v, true
		default:
			return it, false
		}
		if d.next('}') {
			return it, hasPhone
		}
		if !d.next(',') {
			return it, false
		}
	}
}

// Fields returns the decoded members in the handlers' form.
func (in *SendInput) Fields() SendFields {
	return SendFields{From: in.From, Message: in.Message, Channel: in.Channel, Reference: in.Reference}
}

// Targets checks the decoded to as parseSendTo or parseCampaignTo check the raw one, with the
// same errors; the decoder already holds its length to the route's limits.
func (in *SendInput) Targets() ([]store.Target, error) {
	if in.single {
		p, err := store.ParsePhone("to", in.to[0].phone)
		if err != nil {
			return nil, err
		}
		in.oneTarget[0] = store.Target{Phone: p}
		return in.oneTarget[:], nil
	}
	b := newTargets(len(in.to))
	for i, it := range in.to {
		if !it.object {
			p, err := phoneNumber(it.phone)
			if err != nil {
				field := itemField(i)
				return nil, errorf(field, "%s: %v.", field, err)
			}
			b.add(p, "", i)
			continue
		}
		p, err := phoneNumber(it.phone)
		if err != nil {
			field := itemField(i) + ".phone"
			return nil, errorf(field, "%s: %v.", field, err)
		}
		if it.hasName && utf8.RuneCountInString(it.name) > rules.MaxNameLen {
			field := itemField(i)
			return nil, errorf(field+".name", "%s.name must be at most %d characters.", field, rules.MaxNameLen)
		}
		b.add(p, it.name, i)
	}
	return b.list, nil
}

func itemField(i int) string { return "to[" + strconv.Itoa(i) + "]" }

// phoneNumber is phone without the field: the number normalized, as an integer.
func phoneNumber(s string) (uint64, error) {
	n, err := rules.NormalizePhone(s)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(n, 10, 64)
}
