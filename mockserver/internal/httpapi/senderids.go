package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

type senderJSON struct {
	ID        string    `json:"_id"`
	Title     string    `json:"title"`
	Status    string    `json:"status"`
	Country   string    `json:"country"`
	Usecase   string    `json:"usecase"`
	Company   string    `json:"company"`
	CreatedAt time.Time `json:"createdAt"`
}

// senderDocumented is a sender ID as the sender-ids sample lists it.
type senderDocumented struct {
	Title   string `json:"title"`
	Status  string `json:"status"`
	Country string `json:"country"`
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

// requestSenderID is POST /v1/sender-ids.
func requestSenderID(_ *API, rq *request) (int, any, error) {
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
	status := http.StatusCreated
	if rq.documented { // the docs' table has no 201; the request waits for an approval
		status = http.StatusAccepted
	}
	return status, struct {
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

// listSenderIDs is GET /v1/sender-ids.
func listSenderIDs(_ *API, rq *request) (int, any, error) {
	status, all := store.SenderStatus(0), true
	if vs, ok := rq.r.URL.Query()["status"]; ok {
		i := slices.Index(store.SenderStatusNames[:], vs[0])
		if i < 0 {
			return 0, nil, badRequest("status", "status must be pending, active or blocked.")
		}
		status, all = store.SenderStatus(i), false
	}
	list := rq.st.store.SenderIDs(rq.caller, status, all)
	if rq.documented { // the sender-ids sample: title, status, country and count, no requestId
		out := make([]senderDocumented, len(list))
		for i, s := range list {
			out[i] = senderDocumented{Title: s.Title, Status: s.Status.String(), Country: s.Country}
		}
		return http.StatusOK, bare{wire.List{Data: out, Count: len(out)}}, nil
	}
	return http.StatusOK, sendersOut(list), nil
}
