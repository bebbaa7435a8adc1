package safetext

import "testing"

func TestPrintable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain", 200, "plain"},
		{"a\nb\x1b]0;t\x07", 200, `a\nb\x1b]0;t\a`},
		{"rtl\u202eevil", 200, `rtl\u202eevil`},
		{"bad\xffbyte", 200, "bad\ufffdbyte"},
		{"abcdef", 4, "abcd…"},
		{"ééé", 5, "éé…"}, // cut on a character boundary
	} {
		if got := Printable(tt.in, tt.max); got != tt.want {
			t.Errorf("Printable(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}
