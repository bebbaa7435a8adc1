package sms

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/seedsms/sms-go/internal/safetext"
)

// redactor is the rule for the server's text in the errors of this call (see
// internal/safetext): the credentials the call sent (its X-API-Secret, the dashboard token of
// its Authorization), the pins it sent, whatever is shaped like a secret or a JWT, and phone
// numbers, masked.
func (cl *call) redactor() *safetext.Redactor {
	var c safetext.Config
	c.People = true
	for _, k := range [...]string{"X-Api-Secret", "Authorization"} {
		for _, v := range cl.sentHeader[k] {
			v = strings.TrimSpace(v)
			if _, cred, ok := strings.Cut(v, " "); ok && k == "Authorization" {
				v = strings.TrimSpace(cred) // "Bearer <token>": the token
			}
			c.Secrets = append(c.Secrets, v)
		}
	}
	c.Pins = sentPins(cl.sentBody)
	return safetext.New(c)
}

// sentPins returns the string values that body, the JSON the call sent, holds under a member
// whose name says it is a secret or a pin (see safetext.Hidden), at any depth.
func sentPins(body []byte) []string {
	if len(body) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any, bool)
	walk = func(v any, hidden bool) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				walk(x, safetext.Hidden(k))
			}
		case []any:
			for _, x := range t {
				walk(x, hidden)
			}
		case string:
			if hidden {
				out = append(out, t)
			}
		case json.Number, float64:
			if hidden {
				b, _ := json.Marshal(t)
				out = append(out, string(b))
			}
		}
	}
	walk(v, false)
	return out
}

// redactError replaces the server's text in err, an *Error or a *ScopeError (its message,
// code, field and snippet, and the secrets of its request ID), as the call's redactor does, and
// returns err. It is the one place where the server's words enter the call's error.
func (cl *call) redactError(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	r := cl.redactor()
	e.Message, e.Code, e.Field = r.Text(e.Message), r.Text(e.Code), r.Text(e.Field)
	e.Snippet, e.RequestID = r.Text(e.Snippet), r.Secrets(e.RequestID)
	return err
}
