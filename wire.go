package sms

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// timestamp is a time as the API writes it. The service's own answers use two forms: RFC 3339
// ("2026-05-12T10:20:27Z", with or without fractional seconds) and the provider's
// "YYYY-MM-DD HH:MM:SS" ("2025-05-12 10:20:27"), which names no time zone and is read as UTC.
// "YYYY-MM-DDTHH:MM:SS" without a zone is read as UTC too. JSON null and "" are a time the
// server did not give; any other text is an error naming the member.
type timestamp struct{ t time.Time }

// Layouts of a timestamp without a zone, read as UTC; fractional seconds may follow.
var zonelessLayouts = [...]string{"2006-01-02 15:04:05", "2006-01-02T15:04:05"}

// UnmarshalJSON reads a JSON string in one of the forms above.
func (ts *timestamp) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	if ts.t.UnmarshalJSON(b) == nil { // RFC 3339, read without allocating
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf(`a time is a string, RFC 3339 or "YYYY-MM-DD HH:MM:SS", not %.40s`, b)
	}
	t, err := parseTimestamp(s)
	if err != nil {
		return err
	}
	ts.t = t
	return nil
}

// parseTimestamp reads s, in UTC when s names no zone; "" is the zero time.
func parseTimestamp(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range zonelessLayouts {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf(`a time is RFC 3339 or "YYYY-MM-DD HH:MM:SS", not %.40q`, s)
}

// time returns the time, or nil when the member was absent, null or empty. It points into ts,
// which the wire struct that held it no longer uses.
func (ts *timestamp) time() *time.Time {
	if ts == nil || ts.t.IsZero() {
		return nil
	}
	return &ts.t
}

// into returns the time stored in *slot, or nil (leaving *slot alone) when the member was
// absent, null or empty: the items of a page point into one slice of times rather than
// allocating one each.
func (ts timestamp) into(slot *time.Time) *time.Time {
	if ts.t.IsZero() {
		return nil
	}
	*slot = ts.t
	return slot
}

// optInt is a whole-number member that a server may leave out or send as null.
type optInt struct {
	n  int
	ok bool
}

// UnmarshalJSON reads a JSON integer; null leaves the member absent.
func (o *optInt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	n, err := strconv.Atoi(string(b)) // strconv keeps no reference: no allocation
	if err != nil {
		return fmt.Errorf("want a whole number, not %.40s", b)
	}
	*o = optInt{n: n, ok: true}
	return nil
}

// into returns the number stored in *slot, or nil when the member was absent, as
// timestamp.into does.
func (o optInt) into(slot *int) *int {
	if !o.ok {
		return nil
	}
	*slot = o.n
	return slot
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

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// val returns *p, or the zero T when p is nil.
func val[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
