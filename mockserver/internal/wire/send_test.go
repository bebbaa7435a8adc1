package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// generalWay decodes body the way a body the fast path declines is decoded: ReadSend without
// a decoded input, ReferenceOf and Fingerprint.
func generalWay(path string, body []byte, campaign bool) (in SendFields, targets []store.Target, ref string, fp [32]byte, e error) {
	in, targets, e = ReadSend(nil, body, campaign)
	ref, _ = ReferenceOf(body)
	fp, _ = Fingerprint(path, body)
	return in, targets, ref, fp, e
}

// fieldAndMessage is what the API's error of err says: its member and its message.
func fieldAndMessage(err error) [2]string {
	var we *Error
	var fe *store.FieldError
	switch {
	case errors.As(err, &we):
		return [2]string{we.Field, we.Message}
	case errors.As(err, &fe):
		return [2]string{fe.Field, fe.Message}
	}
	return [2]string{"?", err.Error()}
}

// agrees checks that when the fast path accepts body, the general way decodes it without an
// error and finds the same members, the same recipients or recipient error, the same
// reference and the same fingerprint. It reports whether the fast path accepted the body.
func agrees(t *testing.T, body []byte, campaign bool) bool {
	t.Helper()
	path := "/v1/sms/send"
	if campaign {
		path = "/v1/sms/campaigns"
	}
	fast, ok := DecodeSend(path, body, campaign)
	if !ok {
		return false
	}
	in, targets, ref, fp, e := generalWay(path, body, campaign)
	if in.To == nil && e == nil {
		t.Fatalf("%q: the fast path accepts a body without to", body)
	}
	fastTargets, fastErr := fast.Targets()
	if e != nil && (fastErr == nil || fieldAndMessage(e) != fieldAndMessage(fastErr)) {
		t.Fatalf("%q: the general way says %v, the fast path %v", body, e, fastErr)
	}
	if e == nil && fastErr != nil {
		t.Fatalf("%q: the fast path says %v, the general way accepts it", body, fastErr)
	}
	if !reflect.DeepEqual(targets, fastTargets) {
		t.Fatalf("%q: recipients differ:\n general %v\n fast    %v", body, targets, fastTargets)
	}
	want := fmt.Sprintf("%v|%v|%v|%v", show(in.From), show(in.Message), show(in.Channel), show(in.Reference))
	got := fmt.Sprintf("%v|%v|%v|%v", show(fast.From), show(fast.Message), show(fast.Channel), show(fast.Reference))
	if want != got {
		t.Fatalf("%q: members differ:\n general %s\n fast    %s", body, want, got)
	}
	if fast.Reference != nil && ref != "" && ref != *fast.Reference {
		t.Fatalf("%q: reference %q, fast path %q", body, ref, *fast.Reference)
	}
	if fp != fast.Fingerprint {
		t.Fatalf("%q: fingerprints differ", body)
	}
	return true
}

func show(p *string) string {
	if p == nil {
		return "<absent>"
	}
	return "=" + *p
}

// randomText is a string of pieces that JSON writes in different ways.
func randomText(r *rand.Rand) string {
	pieces := []string{"a", "Z", "9", " ", "{{name}}", "é", "€", "😀", "<", ">", "&", "\"", "\\", "/",
		"\n", "\t", "\x01", "\x7f", "\u2028", "\u2029", "\ufffd"}
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// writeString writes s as a JSON string, escaping characters at random in each legal way.
func writeString(r *rand.Rand, b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20 || r.IntN(8) == 0:
			if c > 0xffff {
				hi, lo := (c-0x10000)>>10+0xd800, (c-0x10000)&0x3ff+0xdc00
				fmt.Fprintf(b, `\u%04x\u%04X`, hi, lo)
			} else {
				fmt.Fprintf(b, `\u%04x`, c)
			}
		case c == '/' && r.IntN(2) == 0:
			b.WriteString(`\/`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
}

func space(r *rand.Rand) string { return []string{"", "", " ", "\n\t", "\r\n  "}[r.IntN(5)] }

// randomBody is a send or campaign body of valid JSON: the members in random order, some left
// out, and to in the route's forms, some numbers invalid.
func randomBody(r *rand.Rand, campaign bool) []byte {
	phones := []string{"2348025671695", "08025671695", "+2348025671695", "447700900123", "0802567", "abc", "2348025671695"}
	var b strings.Builder
	b.WriteString(space(r) + "{")
	members := r.Perm(5)
	first := true
	for _, m := range members {
		if r.IntN(6) == 0 && m != 0 {
			continue
		}
		if !first {
			b.WriteString(space(r) + "," + space(r))
		}
		first = false
		name := []string{"to", "from", "message", "channel", "reference"}[m]
		b.WriteString(`"` + name + `"` + space(r) + ":" + space(r))
		switch name {
		case "to":
			if !campaign && r.IntN(3) == 0 {
				writeString(r, &b, phones[r.IntN(len(phones))])
				continue
			}
			b.WriteString("[")
			for i := range 1 + r.IntN(4) {
				if i > 0 {
					b.WriteString(space(r) + ",")
				}
				if campaign && r.IntN(2) == 0 {
					b.WriteString("{")
					phone := func() {
						b.WriteString(`"phone":`)
						writeString(r, &b, phones[r.IntN(len(phones))])
					}
					switch r.IntN(3) {
					case 0:
						phone()
					case 1:
						phone()
						b.WriteString(`,"name":`)
						writeString(r, &b, randomText(r))
					default:
						b.WriteString(`"name"` + space(r) + ":")
						writeString(r, &b, randomText(r))
						b.WriteString(",")
						phone()
					}
					b.WriteString(space(r) + "}")
					continue
				}
				writeString(r, &b, phones[r.IntN(len(phones))])
			}
			b.WriteString(space(r) + "]")
		case "from":
			writeString(r, &b, []string{"MOCKSMS", "x", randomText(r)}[r.IntN(3)])
		case "channel":
			writeString(r, &b, []string{"generic", "dnd", randomText(r)}[r.IntN(3)])
		default:
			writeString(r, &b, randomText(r))
		}
	}
	b.WriteString("}" + space(r))
	return []byte(b.String())
}

// TestDecodeSendAgreesWithTheGeneralWay: on random valid bodies, the one-pass decoder accepts
// the body and finds what the general way finds, fingerprint included, so that a request
// decoded either way replays the other.
func TestDecodeSendAgreesWithTheGeneralWay(t *testing.T) {
	t.Parallel()
	for _, campaign := range []bool{false, true} {
		r := rand.New(rand.NewPCG(1, map[bool]uint64{false: 2, true: 3}[campaign]))
		for range 3000 {
			body := randomBody(r, campaign)
			require.True(t, json.Valid(body), "%s", body)
			require.True(t, agrees(t, body, campaign), "a valid body of known members is decoded in one pass: %s", body)
		}
	}
}

// TestDecodeSendDeclines: the bodies the fast path leaves to the general way, which answers
// them with the contract's errors.
func TestDecodeSendDeclines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     string
		campaign bool
	}{
		{"empty", ``, false},
		{"null", `null`, false},
		{"array", `[]`, false},
		{"empty object", `{}`, false},
		{"no to", `{"from":"MOCKSMS","message":"Hi"}`, false},
		{"unknown member", `{"to":"2348025671695","From":"MOCKSMS"}`, false},
		{"repeated member", `{"to":"2348025671695","to":"2348025671695"}`, false},
		{"null member", `{"to":"2348025671695","from":null}`, false},
		{"number", `{"to":2348025671695}`, false},
		{"number in to", `{"to":["2348025671695",2348025671696]}`, false},
		{"object in a send", `{"to":[{"phone":"2348025671695"}]}`, false},
		{"string to of a campaign", `{"to":"2348025671695"}`, true},
		{"empty to", `{"to":[]}`, false},
		{"object without phone", `{"to":[{"name":"Ada"}]}`, true},
		{"unknown member of a recipient", `{"to":[{"phone":"2348025671695","nick":"A"}]}`, true},
		{"null name", `{"to":[{"phone":"2348025671695","name":null}]}`, true},
		{"invalid UTF-8", "{\"to\":\"2348025671695\",\"message\":\"\xff\"}", false},
		{"lone surrogate", `{"to":"2348025671695","message":"\ud800"}`, false},
		{"control character", "{\"to\":\"2348025671695\",\"message\":\"a\x01\"}", false},
		{"bad escape", `{"to":"2348025671695","message":"\x"}`, false},
		{"trailing data", `{"to":"2348025671695"} {}`, false},
		{"trailing comma", `{"to":"2348025671695",}`, false},
		{"unterminated", `{"to":"2348025671695"`, false},
		{"101 numbers", `{"to":[` + strings.Repeat(`"2348025671695",`, 100) + `"2348025671695"]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := "/v1/sms/send"
			_, ok := DecodeSend(path, []byte(tt.body), tt.campaign)
			require.False(t, ok)
		})
	}
}

// FuzzDecodeSend: whatever the body, the fast path does not panic, and a body it accepts is
// one the general way decodes to the same members, recipients and fingerprint.
func FuzzDecodeSend(f *testing.F) {
	r := rand.New(rand.NewPCG(4, 5))
	for i := range 20 {
		f.Add(randomBody(r, i%2 == 0), i%2 == 0)
	}
	f.Add([]byte(`{"to":"\ud83d\ude00"}`), false)
	f.Add([]byte(`{"t\u006f":"2348025671695"}`), false)
	f.Add([]byte(`{"to":[{"name":"\u00e9","phone":"08025671695"}],"message":"{{name}}"}`), true)
	f.Fuzz(func(t *testing.T, body []byte, campaign bool) {
		agrees(t, body, campaign)
	})
}
