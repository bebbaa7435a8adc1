package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/ids"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"

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
		{"/v1/sms/send", route{method: post, auth: authKey, scope: store.ScopeSMS, body: true, idempotent: true, handle: sendSMS}},
		{"/v1/sms/campaigns", route{method: post, auth: authKey, scope: store.ScopeCampaigns, body: true, idempotent: true, handle: createCampaign}},
		{"/v1/sms/campaigns", route{method: get, auth: authKey, scope: store.ScopeCampaigns, handle: listCampaigns}},
		{"/v1/sms/campaigns/{id}/status", route{method: get, auth: authKey, scope: store.ScopeCampaigns, handle: campaignStatus}},
		{"/v1/otp/send", route{method: post, auth: authKey, scope: store.ScopeOTP, body: true, handle: sendOTP}},
		{"/v1/otp/verify", route{method: post, auth: authKey, scope: store.ScopeOTP, body: true, handle: verifyOTP}},
		{"/v1/balance", route{method: get, auth: authKey, scope: store.ScopeBalance, handle: getBalance}},
		{"/v1/sender-ids", route{method: post, auth: authKey, scope: store.ScopeSenderIDs, body: true, handle: requestSenderID}},
		{"/v1/sender-ids", route{method: get, auth: authKey, scope: store.ScopeSenderIDs, handle: listSenderIDs}},
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

// pageOffset is where a page starts, or math.MaxInt when that is past any list.
func pageOffset(page, limit int) int {
	if page-1 > math.MaxInt/limit {
		return math.MaxInt
	}
	return (page - 1) * limit
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

func keyOut(k *store.Key) keyJSON {
	return keyJSON{
		ID: k.ID.String(), Name: k.Name, Prefix: k.Prefix, PublicKey: k.Public,
		Scopes: scopesJSON{
			SMS: k.Scopes&store.ScopeSMS != 0, OTP: k.Scopes&store.ScopeOTP != 0, Campaigns: k.Scopes&store.ScopeCampaigns != 0,
			SenderIDs: k.Scopes&store.ScopeSenderIDs != 0, Balance: k.Scopes&store.ScopeBalance != 0,
		},
		CreatedAt: wire.Time(k.CreatedAt), ExpiresAt: wire.OptTime(k.ExpiresAt),
		RevokedAt: wire.OptTime(k.RevokedAt), LastUsedAt: wire.OptTime(k.LastUsedAt),
	}
}

func createKey(_ *Server, rq *request) (int, any, error) {
	var in struct {
		Name          *string         `json:"name"`
		Scopes        json.RawMessage `json:"scopes"`
		Prefix        *string         `json:"prefix"`
		ExpiresInDays *int            `json:"expiresInDays"`
	}
	if err := wire.Decode(rq.body, &in); err != nil {
		return 0, nil, err
	}
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return 0, nil, badRequest("name", "name is required.")
	}
	if n := utf8.RuneCountInString(*in.Name); n > rules.MaxNameLen {
		return 0, nil, badRequest("name", "name must be at most %d characters.", rules.MaxNameLen)
	}
	scopes, err := parseScopes(in.Scopes)
	if err != nil {
		return 0, nil, err
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
	k, secret, err := rq.st.store.CreateKey(rq.caller, store.KeyParams{Name: strings.TrimSpace(*in.Name), Prefix: prefix,
		Scopes: scopes, ExpiresAt: expires}, rq.now.UnixNano())
	if err != nil {
		return 0, nil, err
	}
	out := keyOut(&k)
	out.Secret = secret
	return http.StatusCreated, wire.Data{Data: out}, nil
}

// parseScopes reads the scopes object: only the five names, booleans, at least one true.
func parseScopes(raw json.RawMessage) (store.Scopes, error) {
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
	var bits store.Scopes
	for _, name := range names {
		if !rules.ValidScope(name) {
			return 0, badRequest("scopes."+name, "Unknown scope %q; scopes are sms, otp, campaigns, sender_ids and balance.", name)
		}
		switch string(m[name]) {
		case "true":
			bits |= store.ScopeOf(name)
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

func listKeys(_ *Server, rq *request) (int, any, error) {
	keys := rq.st.store.Keys(rq.caller)
	out := make([]keyJSON, len(keys))
	for i := range keys {
		out[i] = keyOut(&keys[i])
	}
	return http.StatusOK, wire.List{Data: out, Count: len(out)}, nil
}

func revokeKey(_ *Server, rq *request) (int, any, error) {
	k, err := rq.st.store.RevokeKey(rq.caller, rq.param, rq.now.UnixNano())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, wire.Data{Data: keyOut(&k)}, nil
}

// --- sending -------------------------------------------------------------------------------------

func sendSMS(s *Server, rq *request) (int, any, error) { return s.send(rq, false) }

func createCampaign(s *Server, rq *request) (int, any, error) { return s.send(rq, true) }

// send checks the shared members and hands the send to the store, which prices it, debits
// the wallet and creates the campaign in one step.
func (s *Server) send(rq *request, campaign bool) (int, any, error) {
	in, targets, err := wire.ReadSend(rq.send, rq.body, campaign)
	if err != nil {
		return 0, nil, err
	}
	if err := checkSender(in.From); err != nil {
		return 0, nil, err
	}
	if in.Message == nil || *in.Message == "" {
		return 0, nil, badRequest("message", "message is required.")
	}
	channel := store.Generic
	if in.Channel != nil {
		switch *in.Channel {
		case "generic":
		case "dnd":
			channel = store.DND
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
	a, err := rq.st.store.Send(rq.caller, store.SendParams{From: *in.From, Message: *in.Message, Channel: channel,
		Reference: ref, Personalize: campaign, Targets: targets, ProviderFailure: rq.providerFailure}, rq.now)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusAccepted, wire.SentAnswer{Campaign: &a}, nil
}

func checkSender(from *string) error {
	if from == nil || *from == "" {
		return badRequest("from", "from is required.")
	}
	if !rules.ValidSenderID(*from) {
		return badRequest("from", "from must be 3 to 11 ASCII letters and digits.")
	}
	return nil
}

// --- campaigns -------------------------------------------------------------------------------

// pageParams reads page (>= 1, default 1) and limit (1 to 100, default 20).
func pageParams(q url.Values) (page, limit int, err error) {
	page, err = intParam(q, "page", rules.DefaultPage, 1, math.MaxInt)
	if err != nil {
		return 0, 0, err
	}
	limit, err = intParam(q, "limit", rules.DefaultLimit, 1, rules.MaxLimit)
	return page, limit, err
}

func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
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

func listCampaigns(_ *Server, rq *request) (int, any, error) {
	page, limit, err := pageParams(rq.r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	cs, total := rq.st.store.Campaigns(rq.caller, page, limit, rq.now.UnixNano())
	return http.StatusOK, &wire.CampaignPage{Campaigns: cs, Pagination: wire.Pagination{Page: page, Limit: limit, Total: total}}, nil
}

type deliveryJSON struct {
	CampaignID string          `json:"campaignId"`
	MessageID  *string         `json:"messageId"` // null while processing, and when failed
	Status     string          `json:"status"`
	Counts     store.Counts    `json:"counts"`
	Recipients []recipientJSON `json:"recipients"`
}

type recipientJSON struct {
	To        string    `json:"to"`
	Status    string    `json:"status"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func campaignStatus(_ *Server, rq *request) (int, any, error) {
	if _, ok := ids.Parse(rq.param); !ok {
		return 0, nil, notFound("Campaign")
	}
	page, limit, err := pageParams(rq.r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	c, recipients, err := rq.st.store.CampaignStatus(rq.caller, rq.param, page, limit, rq.now.UnixNano())
	if err != nil {
		return 0, nil, err
	}
	// A campaign without a provider message ID is answered too, so that a caller polls one
	// endpoint until the campaign is final: while processing, with nothing to count yet; once
	// failed (refused and refunded), with every recipient failed.
	out := deliveryJSON{CampaignID: c.ID.String(), Recipients: make([]recipientJSON, len(recipients))}
	total := c.Total()
	switch c.Status {
	case store.CampaignProcessing:
		out.Status, total = c.Status.String(), 0
	case store.CampaignFailed:
		out.Status, out.Counts = c.Status.String(), store.Counts{Failed: total}
	default:
		out.MessageID, out.Status, out.Counts = wire.OptString(c.MessageID()), c.Rollup(), store.CountsOf(&c)
	}
	for i, r := range recipients {
		out.Recipients[i] = recipientJSON{To: strconv.FormatUint(r.Phone, 10), Status: r.Status.String(), UpdatedAt: wire.Time(r.UpdatedAt)}
	}
	return http.StatusOK, wire.NewPage(out, page, limit, total), nil
}

// --- OTP -------------------------------------------------------------------------------------

type otpSentJSON struct {
	SMSStatus   string     `json:"smsStatus"`
	PhoneNumber string     `json:"phone_number"`
	PinID       string     `json:"pinId"`
	Status      string     `json:"status"`
	Amount      wire.Naira `json:"amount"`
	Currency    string     `json:"currency"`
}

func sendOTP(_ *Server, rq *request) (int, any, error) {
	var in struct {
		To             *string `json:"to"`
		From           *string `json:"from"`
		MessageText    *string `json:"message_text"`
		PinType        *string `json:"pin_type"`
		PinLength      *int    `json:"pin_length"`
		PinTimeToLive  *int    `json:"pin_time_to_live"`
		PinPlaceholder *string `json:"pin_placeholder"`
	}
	if err := wire.Decode(rq.body, &in); err != nil {
		return 0, nil, err
	}
	if in.To == nil {
		return 0, nil, badRequest("to", "to is required.")
	}
	p, err := store.ParsePhone("to", *in.To)
	if err != nil {
		return 0, nil, err
	}
	if err := checkSender(in.From); err != nil {
		return 0, nil, err
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
	o, err := rq.st.store.SendOTP(rq.caller, store.OTPParams{From: *in.From, Phone: p, Text: *in.MessageText,
		Placeholder: placeholder, Alphabet: alphabet, Length: length, TTL: time.Duration(ttl) * time.Minute}, rq.now)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, wire.Data{Data: otpSentJSON{SMSStatus: "Message Sent", PhoneNumber: o.Phone, PinID: o.PinID,
		Status: "200", Amount: wire.Naira(o.Amount), Currency: "NGN"}}, nil
}

type verificationJSON struct {
	PinID             string `json:"pinId"`
	Verified          bool   `json:"verified"`
	MSISDN            string `json:"msisdn"`
	AttemptsRemaining int    `json:"attemptsRemaining"`
}

func verifyOTP(_ *Server, rq *request) (int, any, error) {
	var in struct {
		PinID *string `json:"pin_id"`
		Pin   *string `json:"pin"`
	}
	if err := wire.Decode(rq.body, &in); err != nil {
		return 0, nil, err
	}
	if in.PinID == nil || *in.PinID == "" {
		return 0, nil, badRequest("pin_id", "pin_id is required.")
	}
	if in.Pin == nil || *in.Pin == "" {
		return 0, nil, badRequest("pin", "pin is required.")
	}
	v, err := rq.st.store.VerifyOTP(rq.caller, *in.PinID, *in.Pin, rq.now)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, wire.Data{Data: verificationJSON{PinID: v.PinID, Verified: v.Verified, MSISDN: v.Phone, AttemptsRemaining: v.AttemptsLeft}}, nil
}

// --- balance -------------------------------------------------------------------------------------

type balanceJSON struct {
	Balance  wire.Naira `json:"balance"`
	Cashback wire.Naira `json:"cashback"`
	Currency string     `json:"currency"`
}

func getBalance(_ *Server, rq *request) (int, any, error) {
	return http.StatusOK, wire.Data{Data: balanceJSON{Balance: wire.Naira(rq.st.store.Balance(rq.caller)), Currency: "NGN"}}, nil
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

func senderOut(s *store.SenderID) senderJSON {
	return senderJSON{ID: s.ID.String(), Title: s.Title, Status: s.Status.String(), Country: s.Country,
		Usecase: s.Usecase, Company: s.Company, CreatedAt: wire.Time(s.CreatedAt)}
}

func sendersOut(list []store.SenderID) wire.List {
	out := make([]senderJSON, len(list))
	for i := range list {
		out[i] = senderOut(&list[i])
	}
	return wire.List{Data: out, Count: len(out)}
}

func requestSenderID(_ *Server, rq *request) (int, any, error) {
	var in struct {
		SenderID *string `json:"sender_id"`
		Usecase  *string `json:"usecase"`
		Company  *string `json:"company"`
	}
	if err := wire.Decode(rq.body, &in); err != nil {
		return 0, nil, err
	}
	if in.SenderID == nil || !rules.ValidSenderID(*in.SenderID) {
		return 0, nil, badRequest("sender_id", "sender_id must be 3 to 11 ASCII letters and digits.")
	}
	if err := textField("usecase", in.Usecase, rules.MaxUsecaseLen); err != nil {
		return 0, nil, err
	}
	if err := textField("company", in.Company, rules.MaxCompanyLen); err != nil {
		return 0, nil, err
	}
	stored, err := rq.st.store.RequestSenderID(rq.caller, store.SenderIDParams{Title: *in.SenderID,
		Usecase: *in.Usecase, Company: *in.Company}, rq.now.UnixNano())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, struct {
		Message string     `json:"message"`
		Data    senderJSON `json:"data"`
	}{"Sender ID request submitted.", senderOut(&stored)}, nil
}

func textField(name string, v *string, maxLen int) error {
	if v == nil || strings.TrimSpace(*v) == "" {
		return badRequest(name, "%s is required.", name)
	}
	if utf8.RuneCountInString(*v) > maxLen {
		return badRequest(name, "%s must be at most %d characters.", name, maxLen)
	}
	return nil
}

func listSenderIDs(_ *Server, rq *request) (int, any, error) {
	status, all := store.SenderStatus(0), true
	if vs, ok := rq.r.URL.Query()["status"]; ok {
		i := slices.Index(store.SenderStatusNames[:], vs[0])
		if i < 0 {
			return 0, nil, badRequest("status", "status must be pending, active or blocked.")
		}
		status, all = store.SenderStatus(i), false
	}
	return http.StatusOK, sendersOut(rq.st.store.SenderIDs(rq.caller, status, all)), nil
}
