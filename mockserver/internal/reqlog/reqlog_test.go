package reqlog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/internal/safetext"
)

func TestRedactBody(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"pin_id":"p1","pin":"123456"}`, `{"pin_id":"p1","pin":"[REDACTED]"}`},
		{`{"pin_id":"p1","PIN":"123456"}`, `{"pin_id":"p1","PIN":"[REDACTED]"}`},
		{`{"pin_id":"p1","p\u0069n":"123456"}`, `{"pin_id":"p1","p\u0069n":"[REDACTED]"}`},
		{`{"nested":[{"secret":"s"}]}`, `{"nested":[{"secret":"[REDACTED]"}]}`},
		{`{ "to": "2348025671695",  "message": "hi" }`, `{"to":"2348025671695","message":"hi"}`},
		// Names that fold to a secret's (Unicode folding, where "ſ" is "s") are secrets' too.
		{`{"ſecret":"s"}`, `{"ſecret":"[REDACTED]"}`},
		{`{"message":"say \"hi\"","Pin":"1234"}`, `{"message":"say \"hi\"","Pin":"[REDACTED]"}`},
		{`{"message":"line\none","pin":"1234"}`, `{"message":"line\none","pin":"[REDACTED]"}`},
		{`{"message":"pin","to":"x"}`, `{"message":"pin","to":"x"}`},
		// Credentials in the body, as Termii-style clients send them, under any name that says so.
		{`{"api_key":"k1","api_secret":"plain","otp_code":"9911","pinCode":7731,"token":{"a":1},"pinId":"p1"}`,
			`{"api_key":"[REDACTED]","api_secret":"[REDACTED]","otp_code":"[REDACTED]","pinCode":"[REDACTED]","token":"[REDACTED]","pinId":"p1"}`},
		{`{"message":"key sk_live_abc and eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln","to":"x"}`, `{"message":"key [REDACTED] and [REDACTED]","to":"x"}`},
		{`{"message":"Bearer\tabc"}`, `{"message":"[REDACTED]"}`},
		{`{"to":"x"} trailing`, `"[not JSON]"`},
		{`{"pin":"1"}}`, `"[not JSON]"`},
		{`{"to":"x"`, `"[not JSON]"`},
		{`not json`, `"[not JSON]"`},
		{``, ``},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(redactBody([]byte(tt.in), shapes)), tt.in)
	}
}

func TestLooksSecret(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value  string
		secret bool
	}{
		{"sk_live_0123456789ABCDEFGHIJabcdefghij0123456789", true},
		{"SK_TEST_abc", true},
		{"token=sk_test_abc; other", true},
		{"Bearer abc.def", true},
		{"  bearer x", true},
		{"Basic dXNlcjpwYXNz", true},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln", true},
		{"id=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.", true},
		{"pk_live_0123456789ABCDEFabcdefgh", false},
		{"application/json", false},
		{"Go-http-client/1.1", false},
		{"eyJust.one dot", false},
		{"eyJhbGci.a.b", true},
		{"h=eyJhbGciOiJIUzI1NiJ9", true}, // a JWT's first segment alone
		{"eyJ.a.b", false},               // too short to be a JWT's segment
		{"a.b.c", false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.secret, looksSecret(tt.value), tt.value)
	}
}

func TestRedactQuery(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"page=2&limit=20", "page=2&limit=20"},
		{"secret=sk_live_abc&page=2", "page=2&secret=%5BREDACTED%5D"},
		{"t=Bearer+abc", "t=%5BREDACTED%5D"},
		{"x=%zz&secret=sk_test_a", "[REDACTED]"}, // not a query url can parse: all of it
		{"api_secret=plain&pinId=p1&pin=", "api_secret=%5BREDACTED%5D&pin=&pinId=p1"},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, redactQuery(tt.in, shapes), tt.in)
	}
}

// TestRedactedRecord: a secret is replaced wherever the request carried it: a path segment, a
// query parameter's name or value, a header's name or value; the request's own credentials
// are replaced whatever their shape, the rest is kept.
func TestRedactedRecord(t *testing.T) {
	t.Parallel()
	const (
		secret = "sk_live_0123456789abcdefABCDEF0123456789abcd"
		odd    = "my/own secret=1&x" // the request's own X-API-Secret, of no known shape
		token  = "opaque-token-value"
		ownJWT = "aGVhZGVyLXBhcnQ.Ym9keS1wYXJ0LWxvbmc.c2lnbmF0dXJlLXBhcnQ" // no eyJ: found as the request's own
	)
	tests := []struct {
		name    string
		rec     Record
		want    Record
		secrets []string
	}{
		{
			name: "a path segment",
			rec:  Record{Path: "/v1/sms/campaigns/" + secret + "/status"},
			want: Record{Path: "/v1/sms/campaigns/[REDACTED]/status"},
		},
		{
			name: "a JWT in the path",
			rec:  Record{Path: "/v1/keys/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"},
			want: Record{Path: "/v1/keys/[REDACTED]"},
		},
		{
			name: "a query parameter's name",
			rec:  Record{Query: url.QueryEscape(secret) + "=1&page=2"},
			want: Record{Query: "%5BREDACTED%5D=1&page=2"},
		},
		{
			name: "a query parameter's name and value",
			rec:  Record{Query: url.QueryEscape(secret) + "=" + url.QueryEscape("Bearer x")},
			want: Record{Query: "%5BREDACTED%5D=%5BREDACTED%5D"},
		},
		{
			name: "a header's name",
			rec:  Record{Headers: map[string][]string{"Sk_live_abcdef": {"1"}, "X-Trace": {"t"}}},
			want: Record{Headers: map[string][]string{"[REDACTED]": {"1"}, "X-Trace": {"t"}}},
		},
		{
			name: "the request's own secret, of no known shape, everywhere",
			rec: Record{
				Path: "/v1/" + odd + "/x", Query: url.QueryEscape(odd) + "=" + url.QueryEscape(odd),
				Headers: map[string][]string{"X-Api-Secret": {odd}, "X-Echo": {"a " + odd}},
			},
			want: Record{
				Path: "/v1/[REDACTED]/x", Query: "%5BREDACTED%5D=%5BREDACTED%5D",
				Headers: map[string][]string{"X-Api-Secret": {Redacted}, "X-Echo": {Redacted}},
			},
			secrets: []string{odd},
		},
		{
			name: "a bearer token echoed in the path",
			rec:  Record{Path: "/v1/keys/" + token, Headers: map[string][]string{"Authorization": {"Bearer " + token}}},
			want: Record{Path: "/v1/keys/[REDACTED]", Headers: map[string][]string{"Authorization": {Redacted}}},
		},
		{
			name: "a short credential is not searched for",
			rec:  Record{Path: "/v1/sms/send", Headers: map[string][]string{"X-Api-Secret": {"s"}}},
			want: Record{Path: "/v1/sms/send", Headers: map[string][]string{"X-Api-Secret": {Redacted}}},
		},
		{
			name: "the request's own secret without its prefix in a query value",
			rec:  Record{Query: "key=" + secret[len("sk_live_"):] + "&page=2", Headers: map[string][]string{"X-Api-Secret": {secret}}},
			want: Record{Query: "key=%5BREDACTED%5D&page=2", Headers: map[string][]string{"X-Api-Secret": {Redacted}}},
		},
		{
			name: "the request's own JWT split over two query values",
			rec: Record{Query: "a=" + ownJWT[:strings.IndexByte(ownJWT, '.')] + "&b=" + ownJWT[strings.IndexByte(ownJWT, '.')+1:],
				Headers: map[string][]string{"Authorization": {"Bearer " + ownJWT}}},
			want: Record{Query: "a=%5BREDACTED%5D&b=%5BREDACTED%5D", Headers: map[string][]string{"Authorization": {Redacted}}},
		},
		{
			name: "a JWT split over two query values",
			rec:  Record{Query: "h=eyJhbGciOiJIUzI1NiJ9&p=eyJzdWIiOiJ4In0.c2ln&page=2"},
			want: Record{Query: "h=%5BREDACTED%5D&p=%5BREDACTED%5D&page=2"},
		},
		{
			name: "the request's own secret split over two header values",
			rec: Record{Headers: map[string][]string{"X-Api-Secret": {secret},
				"X-Echo": {secret[:20], secret[20:]}, "X-Client-Secret": {"plain"}}},
			want: Record{Headers: map[string][]string{"X-Api-Secret": {Redacted}, "X-Echo": {Redacted, Redacted}, "X-Client-Secret": {Redacted}}},
		},
		{
			name: "the request's own secret base64- and %-encoded in a message text",
			rec: Record{Headers: map[string][]string{"X-Api-Secret": {secret}},
				Body: json.RawMessage(`{"to":"x","message":"a ` + base64.StdEncoding.EncodeToString([]byte(secret)) +
					` b ` + percentAll(secret) + `"}`)},
			want: Record{Headers: map[string][]string{"X-Api-Secret": {Redacted}},
				Body: json.RawMessage(`{"to":"x","message":"a [REDACTED] b [REDACTED]"}`)},
		},
		{
			name: "the request's own secret cut into 7-character pieces in a message text",
			rec: Record{Headers: map[string][]string{"X-Api-Secret": {secret}},
				Body: json.RawMessage(`{"message":"` + strings.Join(cut(secret[len("sk_live_"):], 7), " ") + `"}`)},
			want: Record{Headers: map[string][]string{"X-Api-Secret": {Redacted}},
				Body: json.RawMessage(`{"message":"` + strings.TrimSpace(strings.Repeat("[REDACTED] ", len(cut(secret[len("sk_live_"):], 7)))) + `"}`)},
		},
		{
			name: "the request's own secret double %-encoded in a query value",
			rec:  Record{Query: "q=" + url.QueryEscape(percentAll(secret)) + "&page=2", Headers: map[string][]string{"X-Api-Secret": {secret}}},
			want: Record{Query: "page=2&q=%5BREDACTED%5D", Headers: map[string][]string{"X-Api-Secret": {Redacted}}},
		},
		{
			name: "the request's own secret spelled by a name written again with its \"=\"",
			rec: Record{Query: "0000000&" + url.QueryEscape("0000000=") + "=1",
				Headers: map[string][]string{"X-Api-Secret": {"0000000="}}},
			want: Record{Query: Redacted, Headers: map[string][]string{"X-Api-Secret": {Redacted}}},
		},
		{
			name: "the request's own secret base64 in a custom header",
			rec: Record{Headers: map[string][]string{"X-Api-Secret": {secret},
				"X-Echo": {base64.RawURLEncoding.EncodeToString([]byte(secret))}}},
			want: Record{Headers: map[string][]string{"X-Api-Secret": {Redacted}, "X-Echo": {Redacted}}},
		},
		{
			name: "another workspace's secret without its prefix",
			rec: Record{Query: "k=Xk3mP9qL2vR7tY4wZ8aB1cD5eF6gH0jK2nM4pQ7s&page=2",
				Body: json.RawMessage(`{"message":"key Xk3mP9qL2vR7tY4wZ8aB1cD5eF6gH0jK2nM4pQ7s"}`)},
			want: Record{Query: "k=%5BREDACTED%5D&page=2", Body: json.RawMessage(`{"message":"key [REDACTED]"}`)},
		},
		{
			name: "nothing secret is kept as it is",
			rec:  Record{Path: "/v1/sms/campaigns/667000000000000000000001/status", Query: "page=2&limit=5", Headers: map[string][]string{"X-Api-Key": {"pk_live_abc"}}},
			want: Record{Path: "/v1/sms/campaigns/667000000000000000000001/status", Query: "page=2&limit=5", Headers: map[string][]string{"X-Api-Key": {"pk_live_abc"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.want.Headers == nil {
				tt.want.Headers = map[string][]string{}
			}
			got := tt.rec.Redacted()
			assert.Equal(t, tt.want, got)
			b, err := json.Marshal(got)
			require.NoError(t, err)
			for _, s := range append(tt.secrets, secret, token) {
				assert.NotContains(t, string(b), s)
				assert.NotContains(t, string(b), url.QueryEscape(s))
			}
		})
	}
}

// percentAll %-encodes every byte of s.
func percentAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// cut returns s in pieces of n bytes.
func cut(s string, n int) []string {
	var out []string
	for i := 0; i < len(s); i += n {
		out = append(out, s[i:min(i+n, len(s))])
	}
	return out
}

// FuzzRedactRequest: a secret (an API secret's prefix and anything after it, or a request's
// own X-API-Secret of any shape) placed in a request's path, in a query parameter's name and
// value and in a header's name and value appears in none of what the log shows; and a path
// and query with nothing secret are shown as they came.
func FuzzRedactRequest(f *testing.F) {
	f.Add(uint8(0), "0123456789abcdef", "/v1/sms/campaigns/", "page=2", true)
	f.Add(uint8(1), "a/b c", "/v1/", "", false)
	f.Add(uint8(2), "my/own secret=1&x", "/x/", "a=1&b=2", true)
	f.Add(uint8(0), "x", "/", "q=%zz", false)
	f.Fuzz(func(t *testing.T, kind uint8, tail, path, query string, sendAsOwn bool) {
		var secret string
		switch kind % 3 {
		case 0:
			secret = "sk_live_" + tail
		case 1:
			secret = "sk_test_" + tail
		default: // the request's own secret, of no known shape
			secret, sendAsOwn = tail, true
			if len(secret) < minCredential || strings.TrimSpace(secret) != secret {
				return
			}
		}
		if !strings.Contains(query, secret) && strings.Contains(url.QueryEscape(query), secret) {
			return // the query's own escapes spell it ("\xb00000000" is written %B00000000): not the secret
		}
		if !looksSecret(path) {
			plain := Record{Path: path, Query: query, Headers: map[string][]string{"X-Api-Secret": {"short"}}}
			if got := plain.Redacted(); got.Path != path {
				t.Fatalf("no secret in the path %q, shown as %q", path, got.Path)
			}
		}
		headers := map[string][]string{secret: {"v"}, "X-Echo": {"x " + secret}}
		if sendAsOwn {
			headers["X-Api-Secret"] = []string{secret}
		}
		rec := Record{
			Path:    path + secret + "/status",
			Query:   url.Values{secret: {"1"}, "k": {secret}}.Encode() + "&" + query,
			Headers: headers,
		}
		got := rec.Redacted()
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		decoded, _ := url.QueryUnescape(got.Query)
		for _, where := range []string{string(b), got.Path, got.Query, decoded} {
			if strings.Contains(where, secret) {
				t.Fatalf("secret %q shown: %s", secret, b)
			}
		}
		for k, vs := range got.Headers {
			if strings.Contains(k, secret) || slices.ContainsFunc(vs, func(v string) bool { return strings.Contains(v, secret) }) {
				t.Fatalf("secret %q shown in header %q: %q", secret, k, vs)
			}
		}
	})
}

// FuzzRedactBody: whatever the body, what the log keeps of it is JSON in which every member
// whose name safetext.Hidden names holds only the redaction mark (or null, true, false), and
// in which the request's own secret shows nowhere, nor any piece of it.
func FuzzRedactBody(f *testing.F) {
	for _, seed := range []string{
		`{"pin_id":"p1","pin":"123456"}`, `{"p\u0069n":"1"}`, `{"ſecret":"s"}`,
		`{"message":"say \"hi\"","Pin":"1234"}`, `{"nested":[{"SECRET":"s"}]}`, `{"to":"x"} trailing`,
	} {
		f.Add([]byte(seed))
	}
	const own = "sk_live_Q9vX2mL7pR4tY8wZ1aB5cD6eF3gH0jK2"
	r := safetext.New(safetext.Config{Secrets: []string{own}})
	f.Add([]byte(`{"text":"Q9vX2mL7pR4tY8wZ1a and 0123"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out := redactBody(body, r)
		if out == nil {
			return
		}
		for i := len("sk_live_"); i+safetext.MinPiece <= len(own); i++ {
			if bytes.Contains(out, []byte(own[i:i+safetext.MinPiece])) {
				t.Fatalf("kept %q of %q: a piece of the request's secret shows", out, body)
			}
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber() // 1e700 is JSON, not a float64
		if err := dec.Decode(&v); err != nil || dec.More() {
			t.Fatalf("kept %q of %q: not JSON: %v", out, body, err)
		}
		var walk func(any)
		walk = func(v any) {
			switch t2 := v.(type) {
			case map[string]any:
				for k, x := range t2 {
					switch x.(type) {
					case nil, bool:
					default:
						if safetext.Hidden(k) && x != Redacted {
							t.Fatalf("kept %q of %q: member %q holds %v", out, body, k, x)
						}
					}
					walk(x)
				}
			case []any:
				for _, x := range t2 {
					walk(x)
				}
			}
		}
		walk(v)
	})
}

// TestLogRedactsBodiesWhenRead: the log keeps a body as it came and every way out of it (All,
// Redacted, WriteJSON) shows it redacted and compacted; a body over the limit is a note.
func TestLogRedactsBodiesWhenRead(t *testing.T) {
	t.Parallel()
	const pin = "482913"
	big := `{"to":"` + strings.Repeat("1", maxRecordedBody) + `"}`
	tests := []struct{ body, want string }{
		{`{ "pin_id": "p1",  "pin": "` + pin + `" }`, `{"pin_id":"p1","pin":"[REDACTED]"}`},
		{"{\n  \"to\": \"2348000000001\"\n}", `{"to":"2348000000001"}`},
		{"not json", `"[not JSON]"`},
		{"  ", ""},
		{big, `"[body of ` + strconv.Itoa(len(big)) + ` bytes not kept]"`},
	}
	l := New(len(tests))
	r := httptest.NewRequest(http.MethodPost, "/v1/sms/otp/verify", nil)
	for i, tt := range tests {
		l.Add(r, "req-"+strconv.Itoa(i), time.Unix(0, 0), []byte(tt.body), http.StatusOK)
	}
	all := l.All()
	require.Len(t, all, len(tests))
	rec := httptest.NewRecorder()
	WriteJSON(rec, http.StatusOK, "req-x", l.Snapshot())
	assert.NotContains(t, rec.Body.String(), pin)
	for i, tt := range tests {
		assert.Equal(t, tt.want, string(all[i].Body), tt.body)
		assert.Equal(t, tt.want, string(l.Snapshot()[i].Redacted().Body), tt.body)
		assert.Equal(t, all[i].Body, all[i].Redacted().Body, "redacting twice changes nothing")
	}
}

// TestWriteJSONIsTheLogAsOneObject: the streamed answer is, byte for byte, the redacted
// records and the request ID encoded as one object by encoding/json, for an empty log too.
func TestWriteJSONIsTheLogAsOneObject(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 3} {
		l := New(5)
		for i := range n {
			r := httptest.NewRequest(http.MethodPost, "/v1/sms/send?a=<b>&c=d", nil)
			r.Header.Set("X-API-Secret", "sk_test_abcdefghijklmnop")
			r.Header.Set("X-Note", "a & b \u2028")
			l.Add(r, "req-"+strconv.Itoa(i), time.Unix(int64(i), 5).UTC(), []byte(`{"message":"<hi>","pin":"1234"}`), http.StatusAccepted)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(struct {
			Data      []Record `json:"data"`
			RequestID string   `json:"requestId"`
		}{l.All(), "req-x"}))
		rec := httptest.NewRecorder()
		WriteJSON(rec, http.StatusOK, "req-x", l.Snapshot())
		assert.Equal(t, want.String(), rec.Body.String(), "%d records", n)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	}
}
