package sms

// The wire: the JSON shapes of requests and answers that several services share, and the
// tolerant readers of the members the service writes in more than one way.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The readers below never fail a decode: a member in a form they cannot read is left absent
// and marked bad, so that the service lists it on the result's Response (Response.Unreadable)
// rather than failing the call for it. A member the result cannot be built without is then
// missing, which the service's need check reports. encoding/json hands them valid JSON only.

// text is a string member: a JSON string; a number, kept as written (every digit of an id
// such as 3017600245086449408013699); or true or false, as the words. null is absent; an
// object or an array is unreadable.
type text struct {
	s    string
	bad  bool
	word bool // the value was JSON true or false: no id
}

// UnmarshalJSON reads the forms above; it never fails.
func (t *text) UnmarshalJSON(b []byte) error {
	t.s, t.bad = readText(b)
	t.word = b[0] == 't' || b[0] == 'f'
	return nil
}

// id returns the text when it can be an id: a string or a number, never true or false.
func (t *text) id() string {
	if t.word {
		return ""
	}
	return t.s
}

// readText reads a JSON value as text (see text): its string, and whether it was unreadable.
func readText(b []byte) (string, bool) {
	switch c := b[0]; {
	case c == '"':
		if s, ok := plainString(b); ok {
			return s, false
		}
		var s string
		err := json.Unmarshal(b, &s)
		return s, err != nil
	case c == '-' || '0' <= c && c <= '9', string(b) == "true", string(b) == "false":
		return string(b), false
	case c == 'n': // null
		return "", false
	}
	return "", true
}

// plainString returns the JSON string literal b without its quotes when it holds no escape
// and is valid UTF-8, as most are: the common case, read with one allocation.
func plainString(b []byte) (string, bool) {
	inner := b[1 : len(b)-1]
	for _, c := range inner {
		if c == '\\' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(inner) {
		return "", false
	}
	return string(inner), true
}

// timestamp is a time as a server may write it:
//
//   - RFC 3339 ("2026-05-12T10:20:27Z", with or without fractional seconds), or with an
//     offset without a colon ("2026-05-12T11:20:27+0100");
//   - "YYYY-MM-DD HH:MM:SS", as the provider writes it, and "YYYY-MM-DDTHH:MM:SS";
//     fractional seconds may follow; "DD/MM/YYYY HH:MM" (":SS" may follow); "YYYY-MM-DD"
//     (midnight); "YYYYMMDDHHMMSS": without a zone, read in the zone of the answer (see
//     call.zoneOf: its timezone member, else WithTimeZone's, West Africa Time by default);
//   - SMPP's absolute time "YYMMDDhhmmsstnnp" (tenths, then the offset in quarter hours and
//     its sign), and its delivery receipts' "YYMMDDhhmm" and "YYMMDDhhmmss" (without a zone)
//     when read as Unix time they would be more than a year ahead (see smppDate);
//   - Unix time as a JSON number or a string of digits (a fraction of a second may follow):
//     seconds; milliseconds from 10^11 (in seconds, past the year 5000); microseconds from
//     10^14; nanoseconds from 10^17.
//
// JSON null and "" are a time the server did not give; anything else is unreadable.
type timestamp struct {
	t     time.Time
	bad   bool
	naive bool // written without a zone: t holds the wall clock, in UTC until placed
}

// Layouts of a timestamp, tried in order after RFC 3339: with a zone, then without
// (timestampNaive on).
var timestampLayouts = [...]string{
	"2006-01-02T15:04:05Z0700", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05Z0700",
	"2006-01-02 15:04:05", "2006-01-02T15:04:05", "02/01/2006 15:04", "02/01/2006 15:04:05", "2006-01-02",
}

// timestampNaive is the index of the first layout without a zone.
const timestampNaive = 3

// Unix times from which a number is read in a smaller unit: 10^11 seconds is in the year
// 5138, 10^11 milliseconds in 1973; the same holds of milliseconds and microseconds at 10^14,
// and of microseconds and nanoseconds at 10^17.
const (
	epochMillis = 1e11
	epochMicros = 1e14
	epochNanos  = 1e17
)

// UnmarshalJSON reads the forms above; it never fails.
func (ts *timestamp) UnmarshalJSON(b []byte) error {
	*ts = timestamp{}
	if b[0] == 'n' { // null
		return nil
	}
	if ts.t.UnmarshalJSON(b) == nil { // RFC 3339, read without allocating
		return nil
	}
	s, bad := readText(b)
	if !bad {
		ts.t, ts.naive, bad = parseTimestamp(s, time.Now())
	}
	ts.bad = bad
	return nil
}

// parseTimestamp reads s in one of the forms of timestamp, at now: the time (the zero time
// for ""), whether it was written without a zone (its wall clock then in UTC), or whether it
// was unreadable.
func parseTimestamp(s string, now time.Time) (t time.Time, naive, bad bool) {
	if s == "" {
		return time.Time{}, false, false
	}
	if len(s) == 14 && digits(s) { // YYYYMMDDHHMMSS: as Unix milliseconds, past the year 2286
		if t, err := time.ParseInLocation("20060102150405", s, time.UTC); err == nil {
			return t, true, false
		}
	}
	if t, naive, ok := smppDate(s, now); ok {
		return t, naive, false
	}
	if t, ok := epoch(s); ok {
		return t, false, false
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, false, false
	}
	for i, layout := range timestampLayouts {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, i >= timestampNaive, false
		}
	}
	return time.Time{}, false, true
}

// epoch reads s as a Unix time: digits, with a sign and a fraction of a second or not, in
// the unit its size gives (see epochMillis); ok is false for anything else.
func epoch(s string) (time.Time, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		a := n
		if a < 0 {
			a = -a
		}
		switch {
		case a >= epochNanos:
			return time.Unix(0, n).UTC(), true
		case a >= epochMicros:
			return time.UnixMicro(n).UTC(), true
		case a >= epochMillis:
			return time.UnixMilli(n).UTC(), true
		}
		return time.Unix(n, 0).UTC(), true
	}
	whole, frac, ok := strings.Cut(s, ".")
	if !ok || len(frac) == 0 || len(frac) > 9 || strings.Trim(frac, "0123456789") != "" {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || n >= epochMillis || n <= -epochMillis {
		return time.Time{}, false // a fraction only of seconds
	}
	ns, _ := strconv.Atoi(frac + strings.Repeat("0", 9-len(frac)))
	if strings.HasPrefix(whole, "-") {
		ns = -ns
	}
	return time.Unix(n, int64(ns)).UTC(), true
}

// smppDate reads s as an SMPP time: the absolute "YYMMDDhhmmsstnnp" (p "+" or "-": nn
// quarter hours ahead of or behind UTC), or a delivery receipt's "YYMMDDhhmm" or
// "YYMMDDhhmmss" (zone-less: naive). The receipt's forms are digits that could be a Unix
// time: they are read as SMPP dates only when that Unix time would be more than a year after
// now (no answer states such a time of a message; "2611291000", 29 November 2026 at 10:00,
// is in 2052 as seconds) and, for "YYMMDDhhmmss", when it would be in milliseconds before
// 2001 (no SMS of this service is that old).
func smppDate(s string, now time.Time) (t time.Time, naive, ok bool) {
	switch len(s) {
	case 16:
		sign := s[15]
		if sign != '+' && sign != '-' || !digits(s[:15]) {
			return time.Time{}, false, false
		}
		t, err := time.ParseInLocation("060102150405", s[:12], time.UTC)
		if err != nil {
			return time.Time{}, false, false
		}
		quarters, _ := strconv.Atoi(s[13:15])
		if quarters > 56 {
			return time.Time{}, false, false
		}
		offset := time.Duration(quarters) * 15 * time.Minute
		if sign == '-' {
			offset = -offset
		}
		tenths, _ := strconv.Atoi(s[12:13])
		return t.Add(time.Duration(tenths)*100*time.Millisecond - offset), false, true
	case 10, 12:
		if !digits(s) {
			return time.Time{}, false, false
		}
		n, _ := strconv.ParseInt(s, 10, 64)
		if len(s) == 10 && time.Unix(n, 0).Before(now.AddDate(1, 0, 0)) {
			return time.Time{}, false, false // a Unix time in seconds that could be true
		}
		if len(s) == 12 && n >= 1e12 {
			return time.Time{}, false, false
		}
		t, err := time.ParseInLocation("060102150405"[:len(s)], s, time.UTC)
		if err != nil {
			return time.Time{}, false, false
		}
		return t, true, true
	}
	return time.Time{}, false, false
}

// digits reports whether s is only ASCII digits.
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// in returns the time, placed in loc when it was written without a zone (and returned in
// UTC), and whether there is one: none when the member was absent, null, empty or
// unreadable, or written without a zone when loc is nil (the answer named a zone the SDK
// cannot read: the time is not guessed).
func (ts *timestamp) in(loc *time.Location) (time.Time, bool) {
	if ts.t.IsZero() {
		return time.Time{}, false
	}
	if !ts.naive {
		return ts.t, true
	}
	if loc == nil {
		return time.Time{}, false
	}
	if loc == time.UTC {
		return ts.t, true
	}
	y, mo, d := ts.t.Date()
	h, mi, sec := ts.t.Clock()
	return time.Date(y, mo, d, h, mi, sec, ts.t.Nanosecond(), loc).UTC(), true
}

// place places a time written without a zone in loc (see in); a member that is absent or
// read is left alone.
func (ts *timestamp) place(loc *time.Location) {
	if ts == nil || !ts.naive {
		return
	}
	t, _ := ts.in(loc) // the zero time when it cannot be placed: no time
	ts.t, ts.naive = t, false
}

// time returns the time, or nil when the member was absent, null, empty or unreadable; one
// written without a zone must have been placed (see place). It points into ts, which the
// wire struct that held it no longer uses.
func (ts *timestamp) time() *time.Time {
	if ts == nil || ts.t.IsZero() {
		return nil
	}
	return &ts.t
}

// unread reports whether the member was present but unreadable.
func (ts *timestamp) unread() bool { return ts != nil && ts.bad }

// into returns the time (see in) stored in *slot, or nil (leaving *slot alone): the items of
// a page point into one slice of times rather than allocating one each.
func (ts timestamp) into(slot *time.Time, loc *time.Location) *time.Time {
	t, ok := ts.in(loc)
	if !ok {
		return nil
	}
	*slot = t
	return slot
}

// optInt is a whole-number member: a JSON integer, or a string of one ("1"), or a number
// with no fraction (1.0). null is absent; anything else is unreadable.
type optInt struct {
	n       int
	ok, bad bool
}

// UnmarshalJSON reads the forms above; it never fails.
func (o *optInt) UnmarshalJSON(b []byte) error {
	*o = optInt{}
	if b[0] == '"' {
		b = b[1 : len(b)-1]
	}
	if string(b) == "null" || len(b) == 0 {
		return nil
	}
	n, err := strconv.Atoi(string(b)) // strconv keeps no reference: no allocation
	if err != nil {
		f, ferr := strconv.ParseFloat(string(b), 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			o.bad = true
			return nil
		}
		n = int(f)
	}
	o.n, o.ok = n, true
	return nil
}

// into returns the number stored in *slot, or nil when the member was absent or unreadable,
// as timestamp.into does.
func (o optInt) into(slot *int) *int {
	if !o.ok {
		return nil
	}
	*slot = o.n
	return slot
}

// ptr returns the number, or nil when the member was absent or unreadable.
func (o optInt) ptr() *int {
	if !o.ok {
		return nil
	}
	return &o.n
}

// optAmount is an amount member, read as Amount reads it (a JSON number, or a string of one).
// null is absent; anything else is unreadable.
type optAmount struct {
	a       Amount
	ok, bad bool
}

// UnmarshalJSON reads the forms above; it never fails.
func (o *optAmount) UnmarshalJSON(b []byte) error {
	*o = optAmount{}
	if string(b) == "null" {
		return nil
	}
	o.bad = o.a.UnmarshalJSON(b) != nil
	o.ok = !o.bad
	return nil
}

// inUnit returns the amount read in unit, the unit its answer states (see amountUnit): as it
// is in naira or none, in kobo when minor; unreadable in a unit the SDK does not know, rather
// than guessed.
func (o optAmount) inUnit(unit string) optAmount {
	minor, ok := amountUnit(unit)
	switch {
	case !ok && (o.ok || o.bad):
		return optAmount{bad: true}
	case minor:
		return o.inMinor()
	}
	return o
}

// inMinor returns the amount read as a number of kobo rather than of naira: 150000 is 1,500.00
// naira. A number of kobo with a fraction is unreadable.
func (o optAmount) inMinor() optAmount {
	if !o.ok {
		return o
	}
	if o.a.kobo%100 != 0 {
		return optAmount{bad: true}
	}
	return optAmount{a: Amount{kobo: o.a.kobo / 100}, ok: true}
}

// ptr returns the amount, or nil when the member was absent or unreadable.
func (o optAmount) ptr() *Amount {
	if !o.ok {
		return nil
	}
	return &o.a
}

// into returns the amount stored in *slot, or nil when the member was absent or unreadable,
// as timestamp.into does.
func (o optAmount) into(slot *Amount) *Amount {
	if !o.ok {
		return nil
	}
	*slot = o.a
	return slot
}

// flaw is a member that may have been present but unreadable.
type flaw struct {
	name string // as spelled on the wire, such as "createdAt"
	bad  bool
}

// unreadable appends to list the names of the members of fs that were unreadable, each
// after prefix (such as "data." or "data[3].").
func unreadable(list []string, prefix string, fs ...flaw) []string {
	for _, f := range fs {
		if f.bad {
			list = append(list, prefix+f.name)
		}
	}
	return list
}

// unreadableIn is unreadable for item i of the list named list: the members are named
// "data[3].createdAt". It builds the prefix only for an item with an unreadable member.
func unreadableIn(names []string, list string, i int, fs ...flaw) []string {
	for _, f := range fs {
		if f.bad {
			return unreadable(names, list+"["+strconv.Itoa(i)+"].", fs...)
		}
	}
	return names
}

// verdict is the verified member of an OTP verification: JSON true or false, as the service's
// otp-verify page shows it, or the provider's strings "True", "False" and "Expired" (in any
// case), as its verify-token page says a token is "confirmed as verified or expired".
type verdict struct {
	verified bool
	expired  bool // "Expired": not verified, and the pin can no longer be
}

// UnmarshalJSON reads a JSON boolean or one of the strings above.
func (d *verdict) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case bool:
		*d = verdict{verified: v}
		return nil
	case string:
		switch {
		case strings.EqualFold(v, "true"):
			*d = verdict{verified: true}
			return nil
		case strings.EqualFold(v, "false"):
			*d = verdict{}
			return nil
		case strings.EqualFold(v, "expired"):
			*d = verdict{expired: true}
			return nil
		}
	}
	return fmt.Errorf(`want a boolean, or "true", "false" or "expired", not %.40s`, b)
}

// sendBody is the body of POST /v1/sms/send (To of numbers) and /v1/sms/campaigns (To of
// numbers and {phone, name} objects).
type sendBody[T any] struct {
	To        []T     `json:"to"`
	From      string  `json:"from"`
	Message   string  `json:"message"`
	Channel   Channel `json:"channel,omitempty"`
	Reference string  `json:"reference"`
}

// wireSent is the 202 answer of both sends, as the service's sms-send page shows it.
type wireSent struct {
	envelope
	Message  text `json:"message"`
	Campaign struct {
		ID         text       `json:"id"`
		Status     wireStatus `json:"status"`
		MessageID  text       `json:"message_id"` // null while the campaign has none
		Recipients optInt     `json:"recipients"`
		Amount     optAmount  `json:"amount"`
		Currency   text       `json:"currency"`
		Unit       text       `json:"unit"` // of amount: see inUnit
		SMSParts   optInt     `json:"sms_parts"`
		Reference  text       `json:"reference"`
	} `json:"campaign"`
}

// result builds the answer of a send, checking the members it needs: the campaign's id and
// status.
func (w *wireSent) result(cl *call, from string, ch Channel, ref string) (*SendResult, error) {
	wc := &w.Campaign
	if err := cl.need(member{"campaign.id", wc.ID.id() != ""}, member{"campaign.status", wc.Status.s != ""}); err != nil {
		return nil, err
	}
	if wc.Reference.s != "" && ref != "" && wc.Reference.s != ref {
		// An answer about another request says nothing of this one.
		return nil, fmt.Errorf("the %d answer is about the request with reference %s, not the reference %s sent",
			cl.status, strconv.Quote(printable(wc.Reference.s)), strconv.Quote(printable(ref)))
	}
	if ch == "" {
		ch = ChannelGeneric
	}
	wc.Amount = wc.Amount.inUnit(wc.Unit.s)
	bad := unreadable(nil, "campaign.", flaw{"message_id", wc.MessageID.bad}, flaw{"recipients", wc.Recipients.bad},
		flaw{"amount", wc.Amount.bad}, flaw{"currency", wc.Currency.bad}, flaw{"sms_parts", wc.SMSParts.bad})
	return &SendResult{
		Message: w.Message.s,
		Campaign: Campaign{
			ID: wc.ID.s, Status: CampaignStatus(wc.Status.s), MessageID: wc.MessageID.s, Recipients: wc.Recipients.n,
			Amount: wc.Amount.ptr(), Currency: wc.Currency.s, Parts: wc.SMSParts.ptr(),
			SenderID: from, Channel: ch, Reference: ref,
		},
		// A replay after an attempt of this call that may have been processed (a dropped
		// connection) is that attempt's answer: this call sent and charged it.
		Replayed: strings.EqualFold(header(cl.header, "Idempotent-Replayed"), "true") && !cl.maybeDone,
		Response: cl.responseOf(w.envelope, unreadable(bad, "", flaw{"message", w.Message.bad})),
	}, nil
}

// wireRecipient is a campaign recipient on the wire: a number, or {phone, name} when named
// (see campaignTo).
type wireRecipient struct {
	Phone string `json:"phone"`
	Name  string `json:"name"`
}

// campaignTo is the "to" of a campaign request (Campaigns.Create and every batch of
// bulk.Send): each recipient a number, or {phone, name} when named. Its items point into to,
// so that building it allocates the slice alone; encoding/json writes it.
func campaignTo(to []wireRecipient) []any {
	out := make([]any, len(to))
	for i := range to {
		if to[i].Name == "" {
			out[i] = &to[i].Phone
		} else {
			out[i] = &to[i]
		}
	}
	return out
}

// pageMembers are the members that page a list, under the names such APIs use: the page
// (page, current_page, currentPage), the page size (limit, perPage, per_page, pageSize,
// page_size), the number of items (total, totalCount, total_count, and count, read last: the
// service's keys and sender IDs state it so, as Django REST's paginator does) and of pages
// (pages, totalPages, total_pages, last_page, lastPage). encoding/json matches them ignoring
// case.
type pageMembers struct {
	Page         optInt `json:"page"`
	CurrentPage  optInt `json:"current_page"`
	CurrentPage2 optInt `json:"currentPage"`
	Limit        optInt `json:"limit"`
	PerPage      optInt `json:"perPage"`
	PerPage2     optInt `json:"per_page"`
	PageSize     optInt `json:"pageSize"`
	PageSize2    optInt `json:"page_size"`
	Total        optInt `json:"total"`
	TotalCount   optInt `json:"totalCount"`
	TotalCount2  optInt `json:"total_count"`
	Count        optInt `json:"count"`
	Pages        optInt `json:"pages"`
	TotalPages   optInt `json:"totalPages"`
	TotalPages2  optInt `json:"total_pages"`
	LastPage     optInt `json:"last_page"`
	LastPage2    optInt `json:"lastPage"`
	// A cursor list's members: the cursor of the next page, whether more follow, and the URL
	// of the next page (Laravel's next_page_url, Django REST's next).
	NextCursor   text     `json:"next_cursor"`
	NextCursor2  text     `json:"nextCursor"`
	HasMore      text     `json:"has_more"`
	HasMore2     text     `json:"hasMore"`
	NextPageURL  text     `json:"next_page_url"`
	NextPageURL2 text     `json:"nextPageUrl"`
	Next         linkText `json:"next"`
}

// linkText is a link member: a URL as a JSON string, or JSON:API's link object {"href": URL}.
// Any other value is no link.
type linkText struct{ s string }

// UnmarshalJSON reads the forms above; it never fails.
func (l *linkText) UnmarshalJSON(b []byte) error {
	*l = linkText{}
	switch b[0] {
	case '"':
		l.s, _ = readText(b)
	case '{':
		var o struct {
			Href text `json:"href"`
		}
		if json.Unmarshal(b, &o) == nil {
			l.s = o.Href.s
		}
	}
	return nil
}

// url returns the link when it is a URL (it holds a / or a ?), or "": a bare next member may
// be a page number, which a page walk reads from the page members instead.
func (l linkText) url() string {
	if strings.ContainsAny(l.s, "/?") {
		return l.s
	}
	return ""
}

// wireLinks is a links member: JSON:API's and Laravel resources' object, whose next is a URL
// or a link object; Laravel's paginator writes an array of {url, label, active} instead,
// which says no more than its next_page_url and is skipped. Any other value is no link.
type wireLinks struct{ next string }

// UnmarshalJSON reads the forms above; it never fails.
func (l *wireLinks) UnmarshalJSON(b []byte) error {
	*l = wireLinks{}
	if b[0] != '{' {
		return nil
	}
	var o struct {
		Next linkText `json:"next"`
	}
	if json.Unmarshal(b, &o) == nil {
		l.next = o.Next.s
	}
	return nil
}

// wirePaging is the paging of a list answer: its members under "pagination" (the service's),
// under "meta", or at the top level of the answer (Laravel's paginator), read in that order
// of preference, member by member, then the paging headers (see pagingHeaders). None at all
// is a list whose size is not known.
type wirePaging struct {
	pageMembers
	Pagination *pageMembers `json:"pagination"`
	Meta       *pageMembers `json:"meta"`
	Links      wireLinks    `json:"links"` // JSON:API's and Laravel resources' links.next
}

// pagingHeaders are the headers that page a list, read when the body does not say the same:
// the number of items (X-Total-Count, GitLab's X-Total, Yii's X-Pagination-Total-Count), of
// pages (X-Total-Pages, X-Pagination-Page-Count), the page (X-Page, X-Pagination-Current-Page),
// its size (X-Per-Page, X-Pagination-Per-Page) and the next page's cursor (X-Next-Cursor,
// X-Pagination-Next-Cursor). The Link header's rel="next" (RFC 8288) is the next page's URL.
// The keys are canonical, so that reading them allocates nothing.
var pagingHeaders = [...]struct {
	key  string
	slot int8 // 0 total, 1 pages, 2 page, 3 limit
}{
	{"X-Total-Count", 0}, {"X-Total", 0}, {"X-Pagination-Total-Count", 0},
	{"X-Total-Pages", 1}, {"X-Pagination-Page-Count", 1},
	{"X-Page", 2}, {"X-Pagination-Current-Page", 2},
	{"X-Per-Page", 3}, {"X-Pagination-Per-Page", 3},
}

// pagination returns the list's Pagination (see Pagination for what is unknown), read from
// the body's members and then the answer's headers h, and appends to bad the paging members
// that were present but unreadable.
func (w *wirePaging) pagination(h http.Header, bad []string) (Pagination, []string) {
	pg := Pagination{Total: -1}
	for _, g := range [...]struct {
		m      *pageMembers
		prefix string
	}{{w.Pagination, "pagination."}, {w.Meta, "meta."}, {&w.pageMembers, ""}} {
		if g.m == nil {
			continue
		}
		m := g.m
		pick := func(v *int, unset int, ms ...*optInt) {
			for _, o := range ms {
				if o.ok && *v == unset && o.n >= 0 {
					*v = o.n
				}
			}
		}
		pick(&pg.Page, 0, &m.Page, &m.CurrentPage, &m.CurrentPage2)
		pick(&pg.Limit, 0, &m.Limit, &m.PerPage, &m.PerPage2, &m.PageSize, &m.PageSize2)
		pick(&pg.Total, -1, &m.Total, &m.TotalCount, &m.TotalCount2)
		pick(&pg.Pages, 0, &m.Pages, &m.TotalPages, &m.TotalPages2, &m.LastPage, &m.LastPage2)
		pg.cursor = cmp.Or(pg.cursor, m.NextCursor.s, m.NextCursor2.s)
		pg.nextURL = cmp.Or(pg.nextURL, m.NextPageURL.s, m.NextPageURL2.s, m.Next.url())
		if pg.more == 0 {
			pg.more = moreOf(cmp.Or(m.HasMore.s, m.HasMore2.s))
		}
		bad = unreadable(bad, g.prefix,
			flaw{"page", m.Page.bad}, flaw{"current_page", m.CurrentPage.bad}, flaw{"currentPage", m.CurrentPage2.bad},
			flaw{"limit", m.Limit.bad}, flaw{"perPage", m.PerPage.bad}, flaw{"per_page", m.PerPage2.bad},
			flaw{"pageSize", m.PageSize.bad}, flaw{"page_size", m.PageSize2.bad},
			flaw{"total", m.Total.bad}, flaw{"totalCount", m.TotalCount.bad}, flaw{"total_count", m.TotalCount2.bad},
			flaw{"count", m.Count.bad},
			flaw{"pages", m.Pages.bad}, flaw{"totalPages", m.TotalPages.bad}, flaw{"total_pages", m.TotalPages2.bad},
			flaw{"last_page", m.LastPage.bad}, flaw{"lastPage", m.LastPage2.bad})
	}
	pg.nextURL = cmp.Or(pg.nextURL, w.Links.next)
	if pg.Total < 0 { // count, the least specific name, last
		for _, m := range [...]*pageMembers{w.Pagination, w.Meta, &w.pageMembers} {
			if m != nil && m.Count.ok && m.Count.n >= 0 {
				pg.Total = m.Count.n
				break
			}
		}
	}
	if len(h) > 0 {
		pg.fromHeaders(h)
	}
	return pg, bad
}

// fromHeaders fills in what the body left unsaid from the paging headers of h (see
// pagingHeaders); a header that is not a whole number of 0 or more is not read.
func (pg *Pagination) fromHeaders(h http.Header) {
	for _, ph := range pagingHeaders {
		v := header(h, ph.key)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			continue
		}
		switch {
		case ph.slot == 0 && pg.Total < 0:
			pg.Total = n
		case ph.slot == 1 && pg.Pages == 0:
			pg.Pages = n
		case ph.slot == 2 && pg.Page == 0:
			pg.Page = n
		case ph.slot == 3 && pg.Limit == 0:
			pg.Limit = n
		}
	}
	if pg.cursor == "" {
		pg.cursor = cmp.Or(header(h, "X-Next-Cursor"), header(h, "X-Pagination-Next-Cursor"))
	}
	if pg.nextURL == "" {
		for _, v := range h["Link"] {
			if u := linkNext(v); u != "" {
				pg.nextURL = u
				break
			}
		}
	}
}

// linkNext returns the target of the link whose rel is next in v, a Link header's value
// (RFC 8288: `<url>; rel="next", <url>; rel="prev"`), or "".
func linkNext(v string) string {
	for v != "" {
		start := strings.IndexByte(v, '<')
		end := strings.IndexByte(v, '>')
		if start < 0 || end < start {
			return ""
		}
		target := v[start+1 : end]
		v = v[end+1:]
		params := v
		if i := strings.IndexByte(v, '<'); i >= 0 {
			params = v[:i]
		}
		for _, p := range strings.Split(params, ";") {
			name, value, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
				continue
			}
			value = strings.Trim(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(value), ",")), `"`)
			for _, rel := range strings.Fields(value) {
				if strings.EqualFold(rel, "next") {
					return strings.TrimSpace(target)
				}
			}
		}
	}
	return ""
}

// moreOf reads a has_more member: 1 for true, -1 for false, 0 when absent or neither.
func moreOf(s string) int8 {
	switch {
	case strings.EqualFold(s, "true"), s == "1":
		return 1
	case strings.EqualFold(s, "false"), s == "0":
		return -1
	}
	return 0
}

// wireCampaign is a campaign as GET /v1/sms/campaigns lists it; its id is _id, or id when
// the item has no _id.
type wireCampaign struct {
	ID             text       `json:"_id"`
	AltID          text       `json:"id"`
	SenderID       text       `json:"senderId"`
	RecipientCount optInt     `json:"recipientCount"`
	Amount         optAmount  `json:"amount"`
	Status         wireStatus `json:"status"`
	Currency       text       `json:"currency"`
	Channel        text       `json:"channel"`
	SMSParts       optInt     `json:"smsParts"`
	MessageID      text       `json:"messageId"` // null while the campaign has none
	Reference      text       `json:"reference"` // null when the request had none
	CreatedAt      timestamp  `json:"createdAt"`
}

// campaignSlots are where the items of a page of campaigns keep their optional members, so
// that a page allocates one slice of each rather than one value per item.
type campaignSlots struct {
	parts   int
	amount  Amount
	created time.Time
}

// campaign returns the campaign, its optional members stored in slots when the server sent
// them, and appends to bad the members of item i that were unreadable.
func (w *wireCampaign) campaign(slots *campaignSlots, i int, loc *time.Location, bad []string) (Campaign, []string) {
	bad = unreadableIn(bad, "data", i, flaw{"senderId", w.SenderID.bad}, flaw{"recipientCount", w.RecipientCount.bad},
		flaw{"amount", w.Amount.bad}, flaw{"currency", w.Currency.bad}, flaw{"channel", w.Channel.bad},
		flaw{"smsParts", w.SMSParts.bad}, flaw{"messageId", w.MessageID.bad}, flaw{"reference", w.Reference.bad},
		flaw{"createdAt", w.CreatedAt.bad})
	return Campaign{
		ID: w.id(), Status: CampaignStatus(w.Status.s), MessageID: w.MessageID.s, Recipients: w.RecipientCount.n,
		Amount: w.Amount.into(&slots.amount), Currency: w.Currency.s, Parts: w.SMSParts.into(&slots.parts),
		SenderID: w.SenderID.s, Channel: Channel(w.Channel.s), Reference: w.Reference.s,
		CreatedAt: w.CreatedAt.into(&slots.created, loc),
	}, bad
}

// id is the campaign's _id, or its id when the item has no _id.
func (w *wireCampaign) id() string {
	if w.ID.s != "" {
		return w.ID.s
	}
	return w.AltID.s
}

// hasList reports whether the JSON object body has the member name, and it is an array: it
// tells an empty list from an absent one where the wire struct's slice was given room before
// decoding (and so is not nil when the member is absent). It decodes body again, which only
// an answer without items needs.
func hasList(body []byte, name string) bool {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return false
	}
	for k, v := range members { // encoding/json matches member names ignoring case
		if strings.EqualFold(k, name) && len(v) > 0 && v[0] == '[' {
			return true
		}
	}
	return false
}
