package jsonenc_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/internal/jsonenc"
)

// std is what encoding/json writes for s, with or without HTML escaping.
func std(t testing.TB, s string, escapeHTML bool) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	require.NoError(t, enc.Encode(s))
	return strings.TrimSuffix(buf.String(), "\n")
}

// TestAppendString: AppendString writes what encoding/json writes for a string, with and
// without HTML escaping, for every byte alone and between letters, and for random mixes of
// awkward characters (escapes, HTML, U+2028, invalid and cut UTF-8).
func TestAppendString(t *testing.T) {
	t.Parallel()
	var inputs []string
	for c := range 256 {
		inputs = append(inputs, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	pieces := []string{"a", "Z", " ", "é", "€", "😀", "<", ">", "&", "\"", "\\", "/", "\n", "\t", "\b", "\f",
		"\x01", "\x1f", "\x7f", "\u2028", "\u2029", "\ufffd", "\xff", "\xe2\x80", "\xf0\x9f"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		inputs = append(inputs, b.String())
	}
	for _, s := range inputs {
		for _, html := range []bool{true, false} {
			require.Equal(t, std(t, s, html), string(jsonenc.AppendString(nil, s, html)), "%q html=%v", s, html)
		}
	}
	require.Equal(t, `prefix"x"`, string(jsonenc.AppendString([]byte("prefix"), "x", true)), "appends")
}

// FuzzAppendString: for any string, AppendString writes what encoding/json writes.
func FuzzAppendString(f *testing.F) {
	f.Add("plain")
	f.Add("<a href=\"x\">&amp;</a>\u2028\u2029\xff\x00\x7f")
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{true, false} {
			if want, got := std(t, s, html), string(jsonenc.AppendString(nil, s, html)); want != got {
				t.Fatalf("%q html=%v: encoding/json %s, AppendString %s", s, html, want, got)
			}
		}
	})
}
