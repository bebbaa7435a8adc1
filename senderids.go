package sms

import (
	"cmp"
	"context"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
)

// SenderIDsService requests branded sender IDs and lists them. Sender IDs are shared by the
// live and test modes of a workspace.
type SenderIDsService struct{ c *core }

// SenderID is a branded sender ID: the name an SMS comes from.
//
// The service's sender-ids page lists only title, status and country: Title and Status are
// required, the other strings are empty when the server did not send them, and CreatedAt is
// nil then.
type SenderID struct {
	// ID is the server's ID of the sender ID; empty when the server did not send one (the
	// service's list shows none: the Title identifies a sender ID).
	ID      string
	Title   string // the sender ID text, as used in From
	Status  SenderIDStatus
	Country string // the workspace's country, such as "Nigeria"
	UseCase string
	Company string
	// CreatedAt is when it was requested; nil when the server did not send it. Times
	// without a zone ("2025-05-12 10:20:27", as the provider writes them) are read as UTC.
	CreatedAt *time.Time
	// Response is the HTTP answer it was read from, with its request ID; nil in a Page,
	// which carries the list's.
	Response *Response
}

// RequestSenderIDParams is the input of SenderIDsService.Request.
type RequestSenderIDParams struct {
	SenderID string // 3 to 11 ASCII letters and digits
	UseCase  string // what it will be used for, 1 to 500 characters
	Company  string // the company behind it, 1 to 100 characters
}

// Request asks for a new sender ID, which starts pending. A title equal, ignoring case, to a
// pending or active one of the workspace is a 409 (ErrConflict). Like OTPService's calls, it
// is retried only when the request cannot have been processed, and an ambiguous failure
// matches ErrOutcomeUnknown.
//
// Endpoint: POST /v1/sender-ids (scope sender_ids), documented by the live page
// https://developers.nairasms.com.ng/sender-ids.
func (s *SenderIDsService) Request(ctx context.Context, p *RequestSenderIDParams) (*SenderID, error) {
	if p == nil {
		return nil, invalid("RequestSenderIDParams", "parameters are required")
	}
	if !rules.ValidSenderID(p.SenderID) {
		return nil, invalid("SenderID", "a sender ID is 3 to 11 ASCII letters and digits")
	}
	if err := validateText("UseCase", p.UseCase, rules.MaxUsecaseLen); err != nil {
		return nil, err
	}
	if err := validateText("Company", p.Company, rules.MaxCompanyLen); err != nil {
		return nil, err
	}
	body := struct {
		SenderID string `json:"sender_id"`
		Usecase  string `json:"usecase"`
		Company  string `json:"company"`
	}{p.SenderID, p.UseCase, p.Company}
	var out struct {
		envelope
		Data wireSenderID `json:"data"`
	}
	cl := &call{method: http.MethodPost, path: "/v1/sender-ids", body: body, policy: retryUnsent}
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	if err := out.Data.check(cl); err != nil {
		return nil, err
	}
	out.Data.CreatedAt.place(cl.zoneOf(&out.envelope))
	resp := cl.responseOf(out.envelope, unreadable(nil, "data.", out.Data.flaws()...))
	sid := out.Data.senderID(resp)
	return &sid, nil
}

// ListSenderIDsParams filters the sender ID list.
type ListSenderIDsParams struct {
	// Status keeps only the sender IDs in that status: pending, active or blocked, in any
	// case ("Active" too); it is sent in lower case. Empty lists all.
	Status SenderIDStatus `url:"status,omitempty"`
}

// List returns the workspace's sender IDs, newest first (p may be nil): the whole list, in one
// page (a server that pages it anyway answers its first page, and Pagination says so; All
// walks every page).
//
// Endpoint: GET /v1/sender-ids (scope sender_ids), documented by the live page
// https://developers.nairasms.com.ng/sender-ids.
func (s *SenderIDsService) List(ctx context.Context, p *ListSenderIDsParams) (*Page[SenderID], error) {
	q, err := senderIDQuery(p)
	if err != nil {
		return nil, err
	}
	return s.list(ctx, q, nextRef{})
}

// senderIDQuery checks p (which may be nil) and returns the query it makes.
func senderIDQuery(p *ListSenderIDsParams) (*senderIDsQuery, error) {
	q := senderIDsQuery{}
	if p != nil {
		q.Status = p.Status
	}
	// Compared as status words are when read ("Active" is active), sent as the pages show.
	q.Status = SenderIDStatus(strings.ToLower(strings.TrimSpace(string(q.Status))))
	switch q.Status {
	case "", SenderIDStatusPending, SenderIDStatusActive, SenderIDStatusBlocked:
	default:
		return nil, invalid("Status", "the status filter is pending, active or blocked")
	}
	return &q, nil
}

// senderIDsQuery is the query of GET /v1/sender-ids: the filter, and the page a server that
// pages the list is asked for (none for the first request, see walkWhole).
type senderIDsQuery struct {
	Status SenderIDStatus `url:"status,omitempty"`
	Page   int            `url:"page,omitempty"`
	Limit  int            `url:"limit,omitempty"`
}

// list is List with the query q, fetching the page that next (a cursor or a URL, see
// Pagination.next) names when it names one.
func (s *SenderIDsService) list(ctx context.Context, q *senderIDsQuery, next nextRef) (*Page[SenderID], error) {
	var out struct {
		envelope
		wirePaging
		Data []wireSenderID `json:"data"`
	}
	cl := &call{method: http.MethodGet, path: "/v1/sender-ids", query: q, policy: retryIdempotent}
	if err := s.c.page(cl, next, q.Limit); err != nil {
		return nil, err
	}
	if err := s.c.do(ctx, cl, &out); err != nil {
		return nil, err
	}
	if err := cl.need(member{"data", out.Data != nil}); err != nil {
		return nil, err
	}
	pg, bad := out.pagination(cl.header, nil)
	loc := cl.zoneOf(&out.envelope)
	for i := range out.Data {
		w := &out.Data[i]
		w.CreatedAt.place(loc)
		if err := cl.needIn("data", i, w.members()...); err != nil {
			return nil, err
		}
		bad = unreadableIn(bad, "data", i, w.flaws()...)
	}
	bad = pg.distrust(q.Page, offset(q.Page, q.Limit, pg, next), len(out.Data), bad)
	page := &Page[SenderID]{Items: make([]SenderID, len(out.Data)), Pagination: pg}
	for i := range out.Data {
		page.Items[i] = out.Data[i].senderID(nil)
	}
	page.Response = cl.responseOf(out.envelope, bad)
	return page, nil
}

// All returns an iterator over the workspace's sender IDs, as List returns them (p may be
// nil). The list is not paged by the API, so it makes one request when the loop starts; when
// a server pages it all the same (its answer states a cursor, a next URL, more pages or a
// total above its items), the loop follows every page as Campaigns.All does, yielding each
// sender ID once. An error is yielded once and ends the loop.
//
// Endpoints: GET /v1/sender-ids (scope sender_ids), once when the loop starts and once for
// each further page a server states: see List.
func (s *SenderIDsService) All(ctx context.Context, p *ListSenderIDsParams) iter.Seq2[SenderID, error] {
	q, err := senderIDQuery(p)
	if err != nil {
		return fail[SenderID](err)
	}
	fetch := func(ctx context.Context, page, limit int, next nextRef) ([]SenderID, Pagination, error) {
		pq := *q
		pq.Page, pq.Limit = page, limit
		if page == 0 {
			pq.Limit = 0
		}
		pg, err := s.list(ctx, &pq, next)
		if err != nil {
			return nil, Pagination{}, err
		}
		return pg.Items, pg.Pagination, nil
	}
	return walkWhole(ctx, fetch, func(s SenderID) string { return s.ID + "\x00" + s.Title })
}

// wireSenderID is a sender ID on the wire: the service's title, or sender_id or senderId
// when the answer has no title; _id, or id when it has no _id.
type wireSenderID struct {
	ID        text       `json:"_id"`
	AltID     text       `json:"id"`
	Title     text       `json:"title"`
	SenderID  text       `json:"sender_id"`
	SenderID2 text       `json:"senderId"`
	Status    wireStatus `json:"status"`
	Country   text       `json:"country"`
	Usecase   text       `json:"usecase"`
	Company   text       `json:"company"`
	CreatedAt *timestamp `json:"createdAt"`
}

func (w *wireSenderID) senderID(resp *Response) SenderID {
	st := SenderIDStatus(w.Status.s)
	if st == "failed" { // "Rejected", "Failed": a sender ID refused
		st = SenderIDStatusBlocked
	}
	return SenderID{
		ID: cmp.Or(w.ID.s, w.AltID.s), Title: w.title(), Status: st, Country: w.Country.s, UseCase: w.Usecase.s,
		Company: w.Company.s, CreatedAt: w.CreatedAt.time(), Response: resp,
	}
}

// members are the members a sender ID is not read without: its title and status.
func (w *wireSenderID) members() []member {
	return []member{{"title", w.title() != ""}, {"status", w.Status.s != ""}}
}

// title is the sender ID text: title, else sender_id, else senderId.
func (w *wireSenderID) title() string { return cmp.Or(w.Title.s, w.SenderID.s, w.SenderID2.s) }

// flaws are the optional members of a sender ID, which may be unreadable.
func (w *wireSenderID) flaws() []flaw {
	return []flaw{{"_id", w.ID.bad}, {"id", w.AltID.bad}, {"country", w.Country.bad}, {"usecase", w.Usecase.bad},
		{"company", w.Company.bad}, {"createdAt", w.CreatedAt.unread()}}
}

// check checks the members of the sender ID that is the answer's data.
func (w *wireSenderID) check(cl *call) error {
	ms := w.members()
	for i := range ms {
		ms[i].name = "data." + ms[i].name
	}
	return cl.need(ms...)
}
