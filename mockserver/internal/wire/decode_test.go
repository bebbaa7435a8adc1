package wire

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeJSONHoldsMembersToTheContract(t *testing.T) {
	t.Parallel()
	type Inner struct {
		Method string `json:"method,omitempty"`
		Skip   string `json:"-"`
	}
	type item struct {
		Phone *string `json:"phone"`
	}
	type body struct {
		Inner
		To      *string `json:"to"`
		Message *string `json:"message"`
		Items   []item  `json:"items"`
		Amount  *Naira  `json:"amount"`
		Count   *int    `json:"count"`
		Extra   any     `json:"extra"`
	}
	tests := []struct {
		name, body, field, message string
	}{
		{"exact names", `{"to":"1","message":"m"}`, "", ""},
		{"an embedded struct's members", `{"to":"1","method":"GET"}`, "", ""},
		{"another case is unknown", `{"TO":"1","message":"m"}`, "TO", `Unknown field "TO".`},
		{"unknown member", `{"to":"1","cc":"2"}`, "cc", `Unknown field "cc".`},
		{"a member tagged - is unknown", `{"to":"1","Skip":"x"}`, "Skip", `Unknown field "Skip".`},
		{"a name of digits is a name", `{"to":"1","0":"x"}`, "0", `Unknown field "0".`},
		{"escaped unknown name is reported unescaped", "{\"\\u007f\":0}", "\x7f", "Unknown field \"\\x7f\"."},
		{"unknown member in an element", `{"to":"1","items":[{"phone":"1"},{"phone":"2","x":1}]}`, "items[1].x", `Unknown field "x".`},
		{"the first fault in the body is told", `{"count":"x","cc":1}`, "count", "count must be an integer."},
		{"null member", `{"to":null,"message":"m"}`, "to", "to cannot be null; leave it out instead."},
		{"null in an element", `{"to":"1","items":[{"phone":"1"},{"phone":null}]}`, "items[1].phone", "items[1].phone cannot be null; leave it out instead."},
		{"null as an element", `{"to":"1","extra":[1,null]}`, "extra[1]", "extra[1] cannot be null; leave it out instead."},
		{"null inside a string is fine", `{"to":"null","message":"m"}`, "", ""},
		{"a name given twice", `{"to":"1","message":"m","to":"2"}`, "to", "to is given twice."},
		{"wrong type", `{"to":5}`, "to", "to must be a string."},
		{"not an amount", `{"to":"1","amount":1.234}`, "amount", "amount must be an amount in naira, at least 0 and with at most 2 decimals."},
		{"not an object", `[1]`, "", "Request body must be a JSON object."},
		{"trailing data", `{"to":"1"} {}`, "", "Request body must hold one JSON object and nothing after it."},
		{"trailing garbage", `{"to":"1"}x`, "", "Request body must hold one JSON object and nothing after it."},
		{"cut short", `{"to":`, "", "Malformed JSON: unexpected end of input."},
		{"cut short after an unknown name", `{""`, "", "Malformed JSON: unexpected end of input."},
		{"malformed after an unknown member", `{"cc":1,]`, "", "Malformed JSON at byte 8."},
		{"malformed", `{"to" "1"}`, "", "Malformed JSON at byte 6."},
		{"nested at the bound", `{"to":"1","extra":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`, "", ""},
		{"nested past the bound", `{"to":"1","extra":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, "", "Malformed JSON at byte 10017."},
		{"empty", "  ", "", "Request body is required."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v body
			e := Decode([]byte(tt.body), &v)
			if tt.message == "" {
				require.Nil(t, e)
				assert.NotNil(t, v.To)
				return
			}
			require.NotNil(t, e)
			assert.Equal(t, tt.field, e.Field)
			assert.Equal(t, tt.message, e.Message)
		})
	}
}

func TestCheckBody(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, field, message string }{
		{"{\"message\":\"a\xffb\"}", "message", "message is not valid UTF-8."},
		{"{\"to\":[\"1\",\"2\",\"\xc0\"]}", "to[2]", "to[2] is not valid UTF-8."},
		{"{\"to\":[{\"phone\":\"1\"},{\"phone\":\"2\",\"name\":\"\xed\xa0\x80\"}]}", "to[1].name", "to[1].name is not valid UTF-8."},
		{"{\"a\":{\"b\":[1,{\"c\":[true,null,\"\xff\"]}]}}", "a.b[1].c[2]", "a.b[1].c[2] is not valid UTF-8."},
		{"{\"ok\":\"é\",\"bad\":\"\xff\"}", "bad", "bad is not valid UTF-8."},
		{"\"\xff\"", "", "Request body is not valid UTF-8."},
		{"{\xff}", "", "Request body is not valid UTF-8."},
		{"{\"mess\xffage\":\"Hi\"}", "mess\ufffdage", "mess\ufffdage is not valid UTF-8."},
		{"{\"a\":[{\"b\\u00e9\xff\":1}]}", "a[0].bé\ufffd", "a[0].bé\ufffd is not valid UTF-8."},
		{" null ", "", "Request body must be a JSON object, not null."},
		{"{\"valid\":\"only\"}", "", ""},
		{"{\"malformed\" but valid UTF-8", "", ""},
	}
	for _, tt := range tests {
		e := CheckBody([]byte(tt.body))
		if tt.message == "" {
			assert.Nil(t, e, "%q", tt.body)
			continue
		}
		if assert.NotNil(t, e, "%q", tt.body) {
			assert.Equal(t, tt.field, e.Field, "%q", tt.body)
			assert.Equal(t, tt.message, e.Message, "%q", tt.body)
		}
	}
}

// TestSendFingerprint: two send bodies with the same members have the same fingerprint
// whatever their layout (member order, white space, escapes, to's objects); any other
// difference, or another path, changes it.
func TestSendFingerprint(t *testing.T) {
	t.Parallel()
	const base = `{"to":[{"phone":"1","name":"A"},"2"],"from":"MOCKSMS","message":"Hi <b>","reference":"r-1"}`
	fp := func(path, body string) [32]byte {
		f, e := DecodeSend([]byte(body))
		require.Nil(t, e, body)
		return f.Fingerprint(path)
	}
	want := fp("/v1/sms/campaigns", base)
	for _, same := range []string{
		"{ \"reference\":\"r-1\",\n\t\"message\":\"Hi \\u003cb>\",\"from\":\"MOCKSMS\",\"to\":[ {\"name\":\"A\",\"phone\":\"1\"} , \"2\" ] }",
		`{"to":[{"phone":"1","name":"\u0041"},"2"],"from":"MOCKSMS","message":"Hi <b>","reference":"r-1"}`,
	} {
		assert.Equal(t, want, fp("/v1/sms/campaigns", same), same)
	}
	for _, other := range []string{
		`{"to":[{"phone":"1","name":"A"},"2"],"from":"MOCKSMS","message":"Hi <b> ","reference":"r-1"}`,
		`{"to":["2",{"phone":"1","name":"A"}],"from":"MOCKSMS","message":"Hi <b>","reference":"r-1"}`,
		`{"to":[{"phone":"1","name":"A"},"2"],"from":"MOCKSMS","message":"Hi <b>","reference":"r-1","channel":"generic"}`,
		`{"to":[{"phone":"1"},"2"],"from":"MOCKSMS","message":"Hi <b>","reference":"r-1"}`,
		`{"to":[{"phone":"1","name":"A"},"2"],"from":"MOCKSMS","message":"","reference":"r-1"}`,
		`{"to":[{"phone":"1","name":"A"},"2"],"from":"MOCKSMS","reference":"r-1"}`,
	} {
		assert.NotEqual(t, want, fp("/v1/sms/campaigns", other), other)
	}
	assert.NotEqual(t, want, fp("/v1/sms/send", base), "another path")
}
