package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"crypto/rand"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
)

func (s *Server) buildRoutes() []*pathRoute {
	const post, get, del = http.MethodPost, http.MethodGet, http.MethodDelete
	table := []struct {
		pattern string
		route
	}{
		{"/v1/keys", route{method: post, auth: authJWT, body: true, handle: createKey}},
		{"/v1/keys", route{method: get, auth: authJWT, handle: listKeys}},
		{"/v1/keys/{id}", route{method: del, auth: authJWT, handle: revokeKey}},
		{"/v1/sms/send", route{method: post, auth: authKey, scope: scopeSMS, body: true, idempotent: true, handle: sendSMS}},
		{"/v1/sms/campaigns", route{method: post, auth: authKey, scope: scopeCampaigns, body: true, idempotent: true, handle: createCampaign}},
		{"/v1/sms/campaigns", route{method: get, auth: authKey, scope: scopeCampaigns, handle: listCampaigns}},
		{"/v1/sms/campaigns/{id}/status", route{method: get, auth: authKey, scope: scopeCampaigns, handle: campaignStatus}},
		{"/v1/otp/send", route{method: post, auth: authKey, scope: scopeOTP, body: true, handle: sendOTP}},
		{"/v1/otp/verify", route{method: post, auth: authKey, scope: scopeOTP, body: true, handle: verifyOTP}},
		{"/v1/balance", route{method: get, auth: authKey, scope: scopeBalance, handle: getBalance}},
		{"/v1/sender-ids", route{method: post, auth: authKey, scope: scopeSenderIDs, body: true, handle: requestSenderID}},
		{"/v1/sender-ids", route{method: get, auth: authKey, scope: scopeSenderIDs, handle: listSenderIDs}},
	}
	table = append(table, controlRoutes()...)
	table = append(table, inboxRoutes()...)
	var out []*pathRoute
	byPattern := map[string]*pathRoute{}
	for _, t := range table {
		pr := byPattern[t.pattern]
		if pr == nil {
			pr = &pathRoute{pattern: t.pattern}
			byPattern[t.pattern] = pr
			out = append(out, pr)
		}
		rt := t.route
		pr.routes = append(pr.routes, &rt)
		if pr.allow != "" {
			pr.allow += ", "
		}
		pr.allow += rt.method
	}
	return out
}

// --- wire forms --------------------------------------------------------------------------------

type dataBody struct {
	Data any `json:"data"`
}

type listBody struct {
	Data  any `json:"data"`
	Count int `json:"count"`
}

type pageBody struct {
	Data       any        `json:"data"`
	Pagination pagination `json:"pagination"`
}

type pagination struct {
	Page  int `json:"page"`
	Limit int `json:"limit"`
	Total int `json:"total"`
}

func timeOf(ns int64) time.Time { return time.Unix(0, ns).UTC() }

func optTime(ns int64) *time.Time {
	if ns == 0 {
		return nil
	}
	t := timeOf(ns)
	return &t
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// --- keys ----------------------------------------------------------------------------------------

type scopesJSON struct {
	SMS       bool `json:"sms"`
	OTP       bool `json:"otp"`
	Campaigns bool `json:"campaigns"`
	SenderIDs bool `json:"sender_ids"`
	Balance   bool `json:"balance"`
}

type keyJSON struct {
	ID         string     `json:"_id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	PublicKey  string     `json:"publicKey"`
	Scopes     scopesJSON `json:"scopes"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  *time.Time `json:"expiresAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	Secret     string     `json:"secret,omitempty"`
}

func keyOut(k *apiKey) keyJSON {
	return keyJSON{
		ID: k.id.String(), Name: k.name, Prefix: k.prefix, PublicKey: k.public,
		Scopes: scopesJSON{
			SMS: k.scopes&scopeSMS != 0, OTP: k.scopes&scopeOTP != 0, Campaigns: k.scopes&scopeCampaigns != 0,
			SenderIDs: k.scopes&scopeSenderIDs != 0, Balance: k.scopes&scopeBalance != 0,
		},
		CreatedAt: timeOf(k.createdAt), ExpiresAt: optTime(k.expiresAt),
		RevokedAt: optTime(k.revokedAt.Load()), LastUsedAt: optTime(k.lastUsedAt.Load()),
	}
}

func createKey(s *Server, rq *request) (int, any, *apiError) {
	var in struct {
		Name          *string         `json:"name"`
		Scopes        json.RawMessage `json:"scopes"`
		Prefix        *string         `json:"prefix"`
		ExpiresInDays *int            `json:"expiresInDays"`
	}
	if e := decodeJSON(rq.body, &in); e != nil {
		return 0, nil, e
	}
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return 0, nil, badRequest("name", "name is required.")
	}
	if n := utf8.RuneCountInString(*in.Name); n > rules.MaxNameLen {
		return 0, nil, badRequest("name", "name must be at most %d characters.", rules.MaxNameLen)
	}
	scopes, e := parseScopes(in.Scopes)
	if e != nil {
		return 0, nil, e
	}
	prefix := "pk_live"
	if in.Prefix != nil {
		if *in.Prefix != "pk_live" && *in.Prefix != "pk_test" {
			return 0, nil, badRequest("prefix", "prefix must be pk_live or pk_test.")
		}
		prefix = *in.Prefix
	}
	var expires int64
	if in.ExpiresInDays != nil {
		d := *in.ExpiresInDays
		if d < 1 || d > rules.MaxExpiresInDays {
			return 0, nil, badRequest("expiresInDays", "expiresInDays must be an integer from 1 to %d.", rules.MaxExpiresInDays)
		}
		expires = rq.now.Add(time.Duration(d) * 24 * time.Hour).UnixNano()
	}
	if !rq.st.store.madeKeys.take(maxMadeKeys) {
		return 0, nil, errKeyLimit()
	}
	k, secret := s.newKey(strings.TrimSpace(*in.Name), prefix, scopes, rq.now.UnixNano(), expires, "", "")
	rq.st.store.addKey(rq.ws, k)
	out := keyOut(k)
	out.Secret = secret
	return http.StatusCreated, dataBody{out}, nil
}

// parseScopes reads the scopes object: only the five names, booleans, at least one true.
func parseScopes(raw json.RawMessage) (uint8, *apiError) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, badRequest("scopes", "scopes is required.")
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return 0, badRequest("scopes", "scopes must be an object of booleans.")
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	var bits uint8
	for _, name := range names {
		if !rules.ValidScope(name) {
			return 0, badRequest("scopes."+name, "Unknown scope %q; scopes are sms, otp, campaigns, sender_ids and balance.", name)
		}
		switch string(m[name]) {
		case "true":
			bits |= scopeBit(name)
		case "false":
		default:
			return 0, badRequest("scopes."+name, "scopes.%s must be a boolean.", name)
		}
	}
	if bits == 0 {
		return 0, badRequest("scopes", "At least one scope must be true.")
	}
	return bits, nil
}

func listKeys(_ *Server, rq *request) (int, any, *apiError) {
	keys := rq.ws.listKeys()
	out := make([]keyJSON, len(keys))
	for i, k := range keys {
		out[i] = keyOut(k)
	}
	return http.StatusOK, listBody{out, len(out)}, nil
}

func revokeKey(_ *Server, rq *request) (int, any, *apiError) {
	id, ok := ids.Parse(rq.param)
	if !ok {
		return 0, nil, notFound("Key")
	}
	k, e := rq.ws.revokeKey(id, rq.now.UnixNano())
	if e != nil {
		return 0, nil, e
	}
	return http.StatusOK, dataBody{keyOut(k)}, nil
}

// --- sending -------------------------------------------------------------------------------------

type sendResponse struct {
	Message  string       `json:"message"`
	Campaign sentCampaign `json:"campaign"`
}

type sentCampaign struct {
	ID         string      `json:"id"`
	Status     string      `json:"status"`
	MessageID  *string     `json:"message_id"`
	Recipients int         `json:"recipients"`
	Amount     json.Number `json:"amount"`
	Currency   string      `json:"currency"`
	SMSParts   int         `json:"sms_parts"`
}

func sentOut(c *accepted) sentCampaign {
	out := sentCampaign{
		ID: c.id.String(), Status: campaignStatusNames[c.status], Recipients: c.recipients,
		Amount: nairaNumber(c.amount), Currency: "NGN", SMSParts: int(c.parts),
	}
	if c.hasMessageID() {
		out.MessageID = optString(c.messageID())
	}
	return out
}

// nairaNumber is kobo as a JSON number of naira. On hot paths it is cheaper than naira, whose
// MarshalJSON output encoding/json checks and compacts again.
func nairaNumber(kobo int64) json.Number { return json.Number(rules.FormatNaira(kobo)) }

// sendFields are the members POST /v1/sms/send and /v1/sms/campaigns share.
type sendFields struct {
	To        json.RawMessage `json:"to"`
	From      *string         `json:"from"`
	Message   *string         `json:"message"`
	Channel   *string         `json:"channel"`
	Reference *string         `json:"reference"`
}

// target is one normalized recipient, the name {{name}} is filled with, and its index in the
// request's to.
type target struct {
	phone uint64
	name  string
	index int
}

func sendSMS(s *Server, rq *request) (int, any, *apiError) {
	if in := rq.send; in != nil { // decoded in one pass on the way in
		targets, e := in.targets()
		if e != nil {
			return 0, nil, e
		}
		return s.send(rq, in.fields(), targets, false)
	}
	var in sendFields
	if e := decodeJSON(rq.body, &in); e != nil {
		return 0, nil, e
	}
	targets, e := parseSendTo(in.To)
	if e != nil {
		return 0, nil, e
	}
	return s.send(rq, &in, targets, false)
}

func createCampaign(s *Server, rq *request) (int, any, *apiError) {
	if in := rq.send; in != nil { // decoded in one pass on the way in
		targets, e := in.targets()
		if e != nil {
			return 0, nil, e
		}
		return s.send(rq, in.fields(), targets, true)
	}
	var in sendFields
	if e := decodeJSON(rq.body, &in); e != nil {
		return 0, nil, e
	}
	targets, e := parseCampaignTo(in.To)
	if e != nil {
		return 0, nil, e
	}
	return s.send(rq, &in, targets, true)
}

// send validates the shared members, prices the message per recipient and hands the send to
// the store, which debits and creates the campaign in one step.
func (s *Server) send(rq *request, in *sendFields, targets []target, personalize bool) (int, any, *apiError) {
	if e := checkSender(in.From); e != nil {
		return 0, nil, e
	}
	if in.Message == nil || *in.Message == "" {
		return 0, nil, badRequest("message", "message is required.")
	}
	channel, price := uint8(0), s.cfg.genericPrice
	if in.Channel != nil {
		switch *in.Channel {
		case "generic":
		case "dnd":
			channel, price = 1, s.cfg.dndPrice
		default:
			return 0, nil, badRequest("channel", "channel must be generic or dnd.")
		}
	}
	ref := ""
	if in.Reference != nil {
		if !rules.ValidReference(*in.Reference) {
			return 0, nil, badRequest("reference", "reference must be 1 to %d printable ASCII characters.", rules.MaxReferenceLen)
		}
		ref = *in.Reference
	}
	op := &sendOp{from: *in.From, reference: ref, channel: channel, providerFailure: rq.providerFailure,
		recipients: make([]recipient, len(targets))}
	msg := *in.Message
	personalize = personalize && strings.Contains(msg, "{{name}}")
	op.template, op.personal = msg, personalize
	if personalize {
		op.nameEnds = make([]uint32, len(targets))
	}
	var names strings.Builder
	partsByName := map[string]int{}
	if personalize { // too long with no name at all: the message is at fault, not a recipient
		if parts, _ := rules.CountParts(strings.ReplaceAll(msg, "{{name}}", "")); parts > rules.MaxParts {
			return 0, nil, badRequest("message", "The message is %d parts long; at most %d are allowed.", parts, rules.MaxParts)
		}
	}
	for i, t := range targets {
		name := ""
		if personalize {
			name = t.name
		}
		parts, seen := partsByName[name]
		if !seen {
			text := msg
			if personalize {
				text = strings.ReplaceAll(msg, "{{name}}", name)
			}
			parts, _ = rules.CountParts(text)
			partsByName[name] = parts
		}
		field := "message"
		if name != "" {
			field = "to[" + strconv.Itoa(t.index) + "].name"
		}
		switch {
		case parts == 0:
			return 0, nil, badRequest(field, "The message is empty once {{name}} is filled for to[%d].", t.index)
		case parts > rules.MaxParts:
			return 0, nil, badRequest(field, "The message is %d parts long; at most %d are allowed.", parts, rules.MaxParts)
		}
		op.maxParts = max(op.maxParts, parts)
		op.totalParts += int64(parts)
		status := rcptSent
		if channel == 0 && rq.st.store.onDND(t.phone) {
			status = rcptDND
		}
		op.recipients[i] = recipient{packed: t.phone | uint64(status)<<56}
		if personalize {
			names.WriteString(name)
			op.nameEnds[i] = uint32(names.Len())
		}
	}
	op.names = names.String()
	c, e := rq.ws.send(rq.mode, s.ids, op, price, rq.now)
	if e != nil {
		return 0, nil, e
	}
	s.sent(rq, &c)
	return http.StatusAccepted, sentAnswer{&c}, nil // sendResponse of sentOut(c), written by hand
}

func checkSender(from *string) *apiError {
	if from == nil || *from == "" {
		return badRequest("from", "from is required.")
	}
	if !rules.ValidSenderID(*from) {
		return badRequest("from", "from must be 3 to 11 ASCII letters and digits.")
	}
	return nil
}

// parseSendTo reads POST /v1/sms/send's to: a number or an array of 1 to 100 numbers.
func parseSendTo(raw json.RawMessage) ([]target, *apiError) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badRequest("to", "to is required.")
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		p, e := phone("to", one)
		if e != nil {
			return nil, e
		}
		return []target{{phone: p}}, nil
	}
	var many []json.RawMessage
	if json.Unmarshal(raw, &many) != nil {
		return nil, badRequest("to", "to must be a phone number or an array of phone numbers.")
	}
	if len(many) == 0 || len(many) > rules.MaxSendRecipients {
		return nil, badRequest("to", "to must hold 1 to %d numbers.", rules.MaxSendRecipients)
	}
	b := newTargets(len(many))
	for i, item := range many {
		field := "to[" + strconv.Itoa(i) + "]"
		var n string
		if json.Unmarshal(item, &n) != nil {
			return nil, badRequest(field, "%s must be a phone number string.", field)
		}
		p, e := phone(field, n)
		if e != nil {
			return nil, e
		}
		b.add(p, "", i)
	}
	return b.list, nil
}

// parseCampaignTo reads POST /v1/sms/campaigns' to: 1 to 10,000 numbers or {phone, name}.
func parseCampaignTo(raw json.RawMessage) ([]target, *apiError) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badRequest("to", "to is required.")
	}
	var many []json.RawMessage
	if json.Unmarshal(raw, &many) != nil {
		return nil, badRequest("to", "to must be an array of phone numbers or {phone, name} objects.")
	}
	if len(many) == 0 || len(many) > rules.MaxCampaignRecipients {
		return nil, badRequest("to", "to must hold 1 to %d recipients.", rules.MaxCampaignRecipients)
	}
	b := newTargets(len(many))
	for i, item := range many {
		field := "to[" + strconv.Itoa(i) + "]"
		var n string
		if json.Unmarshal(item, &n) == nil {
			p, e := phone(field, n)
			if e != nil {
				return nil, e
			}
			b.add(p, "", i)
			continue
		}
		var obj struct {
			Phone *string `json:"phone"`
			Name  *string `json:"name"`
		}
		if e := decodeJSON(item, &obj); e != nil {
			if e.field != "" {
				e.field = field + "." + e.field
				e.message = field + ": " + e.message
			} else {
				e.field, e.message = field, field+" must be a phone number or a {phone, name} object."
			}
			return nil, e
		}
		if obj.Phone == nil {
			return nil, badRequest(field+".phone", "%s.phone is required.", field)
		}
		p, e := phone(field+".phone", *obj.Phone)
		if e != nil {
			return nil, e
		}
		name := ""
		if obj.Name != nil {
			name = *obj.Name
			if utf8.RuneCountInString(name) > rules.MaxNameLen {
				return nil, badRequest(field+".name", "%s.name must be at most %d characters.", field, rules.MaxNameLen)
			}
		}
		b.add(p, name, i)
	}
	return b.list, nil
}

// targets collects recipients in order, keeping the first of duplicate numbers.
type targets struct {
	list []target
	seen map[uint64]struct{}
}

func newTargets(n int) *targets {
	return &targets{list: make([]target, 0, n), seen: make(map[uint64]struct{}, n)}
}

func (t *targets) add(p uint64, name string, index int) {
	if _, dup := t.seen[p]; dup {
		return
	}
	t.seen[p] = struct{}{}
	t.list = append(t.list, target{phone: p, name: name, index: index})
}

func phone(field, s string) (uint64, *apiError) {
	n, err := rules.NormalizePhone(s)
	if err != nil {
		return 0, badRequest(field, "%s: %v.", field, err)
	}
	p, _ := strconv.ParseUint(n, 10, 64)
	return p, nil
}

// --- campaigns -------------------------------------------------------------------------------

type campaignJSON struct {
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

var channelNames = [...]string{"generic", "dnd"}

func campaignOut(c *campaign) campaignJSON {
	out := campaignJSON{
		ID: c.id.String(), SenderID: c.senderID, RecipientCount: c.total(),
		Amount: nairaNumber(c.amount), Status: campaignStatusNames[c.status], Currency: "NGN",
		Channel: channelNames[c.channel], SMSParts: int(c.parts), Reference: optString(c.reference),
		CreatedAt: timeOf(c.createdAt).Format(time.RFC3339Nano),
	}
	if c.hasMessageID() {
		out.MessageID = optString(c.messageID())
	}
	return out
}

// pageParams reads page (>= 1, default 1) and limit (1 to 100, default 20).
func pageParams(q url.Values) (page, limit int, e *apiError) {
	page, e = intParam(q, "page", rules.DefaultPage, 1, math.MaxInt)
	if e != nil {
		return 0, 0, e
	}
	limit, e = intParam(q, "limit", rules.DefaultLimit, 1, rules.MaxLimit)
	return page, limit, e
}

func intParam(q url.Values, name string, def, lo, hi int) (int, *apiError) {
	vs, ok := q[name]
	if !ok {
		return def, nil
	}
	v := vs[0]
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi || v[0] == '+' || v[0] == '-' && n == 0 {
		return 0, badRequest(name, "%s must be an integer from %d to %d.", name, lo, hi)
	}
	return n, nil
}

func listCampaigns(_ *Server, rq *request) (int, any, *apiError) {
	page, limit, e := pageParams(rq.r.URL.Query())
	if e != nil {
		return 0, nil, e
	}
	cs, total := rq.ws.listCampaigns(rq.mode, page, limit, rq.now.UnixNano())
	return http.StatusOK, &campaignPage{cs, pagination{page, limit, total}}, nil
}

type deliveryJSON struct {
	CampaignID string          `json:"campaignId"`
	MessageID  *string         `json:"messageId"` // null while processing, and when failed
	Status     string          `json:"status"`
	Counts     countsJSON      `json:"counts"`
	Recipients []recipientJSON `json:"recipients"`
}

type countsJSON struct {
	Sent      int `json:"sent"`
	Delivered int `json:"delivered"`
	Failed    int `json:"failed"`
	DND       int `json:"dnd"`
}

type recipientJSON struct {
	To        string    `json:"to"`
	Status    string    `json:"status"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func countsOut(c *campaign) countsJSON {
	return countsJSON{int(c.counts[rcptSent]), int(c.counts[rcptDelivered]), int(c.counts[rcptFailed]), int(c.counts[rcptDND])}
}

func campaignStatus(_ *Server, rq *request) (int, any, *apiError) {
	id, ok := ids.Parse(rq.param)
	if !ok {
		return 0, nil, notFound("Campaign")
	}
	page, limit, e := pageParams(rq.r.URL.Query())
	if e != nil {
		return 0, nil, e
	}
	c, e := rq.ws.deliveryStatus(rq.mode, id, page, limit, rq.now.UnixNano())
	if e != nil {
		return 0, nil, e
	}
	// A campaign without a provider message ID is answered too, so that a caller polls one
	// endpoint until the campaign is final: while processing, with nothing to count yet; once
	// failed (refused and refunded), with every recipient failed.
	out := deliveryJSON{CampaignID: c.id.String(), Recipients: make([]recipientJSON, len(c.recipients))}
	total := c.total()
	switch c.status {
	case campaignProcessing:
		out.Status, total = campaignStatusNames[campaignProcessing], 0
	case campaignFailed:
		out.Status, out.Counts = campaignStatusNames[campaignFailed], countsJSON{Failed: total}
	default:
		out.MessageID, out.Status, out.Counts = optString(c.messageID()), c.rollup(), countsOut(&c)
	}
	for i, r := range c.recipients {
		out.Recipients[i] = recipientJSON{To: r.phone(), Status: recipientStatusNames[r.status()], UpdatedAt: timeOf(r.updatedAt)}
	}
	return http.StatusOK, pageBody{out, pagination{page, limit, total}}, nil
}

// --- OTP -------------------------------------------------------------------------------------

type otpSentJSON struct {
	SMSStatus   string `json:"smsStatus"`
	PhoneNumber string `json:"phone_number"`
	PinID       string `json:"pinId"`
	Status      string `json:"status"`
	Amount      naira  `json:"amount"`
	Currency    string `json:"currency"`
}

func sendOTP(s *Server, rq *request) (int, any, *apiError) {
	var in struct {
		To             *string `json:"to"`
		From           *string `json:"from"`
		MessageText    *string `json:"message_text"`
		PinType        *string `json:"pin_type"`
		PinLength      *int    `json:"pin_length"`
		PinTimeToLive  *int    `json:"pin_time_to_live"`
		PinPlaceholder *string `json:"pin_placeholder"`
	}
	if e := decodeJSON(rq.body, &in); e != nil {
		return 0, nil, e
	}
	if in.To == nil {
		return 0, nil, badRequest("to", "to is required.")
	}
	p, e := phone("to", *in.To)
	if e != nil {
		return 0, nil, e
	}
	if e := checkSender(in.From); e != nil {
		return 0, nil, e
	}
	alphabet := "0123456789"
	if in.PinType != nil {
		switch *in.PinType {
		case "numeric":
		case "alphanumeric":
			alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		default:
			return 0, nil, badRequest("pin_type", "pin_type must be numeric or alphanumeric.")
		}
	}
	length := rules.DefaultPinLength
	if in.PinLength != nil {
		if length = *in.PinLength; length < rules.MinPinLength || length > rules.MaxPinLength {
			return 0, nil, badRequest("pin_length", "pin_length must be from %d to %d.", rules.MinPinLength, rules.MaxPinLength)
		}
	}
	ttl := rules.DefaultPinTTL
	if in.PinTimeToLive != nil {
		if ttl = *in.PinTimeToLive; ttl < rules.MinPinTTL || ttl > rules.MaxPinTTL {
			return 0, nil, badRequest("pin_time_to_live", "pin_time_to_live must be from %d to %d minutes.", rules.MinPinTTL, rules.MaxPinTTL)
		}
	}
	placeholder := rules.DefaultPinPlaceholder
	if in.PinPlaceholder != nil {
		placeholder = *in.PinPlaceholder
		if placeholder == "" || utf8.RuneCountInString(placeholder) > rules.MaxPinPlaceholderLen {
			return 0, nil, badRequest("pin_placeholder", "pin_placeholder must be 1 to %d characters.", rules.MaxPinPlaceholderLen)
		}
	}
	if in.MessageText == nil || *in.MessageText == "" {
		return 0, nil, badRequest("message_text", "message_text is required.")
	}
	if !strings.Contains(*in.MessageText, placeholder) {
		return 0, nil, badRequest("message_text", "message_text must contain the pin placeholder %q.", placeholder)
	}
	// Pins are ASCII letters and digits, so every pin of this length gives the same parts.
	parts, _ := rules.CountParts(strings.ReplaceAll(*in.MessageText, placeholder, strings.Repeat("0", length)))
	if parts > rules.MaxParts {
		return 0, nil, badRequest("message_text", "The message is %d parts long; at most %d are allowed.", parts, rules.MaxParts)
	}
	pin := randomPin(alphabet, length)
	num := strconv.FormatUint(p, 10)
	msgID := s.ids.Next()
	o, amount, e := rq.ws.sendOTP(rq.mode, &otpOp{id: msgID, from: *in.From, phone: num, parts: parts,
		text: strings.ReplaceAll(*in.MessageText, placeholder, pin),
		ttl:  time.Duration(ttl) * time.Minute, pin: pin}, s.cfg.genericPrice, rq.now)
	if e != nil {
		return 0, nil, e
	}
	rq.st.store.deliverPin(num, o.pinID, pin, rq.now.UnixNano())
	s.otpSent(rq, msgID, num, o.pinID)
	return http.StatusOK, dataBody{otpSentJSON{SMSStatus: "Message Sent", PhoneNumber: num, PinID: o.pinID,
		Status: "200", Amount: naira(amount), Currency: "NGN"}}, nil
}

// randomPin draws length characters of alphabet from crypto/rand without modulo bias.
func randomPin(alphabet string, length int) string {
	n := len(alphabet)
	limit := 256 - 256%n
	out := make([]byte, 0, length)
	var buf [16]byte
	for len(out) < length {
		_, _ = rand.Read(buf[:])
		for _, b := range buf {
			if int(b) < limit && len(out) < length {
				out = append(out, alphabet[int(b)%n])
			}
		}
	}
	return string(out)
}

type verificationJSON struct {
	PinID             string `json:"pinId"`
	Verified          bool   `json:"verified"`
	MSISDN            string `json:"msisdn"`
	AttemptsRemaining int    `json:"attemptsRemaining"`
}

func verifyOTP(s *Server, rq *request) (int, any, *apiError) {
	var in struct {
		PinID *string `json:"pin_id"`
		Pin   *string `json:"pin"`
	}
	if e := decodeJSON(rq.body, &in); e != nil {
		return 0, nil, e
	}
	if in.PinID == nil || *in.PinID == "" {
		return 0, nil, badRequest("pin_id", "pin_id is required.")
	}
	if in.Pin == nil || *in.Pin == "" {
		return 0, nil, badRequest("pin", "pin is required.")
	}
	o, ok, left, e := rq.ws.verifyOTP(rq.mode, *in.PinID, *in.Pin, rq.now)
	if e != nil {
		return 0, nil, e
	}
	if ok {
		s.otpVerified(rq, o.pinID, o.phone)
	}
	return http.StatusOK, dataBody{verificationJSON{PinID: o.pinID, Verified: ok, MSISDN: o.phone, AttemptsRemaining: left}}, nil
}

// --- balance -------------------------------------------------------------------------------------

type balanceJSON struct {
	Balance  naira  `json:"balance"`
	Cashback naira  `json:"cashback"`
	Currency string `json:"currency"`
}

func getBalance(_ *Server, rq *request) (int, any, *apiError) {
	return http.StatusOK, dataBody{balanceJSON{Balance: naira(rq.ws.balance(rq.mode)), Currency: "NGN"}}, nil
}

// --- sender IDs ------------------------------------------------------------------------------

type senderJSON struct {
	ID        string    `json:"_id"`
	Title     string    `json:"title"`
	Status    string    `json:"status"`
	Country   string    `json:"country"`
	Usecase   string    `json:"usecase"`
	Company   string    `json:"company"`
	CreatedAt time.Time `json:"createdAt"`
}

func senderOut(s *senderID) senderJSON {
	return senderJSON{ID: s.id.String(), Title: s.title, Status: senderStatusNames[s.status], Country: s.country,
		Usecase: s.usecase, Company: s.company, CreatedAt: timeOf(s.createdAt)}
}

func requestSenderID(s *Server, rq *request) (int, any, *apiError) {
	var in struct {
		SenderID *string `json:"sender_id"`
		Usecase  *string `json:"usecase"`
		Company  *string `json:"company"`
	}
	if e := decodeJSON(rq.body, &in); e != nil {
		return 0, nil, e
	}
	if in.SenderID == nil || !rules.ValidSenderID(*in.SenderID) {
		return 0, nil, badRequest("sender_id", "sender_id must be 3 to 11 ASCII letters and digits.")
	}
	if e := textField("usecase", in.Usecase, rules.MaxUsecaseLen); e != nil {
		return 0, nil, e
	}
	if e := textField("company", in.Company, rules.MaxCompanyLen); e != nil {
		return 0, nil, e
	}
	sid := &senderID{id: s.ids.Next(), title: *in.SenderID, status: senderPending,
		usecase: *in.Usecase, company: *in.Company, createdAt: rq.now.UnixNano()}
	if !rq.st.store.madeSenderIDs.take(maxMadeSenderIDs) {
		return 0, nil, errSenderIDLimit()
	}
	stored, e := rq.ws.requestSenderID(sid)
	if e != nil {
		rq.st.store.madeSenderIDs.give()
		return 0, nil, e
	}
	s.senderMoved(rq.ws.id, &stored)
	return http.StatusCreated, struct {
		Message string     `json:"message"`
		Data    senderJSON `json:"data"`
	}{"Sender ID request submitted.", senderOut(&stored)}, nil
}

func textField(name string, v *string, maxLen int) *apiError {
	if v == nil || strings.TrimSpace(*v) == "" {
		return badRequest(name, "%s is required.", name)
	}
	if utf8.RuneCountInString(*v) > maxLen {
		return badRequest(name, "%s must be at most %d characters.", name, maxLen)
	}
	return nil
}

func listSenderIDs(_ *Server, rq *request) (int, any, *apiError) {
	status := -1
	if vs, ok := rq.r.URL.Query()["status"]; ok {
		status = slices.Index(senderStatusNames[:], vs[0])
		if status < 0 {
			return 0, nil, badRequest("status", "status must be pending, active or blocked.")
		}
	}
	list := rq.ws.listSenderIDs(status)
	out := make([]senderJSON, len(list))
	for i := range list {
		out[i] = senderOut(&list[i])
	}
	return http.StatusOK, listBody{out, len(out)}, nil
}
