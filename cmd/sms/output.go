package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
)

// writeJSON prints v as one JSON document, escaped for a terminal (see escapeJSON).
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(escapeJSON(b), '\n'))
	return err
}

// writeJSONLine prints v as one line of JSON, for lists, escaped for a terminal.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(escapeJSON(b), '\n'))
	return err
}

// table writes aligned columns for people. Every cell is escaped (see printable): cells hold
// the server's text, and a tab or a line feed in one would break the columns too.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		if c == "" {
			cells[i] = "-"
		} else {
			cells[i] = printable(c)
		}
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

// when formats a time for a table: RFC 3339 in UTC to the second, or "" when the server did
// not send it.
func when(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// optTime is a time for JSON: nil, left out, when the server did not send it.
func optTime(t *time.Time) *time.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func itoa(n int) string { return strconv.Itoa(n) }

// optItoa formats a number the server may not have sent: "" when it did not.
func optItoa(n *int) string {
	if n == nil {
		return ""
	}
	return itoa(*n)
}

// yesNo writes a boolean for people.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// campaignJSON is a campaign in --json output.
type campaignJSON struct {
	ID         string             `json:"id"`
	Status     sms.CampaignStatus `json:"status"`
	MessageID  string             `json:"messageId,omitempty"`
	Recipients int                `json:"recipients"`
	Parts      *int               `json:"parts,omitempty"`
	Amount     *sms.Amount        `json:"amount,omitempty"` // absent when the server did not say
	Currency   string             `json:"currency"`
	SenderID   string             `json:"senderId"`
	Channel    sms.Channel        `json:"channel,omitempty"`
	Reference  string             `json:"reference,omitempty"`
	CreatedAt  *time.Time         `json:"createdAt,omitempty"`
	Replayed   bool               `json:"replayed,omitempty"`
}

func campaignOut(c sms.Campaign) campaignJSON {
	return campaignJSON{
		ID: c.ID, Status: c.Status, MessageID: c.MessageID, Recipients: c.Recipients, Parts: c.Parts,
		Amount: c.Amount, Currency: c.Currency, SenderID: c.SenderID, Channel: c.Channel,
		Reference: c.Reference, CreatedAt: optTime(c.CreatedAt),
	}
}

// countsJSON is a campaign's delivery counts in --json output.
type countsJSON struct {
	Sent      int `json:"sent"`
	Delivered int `json:"delivered"`
	Failed    int `json:"failed"`
	DND       int `json:"dnd"`
}

func countsOut(c sms.DeliveryCounts) countsJSON { return countsJSON(c) }

// recipientJSON is one recipient's delivery in --json output.
type recipientJSON struct {
	To        string              `json:"to"`
	Status    sms.RecipientStatus `json:"status"`
	UpdatedAt *time.Time          `json:"updatedAt,omitempty"`
}

// paginationJSON is a page of a list in --json output.
type paginationJSON struct {
	Page  int  `json:"page"`
	Limit int  `json:"limit"`
	Total *int `json:"total,omitempty"` // absent when the server did not say
}

// deliveryJSON is a campaign's delivery status in --json output.
type deliveryJSON struct {
	CampaignID string             `json:"campaignId"`
	MessageID  string             `json:"messageId,omitempty"`
	Status     sms.DeliveryStatus `json:"status"`
	Counts     *countsJSON        `json:"counts,omitempty"`
	Recipients []recipientJSON    `json:"recipients"`
	Pagination *paginationJSON    `json:"pagination,omitempty"`
}

func deliveryOut(st *sms.Delivery, withPage bool) deliveryJSON {
	out := deliveryJSON{
		CampaignID: st.CampaignID, MessageID: st.MessageID, Status: st.Status,
		Recipients: make([]recipientJSON, len(st.Recipients.Items)),
	}
	if st.Counts != nil {
		c := countsOut(*st.Counts)
		out.Counts = &c
	}
	for i, r := range st.Recipients.Items {
		out.Recipients[i] = recipientJSON{To: r.To, Status: r.Status, UpdatedAt: optTime(r.UpdatedAt)}
	}
	if withPage {
		pg := st.Recipients.Pagination
		out.Pagination = &paginationJSON{Page: pg.Page, Limit: pg.Limit}
		if pg.Total >= 0 {
			out.Pagination.Total = &pg.Total
		}
	}
	return out
}

// printDelivery prints a campaign's delivery: the counts, then the recipients when any.
// A hint about further pages goes to hint (stderr).
func printDelivery(w, hint io.Writer, st *sms.Delivery) error {
	t := newTable(w, "CAMPAIGN", "DELIVERY", "NO REPORT", "DELIVERED", "FAILED", "DND")
	counts := make([]string, 4) // "-" when the server sent no counts
	if c := st.Counts; c != nil {
		counts = []string{itoa(c.Sent), itoa(c.Delivered), itoa(c.Failed), itoa(c.DND)}
	}
	t.row(append([]string{st.CampaignID, string(st.Status)}, counts...)...)
	if err := t.flush(); err != nil {
		return err
	}
	rs := &st.Recipients
	if len(rs.Items) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	t = newTable(w, "TO", "DELIVERY", "UPDATED")
	for _, r := range rs.Items {
		t.row(r.To, string(r.Status), when(r.UpdatedAt))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if rs.Total > len(rs.Items) && rs.Limit > 0 {
		fmt.Fprintf(hint, "page %d of %d (%d recipients); --page N for more, --all for every one\n",
			rs.Page, (rs.Total+rs.Limit-1)/rs.Limit, rs.Total)
	}
	return nil
}

// countingWriter counts what was written to stdout, so that a failed command prints its
// JSON error only when it printed no result.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// errorJSON is the error of a failed command with --json, on stdout: the line printed on
// stderr, the exit status, and what an API error says.
type errorJSON struct {
	Error struct {
		Message   string `json:"message"`
		ExitCode  int    `json:"exitCode"`
		Status    int    `json:"status,omitempty"`
		Code      string `json:"code,omitempty"`
		Field     string `json:"field,omitempty"`
		Scope     string `json:"scope,omitempty"`
		RequestID string `json:"requestId,omitempty"`
	} `json:"error"`
}

func errorOut(cmd *cobra.Command, err error, code int) errorJSON {
	var out errorJSON
	e := &out.Error
	e.Message, e.ExitCode = strings.TrimPrefix(strings.TrimPrefix(errorLine(cmd, err), "sms: "), "sms "), code
	var apiErr *sms.Error
	if errors.As(err, &apiErr) {
		e.Status, e.Code, e.Field, e.RequestID = apiErr.StatusCode, apiErr.Code, apiErr.Field, apiErr.RequestID
	}
	var se *sms.ScopeError
	if errors.As(err, &se) {
		e.Scope = string(se.Scope)
	}
	return out
}

// amountText writes an amount and its currency for a table, or "?" when the server did not
// say what it was.
func amountText(a *sms.Amount, currency string) string {
	if a == nil {
		return "?"
	}
	return strings.TrimSpace(a.String() + " " + currency)
}
