package safetext

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Redacted replaces a secret or a pin.
const Redacted = "[REDACTED]"

// MinPiece is the shortest piece of a caller's own secret that a Redactor finds alone (a
// secret without its sk_live_ prefix, a JWT's segment, half of a secret split in two): eight
// characters of a random secret do not occur in ordinary text.
const MinPiece = 8

// minSecret is the shortest own secret replaced where it occurs whole; a shorter one (no
// credential is) would replace ordinary text.
const minSecret = 4

// Config says what a Redactor hides besides the shapes of secrets it always finds.
type Config struct {
	// Secrets are the caller's own credentials (an API secret, a dashboard JWT, the
	// Authorization header's credential): each is replaced wherever it occurs, whatever its
	// shape, and so is every run of letters, digits and "_-.+~" holding MinPiece characters
	// of one (after its sk_live_ or sk_test_ prefix).
	Secrets []string
	// Pins are the pins the caller sent: each is replaced where it stands alone, not inside
	// a longer run of letters and digits.
	Pins []string
	// People, when true, also masks phone numbers (see MaskPhones) and replaces what text
	// says is a pin or a code ("your code is 482913", "PIN: 4829").
	People bool
	// RandomRuns, when true, also replaces every run of 32 or more ASCII letters and digits
	// that mixes upper case, lower case and digits: a generated secret without its prefix,
	// whoever's it is (the mock's request log, which may show another workspace's secret).
	RandomRuns bool
}

// Redactor replaces secrets, pins and, for a Config with People, phone numbers in text and in
// JSON. Its rule is the one rule of the module: the SDK's errors, the doctor's saved answers
// and the mock's request log use it. A Redactor is safe for concurrent use.
type Redactor struct {
	secrets    []string            // whole, longest first
	pieces     map[string]struct{} // every MinPiece-long window of each secret's random part, letters and digits only
	pins       []*regexp.Regexp    // each pin, its characters maybe separated, in normalized text
	people     bool
	randomRuns bool
}

// New returns a Redactor for c. Empty secrets and pins are ignored.
func New(c Config) *Redactor {
	r := &Redactor{pieces: make(map[string]struct{}), people: c.People, randomRuns: c.RandomRuns}
	for _, s := range c.Secrets {
		s = strings.TrimSpace(s)
		if len(s) < minSecret {
			continue
		}
		r.secrets = append(r.secrets, s)
		body := s
		for _, p := range [...]string{"sk_live_", "sk_test_", "Bearer ", "Basic "} {
			body = strings.TrimPrefix(body, p)
		}
		body = squeeze(body)
		for i := 0; i+MinPiece <= len(body); i++ {
			r.pieces[body[i:i+MinPiece]] = struct{}{}
		}
	}
	// The longest first: a secret holding another is replaced whole.
	for i := 1; i < len(r.secrets); i++ {
		for j := i; j > 0 && len(r.secrets[j]) > len(r.secrets[j-1]); j-- {
			r.secrets[j], r.secrets[j-1] = r.secrets[j-1], r.secrets[j]
		}
	}
	for _, p := range c.Pins {
		if p = strings.TrimSpace(p); p != "" {
			r.pins = append(r.pins, pinPattern(p))
		}
	}
	return r
}

// pinPattern matches pin in normalized text (see normalize), each of its characters maybe
// followed by one separator: "482913" written "482 913", "482-913" or "48.29.13".
func pinPattern(pin string) *regexp.Regexp {
	var b strings.Builder
	n := normalize(pin)
	for i := 0; i < len(n.b); i++ {
		if i > 0 {
			b.WriteString(`[ ./-]?`)
		}
		b.WriteString(regexp.QuoteMeta(string(n.b[i])))
	}
	return regexp.MustCompile(b.String())
}

// squeeze returns the ASCII letters and digits of s, in order: a secret cut in pieces, with
// spaces, commas or lines between, is whole again.
func squeeze(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if alnum(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// pieceRune reports whether c may be part of a credential's run in text: letters, digits and
// "_-.+~" (base64url, base64 without padding, a JWT's dots).
func pieceRune(c rune) bool {
	return c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == '+' || c == '~')
}

// Shapes of secrets found whatever the Config: an API secret (up to a character that cannot be
// in one), a Bearer or Basic credential, and a JWT or any base64url run that starts like one
// (a JWT's first two segments each start with eyJ, the encoding of `{"`).
var secretShape = regexp.MustCompile(`(?i:sk_(?:live|test)_)[^\s"'<>&,;)}\]\\]*` +
	`|(?i:\b(?:bearer|basic)\s+)[^\s"'<>&,;)}\]\\]+` +
	`|eyJ[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*)*`)

// pinText matches what text says is a pin or a code, such as "your code is 482913", "PIN:
// 4829", "code: 482 913" or "482913 is your OTP" (group 1 or 2; it must hold a digit), in
// normalized text (see normalize). The words between may be quoted, as in JSON held in a string.
var pinText = regexp.MustCompile(`(?i)\b(?:pin|otp|code|passcode|password)s?\b["'\\]*(?:\s*(?:is|was|:|=|-)\s*|\s+)["'\\]*([0-9]{2,4}(?:[ .-][0-9]{2,4}){1,2}\b|[A-Za-z0-9]{4,8})\b` +
	`|\b([0-9]{4,8}|[0-9]{2,4}(?:[ .-][0-9]{2,4}){1,2})\s+is\s+(?:your|the)\s+(?:\w+\s+)?(?:pin|otp|code|passcode|password)\b`)

// Text returns s with the caller's own secrets and pins, whatever is shaped like a secret and,
// with People, pins in words and phone numbers replaced.
func (r *Redactor) Text(s string) string {
	s = r.Secrets(s)
	if !r.people {
		return s
	}
	if strings.ContainsFunc(s, unicode.IsDigit) {
		n := normalize(s)
		s = n.replace(s, pinText.FindAllSubmatchIndex(n.b, -1), func(m []int) (int, int) {
			for g := 1; g <= 2; g++ {
				if i, j := m[2*g], m[2*g+1]; i >= 0 && bytes.ContainsFunc(n.b[i:j], isDigit) {
					return i, j
				}
			}
			return -1, -1
		})
	}
	return MaskPhones(s)
}

// Secrets returns s with the caller's own secrets and pins, and whatever is shaped like a
// secret, replaced: Text without what People adds, for text such as a request ID, whose
// digits are no phone number. A secret is found whole, in pieces of MinPiece letters and
// digits or more (with anything but letters and digits between), base64-encoded (standard or
// URL alphabet) or %-encoded (once or more), and a pin however its characters are grouped.
func (r *Redactor) Secrets(s string) string { return r.secrets1(s, 0) }

// maxDecode is how many encodings deep Secrets looks: base64 of a %-encoded secret, say.
const maxDecode = 3

func (r *Redactor) secrets1(s string, depth int) string {
	for _, o := range r.secrets {
		s = strings.ReplaceAll(s, o, Redacted)
	}
	if depth < maxDecode {
		s = r.replaceEncoded(s, depth)
	}
	if len(r.pieces) > 0 || r.randomRuns {
		s = r.replacePieces(s)
	}
	s = secretShape.ReplaceAllString(s, Redacted)
	if len(r.pins) > 0 {
		n := normalize(s)
		for _, p := range r.pins {
			s = n.replace(s, p.FindAllIndex(n.b, -1), func(m []int) (int, int) {
				if m[0] > 0 && alnum(n.b[m[0]-1]) || m[1] < len(n.b) && alnum(n.b[m[1]]) {
					return -1, -1 // inside a longer run of letters and digits
				}
				return m[0], m[1]
			})
			n = normalize(s)
		}
	}
	return s
}

// replaceEncoded replaces every run of s that decodes, as base64 or by %-decoding, to text in
// which the Redactor finds a secret.
func (r *Redactor) replaceEncoded(s string, depth int) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !encodedRune(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && encodedRune(s[j]) {
			j++
		}
		for k := 0; k < 2 && j < len(s) && s[j] == '='; k++ { // base64's padding
			j++
		}
		if j-i >= minEncoded && r.hidesDecoded(s[i:j], depth) {
			b.WriteString(s[last:i])
			b.WriteString(Redacted)
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// minEncoded is the shortest run decoded: base64 of the shortest secret searched for.
const minEncoded = 8

// encodedRune reports whether c may be in a base64 or %-encoded run.
func encodedRune(c byte) bool { return alnum(c) || strings.IndexByte("+/_-%.~", c) >= 0 }

// hidesDecoded reports whether run, decoded as %-encoding or as base64, holds a secret.
func (r *Redactor) hidesDecoded(run string, depth int) bool {
	if strings.IndexByte(run, '%') >= 0 {
		if d := percentDecode(run); d != run && r.secrets1(d, depth+1) != d {
			return true
		}
	}
	trimmed := strings.TrimRight(run, "=")
	for _, enc := range [...]*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if d, err := enc.DecodeString(trimmed); err == nil && len(d) >= minSecret {
			if t := string(d); r.secrets1(t, depth+1) != t {
				return true
			}
		}
	}
	return false
}

// percentDecode decodes every %XX of s; other bytes, and a % not followed by two hex digits,
// are kept.
func percentDecode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && unhex(s[i+1]) >= 0 && unhex(s[i+2]) >= 0 {
			b.WriteByte(byte(unhex(s[i+1])<<4 | unhex(s[i+2])))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// replacePieces replaces every run of pieceRune characters that holds a window of r.pieces,
// found in the letters and digits of s with what is between them left out (a secret cut in
// pieces), and, with randomRuns, every run that is a random secret by its shape.
func (r *Redactor) replacePieces(s string) string {
	type run struct{ start, end int }
	var runs []run
	var sq []byte  // the letters and digits of s
	var of []int32 // of[k]: the run sq[k] is in
	for i := 0; i < len(s); {
		if !pieceRune(rune(s[i])) {
			i++
			continue
		}
		j := i
		for j < len(s) && pieceRune(rune(s[j])) {
			j++
		}
		for k := i; k < j; k++ {
			if alnum(s[k]) {
				sq = append(sq, s[k])
				of = append(of, int32(len(runs)))
			}
		}
		runs = append(runs, run{i, j})
		i = j
	}
	hit := make([]bool, len(runs))
	found := false
	if len(r.pieces) > 0 {
		for k := 0; k+MinPiece <= len(sq); k++ {
			if _, ok := r.pieces[string(sq[k:k+MinPiece])]; ok {
				for m := k; m < k+MinPiece; m++ {
					hit[of[m]] = true
				}
				found = true
			}
		}
	}
	if r.randomRuns {
		for n, ru := range runs {
			if randomRun(s[ru.start:ru.end]) {
				hit[n], found = true, true
			}
		}
	}
	if !found {
		return s
	}
	var b strings.Builder
	last := 0
	for n, ru := range runs {
		if hit[n] {
			b.WriteString(s[last:ru.start])
			b.WriteString(Redacted)
			last = ru.end
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// minRandomRun is the shortest run of letters and digits that RandomRuns finds by its shape.
const minRandomRun = 32

// randomRun reports whether run holds minRandomRun or more ASCII letters and digits in a row
// that mix upper case, lower case and digits.
func randomRun(run string) bool {
	n, kinds := 0, 0
	for i := 0; i <= len(run); i++ {
		if i < len(run) && alnum(run[i]) {
			n++
			switch c := run[i]; {
			case c >= 'a' && c <= 'z':
				kinds |= 1
			case c >= 'A' && c <= 'Z':
				kinds |= 2
			default:
				kinds |= 4
			}
			continue
		}
		if n >= minRandomRun && kinds == 7 {
			return true
		}
		n, kinds = 0, 0
	}
	return false
}

func alnum(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c rune) bool { return c >= '0' && c <= '9' }

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// Hidden reports whether a JSON member's whole value is a secret or a pin by its name. The
// name is read as words (split at anything but letters and digits, and where a lower-case
// letter meets an upper-case one: "apiSecret", "X-API-Secret", "otp_code"). It is hidden when
// its last word is secret, token, password, passwd, passphrase, pin, otp, jwt, passcode,
// pincode, otpcode, apikey, authorization, credential(s) or cookie (plurals too), or when its
// last word is code, key, value or number after one of secret, token, password, pin, otp, api,
// private, access, auth or verification ("pinCode", "api_key", "verification_code"). So
// "pinId", "pin_type", "publicKey" and "error_code" are shown.
func Hidden(name string) bool {
	words := nameWords(name)
	if len(words) == 0 {
		return false
	}
	last := strings.TrimSuffix(words[len(words)-1], "s")
	switch last {
	case "secret", "token", "password", "passwd", "passphrase", "pin", "otp", "jwt", "passcode",
		"pincode", "otpcode", "apikey", "authorization", "credential", "cookie":
		return true
	case "code", "key", "value", "number":
		for _, w := range words[:len(words)-1] {
			switch w {
			case "secret", "token", "password", "pin", "otp", "api", "private", "access", "auth", "verification":
				return true
			}
		}
	}
	return false
}

// nameWords splits a member name into lower-case words, each letter folded to the smallest of
// its case-folding orbit first (so that "ſecret" and "\u212Aey" are "secret" and "key").
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			for i, c := range cur {
				for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
					cur[i] = min(cur[i], f)
				}
			}
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, c := range rs {
		switch {
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			flush()
			continue
		case unicode.IsUpper(c) && i > 0 && (unicode.IsLower(rs[i-1]) ||
			unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush() // "apiSecret", "APISecret"
		}
		cur = append(cur, c)
	}
	flush()
	return words
}

// JSON returns b, a JSON value or the start of one, with every member whose name is Hidden
// replaced whole by Redacted (null, true and false are kept), and every string, member name and
// number redacted as Text redacts it. A number that changes becomes a string. Member order and
// layout are kept; a valid JSON value gives a valid JSON value. A body cut short, or one that is
// not quite JSON, is read as far as it goes: a string cut short is closed. A body that is
// neither valid JSON nor starts with an object or an array is redacted as Text.
func (r *Redactor) JSON(b []byte) []byte {
	if k := skipSpace(b, 0); k == len(b) || b[k] != '{' && b[k] != '[' && !json.Valid(b) {
		return []byte(r.Text(string(b))) // text: no member names
	}
	var out bytes.Buffer
	out.Grow(len(b))
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			raw, next := stringAt(b, i)
			s := r.Text(decodeString(raw))
			if k := skipSpace(b, next); k < len(b) && b[k] == ':' { // a member name
				writeString(&out, raw, s)
				out.Write(b[next : k+1])
				i = k + 1
				switch name := decodeString(raw); {
				case Hidden(name):
					i = r.hideValue(b, i, &out)
				case r.people && PhoneMember(name):
					i = r.phoneValue(b, i, &out)
				}
				continue
			}
			writeString(&out, raw, s)
			i = next
		case structural(c):
			out.WriteByte(c)
			i++
		default: // a number, a literal, or text that is not JSON
			j := i
			for j < len(b) && !structural(b[j]) && b[j] != '"' {
				j++
			}
			tok := string(b[i:j])
			if s := r.Text(tok); s != tok {
				writeString(&out, nil, s)
			} else {
				out.WriteString(tok)
			}
			i = j
		}
	}
	return out.Bytes()
}

// hideValue writes Redacted for the value that starts after spaces at b[i:], and returns where
// it ends. null, true and false are kept; a value cut short is replaced too.
func (r *Redactor) hideValue(b []byte, i int, out *bytes.Buffer) int {
	k := skipSpace(b, i)
	out.Write(b[i:k])
	if k == len(b) {
		return k
	}
	end := k
	switch b[k] {
	case '"':
		_, end = stringAt(b, k)
	case '{', '[':
		depth := 0
		for end < len(b) {
			switch b[end] {
			case '"':
				_, end = stringAt(b, end)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			end++
			if depth == 0 {
				break
			}
		}
	default:
		for end < len(b) && !structural(b[end]) && b[end] != '"' {
			end++
		}
		switch string(b[k:end]) {
		case "null", "true", "false":
			out.Write(b[k:end])
			return end
		}
	}
	out.WriteString(`"` + Redacted + `"`)
	return end
}

// PhoneMember reports whether a JSON member holds phone numbers by its name: its last word
// (see Hidden) is to, msisdn, phone, mobile, recipient or destination (plurals too), or number
// after phone or mobile ("phone_number", "mobileNumber").
func PhoneMember(name string) bool {
	words := nameWords(name)
	if len(words) == 0 {
		return false
	}
	switch strings.TrimSuffix(words[len(words)-1], "s") {
	case "to", "msisdn", "phone", "mobile", "recipient", "destination", "phonenumber":
		return true
	case "number":
		return len(words) > 1 && (words[len(words)-2] == "phone" || words[len(words)-2] == "mobile")
	}
	return false
}

// phoneValue writes the value that starts after spaces at b[i:], a phone member's, and returns
// where it ends: a string or a number written only with digits and " -().+" is masked as one
// number whatever its length, and so is each such item of an array. Anything else is left
// for JSON's loop, which redacts it as any value.
func (r *Redactor) phoneValue(b []byte, i int, out *bytes.Buffer) int {
	k := skipSpace(b, i)
	out.Write(b[i:k])
	inArray := k < len(b) && b[k] == '['
	if inArray {
		out.WriteByte('[')
		k++
	}
	for k < len(b) {
		switch c := b[k]; {
		case c == '"':
			raw, end := stringAt(b, k)
			s := decodeString(raw)
			if m, ok := maskNumber(s); ok {
				writeString(out, nil, m)
			} else {
				writeString(out, raw, r.Text(s))
			}
			k = end
		case c == ',' && inArray, c == ' ' || c == '\t' || c == '\r' || c == '\n':
			out.WriteByte(c)
			k++
			continue
		case c == ']' && inArray:
			out.WriteByte(c)
			return k + 1
		case structural(c):
			return k
		default:
			end := k
			for end < len(b) && !structural(b[end]) && b[end] != '"' {
				end++
			}
			tok := string(b[k:end])
			if m, ok := maskNumber(tok); ok {
				writeString(out, nil, m)
			} else if t := r.Text(tok); t != tok {
				writeString(out, nil, t)
			} else {
				out.WriteString(tok)
			}
			k = end
		}
		if !inArray {
			return k
		}
	}
	return k
}

// maskNumber masks s as one phone number when it holds a digit and only digits and " -().+/"
// otherwise (in any of the forms normalize reads), keeping a leading "+". A float's fraction
// of zeros is left out.
func maskNumber(s string) (string, bool) {
	var digits strings.Builder
	t := normalize(s).b
	if i := bytes.LastIndexByte(t, '.'); i > 0 && isDigitByte(t[i-1]) && zeroFraction(t, i) == len(t)-i {
		t = t[:i]
	}
	for _, c := range t {
		switch {
		case c >= '0' && c <= '9':
			digits.WriteByte(c)
		case c == ' ' || c == '-' || c == '(' || c == ')' || c == '.' || c == '+' || c == '/':
		default:
			return "", false
		}
	}
	if digits.Len() == 0 {
		return "", false
	}
	m := MaskPhone(digits.String())
	if strings.HasPrefix(strings.TrimSpace(s), "+") {
		m = "+" + m
	}
	return m, true
}

// structural reports whether c is JSON punctuation or space.
func structural(c byte) bool {
	switch c {
	case '{', '}', '[', ']', ',', ':', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// stringAt returns the JSON string that starts with the quote at b[i], quotes included (the
// closing one missing when b ends first), and where it ends.
func stringAt(b []byte, i int) (raw []byte, end int) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return b[i : j+1], j + 1
		}
	}
	return b[i:], len(b)
}

// decodeString returns the text of raw, a JSON string with its quotes (the closing one maybe
// missing); what cannot be decoded is kept as it is.
func decodeString(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(bytes.Trim(raw, `"`))
	}
	closed := raw
	if len(raw) < 2 || raw[len(raw)-1] != '"' || raw[len(raw)-2] == '\\' && !evenBackslashes(raw[:len(raw)-1]) {
		closed = append(bytes.Clone(raw), '"')
	}
	var s string
	if json.Unmarshal(closed, &s) == nil {
		return s
	}
	return string(bytes.Trim(raw, `"`))
}

// evenBackslashes reports whether b ends in an even number of backslashes.
func evenBackslashes(b []byte) bool {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n%2 == 0
}

// writeString writes s as a JSON string: raw as it came when s is its text unchanged.
func writeString(out *bytes.Buffer, raw []byte, s string) {
	if len(raw) >= 2 && raw[len(raw)-1] == '"' && decodeString(raw) == s && (len(raw) == 2 || raw[len(raw)-2] != '\\' || evenBackslashes(raw[:len(raw)-1])) {
		out.Write(raw)
		return
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // a string always encodes
	out.Truncate(out.Len() - 1) // Encode's newline
}

// Phone numbers as MaskPhones finds them: 10 to 15 digits.
const (
	minPhoneDigits = 10
	maxPhoneDigits = 15
)

// MaskPhones masks every phone number in s as MaskPhone does. A phone number is 10 to 15
// digits (ASCII, full-width or any other decimal digits), in groups separated by up to two of
// a space (any horizontal space: a tab, a no-break space, "%20" in a URL), a dash (any Unicode
// dash), parentheses, a slash or a dot ("+234 803 123 4567", "0803-123-4567", "(0803)
// 1234567", "0803.123.4567", "0803%20123%204567"), that no letter or digit touches ("_" may:
// "to_2348031234567"; so may a "+" escaped in a URL, "to=%2B2348031234567"). A group starting
// with "+", or with "0" once a number has 10 digits, starts the next number. A number written
// as a float is one too, its integer part masked and its fraction of zeros left out
// ("2348031234567.0", "2.348031234567E12"). Not phone numbers: groups touching a letter (an
// ID), a time or a decimal (a ':' or a single '.' with a digit beyond it on either side, a
// fraction other than zeros), four groups of up to three digits joined by dots (an IP
// address), and 10 or 13 digits starting with 1 written without separators, as epoch seconds
// and milliseconds are (no number plan has them).
func MaskPhones(s string) string {
	if !strings.ContainsFunc(s, unicode.IsDigit) {
		return s
	}
	s = maskExponents(s)
	n := normalize(s)
	t := n.b
	var b strings.Builder
	last := 0 // in s
	for i := 0; i < len(t); {
		if !isDigitByte(t[i]) && t[i] != '+' && t[i] != '(' {
			i++
			continue
		}
		groups, end := phoneGroups(t, i)
		for g := 0; g < len(groups); {
			best := phoneAt(t, groups, g)
			if best < 0 {
				g++
				continue
			}
			var digits strings.Builder
			for h := g; h <= best; h++ {
				digits.Write(t[groups[h].start:groups[h].end])
			}
			b.WriteString(s[last:n.at[groups[g].start]])
			b.WriteString(MaskPhone(digits.String()))
			stop := groups[best].end + zeroFraction(t, groups[best].end)
			last, end = n.at[stop], max(end, stop)
			for g = best + 1; g < len(groups) && groups[g].start < stop; {
				g++
			}
		}
		i = max(end, i+1)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// normText is text as the phone and pin rules read it, one byte for each character of the
// original: every decimal digit as its ASCII digit, a horizontal space (a tab, a no-break
// space) and "%20" as ' ', any dash as '-', "%2B" and the full-width "+()" as ASCII, another
// letter as 'a', any other character as '?'; ASCII as it is.
type normText struct {
	b  []byte
	at []int // at[i]: where the character of b[i] starts in the original; at[len(b)] is its length
}

func normalize(s string) normText {
	n := normText{b: make([]byte, 0, len(s)), at: make([]int, 0, len(s)+1)}
	for i := 0; i < len(s); {
		n.at = append(n.at, i)
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '%' && i+2 < len(s) && s[i+1] == '2' && (s[i+2] == '0' || s[i+2] == 'B' || s[i+2] == 'b') {
				if s[i+2] == '0' {
					n.b = append(n.b, ' ')
				} else {
					n.b = append(n.b, '+')
				}
				i += 3
				continue
			}
			if c == '\t' {
				c = ' '
			}
			n.b = append(n.b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsDigit(r):
			c = '0' + digitValue(r)
		case unicode.Is(unicode.Zs, r):
			c = ' '
		case unicode.Is(unicode.Pd, r) || r == '\u2212':
			c = '-'
		case r == '\uff0b':
			c = '+'
		case r == '\uff08':
			c = '('
		case r == '\uff09':
			c = ')'
		case r == '\uff0e':
			c = '.'
		case r == '\uff0f':
			c = '/'
		case unicode.IsLetter(r):
			c = 'a'
		default:
			c = '?'
		}
		n.b = append(n.b, c)
		i += size
	}
	n.at = append(n.at, len(s))
	return n
}

// digitValue is the value of r, a decimal digit: Unicode puts each set of ten in a row, from
// zero.
func digitValue(r rune) byte {
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return byte((r - rune(rg.Lo)) % 10)
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return byte((r - rune(rg.Lo)) % 10)
		}
	}
	return 0
}

// replace returns s with the span of each match that pick chooses (as indexes into n.b;
// -1 for none) replaced by Redacted.
func (n normText) replace(s string, matches [][]int, pick func(m []int) (int, int)) string {
	if len(matches) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		i, j := pick(m)
		if i < 0 || n.at[i] < last {
			continue
		}
		b.WriteString(s[last:n.at[i]])
		b.WriteString(Redacted)
		last = n.at[j]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// exponent matches a number in scientific notation with one digit before its point.
var exponent = regexp.MustCompile(`[1-9]\.[0-9]+[eE]\+?[0-9]{1,2}`)

// maskExponents masks each number in scientific notation that is a whole number of 10 to 15
// digits, not an epoch time ("2.348031234567E12", a phone number read as a float), and that
// no letter, digit or point touches.
func maskExponents(s string) string {
	if !strings.ContainsAny(s, "eE") {
		return s
	}
	return exponent.ReplaceAllStringFunc(s, func(m string) string {
		mant, exp, _ := strings.Cut(strings.ToLower(m), "e")
		e, _ := strconv.Atoi(strings.TrimPrefix(exp, "+"))
		frac := mant[2:]
		if len(frac) > e || e+1 < minPhoneDigits || e+1 > maxPhoneDigits {
			return m
		}
		digits := mant[:1] + frac + strings.Repeat("0", e-len(frac))
		if epochLike(digits) {
			return m
		}
		return MaskPhone(digits)
	})
}

// zeroFraction returns the length of a float's fraction of zeros at t[end:] (".0", ".00"),
// or 0 when there is none there or more digits, a letter or a point follow it.
func zeroFraction(t []byte, end int) int {
	if end >= len(t) || t[end] != '.' {
		return 0
	}
	k := end + 1
	for k < len(t) && t[k] == '0' {
		k++
	}
	if k == end+1 || k < len(t) && (alnum(t[k]) || t[k] == '.' && k+1 < len(t) && isDigitByte(t[k+1])) {
		return 0
	}
	return k - end
}

// phoneAt returns the last group of the longest phone number that starts with groups[g], or
// -1 when none does.
func phoneAt(t []byte, groups []group, g int) int {
	var ends []int
	n := 0
	for h := g; h < len(groups); h++ {
		if h > g && (groups[h].plus || n >= minPhoneDigits && t[groups[h].start] == '0') {
			break
		}
		n += groups[h].end - groups[h].start
		if n > maxPhoneDigits {
			break
		}
		if n >= minPhoneDigits {
			ends = append(ends, h)
		}
	}
	for k := len(ends) - 1; k >= 0; k-- {
		h := ends[k]
		if h == g && !groups[g].plus && epochLike(string(t[groups[g].start:groups[g].end])) {
			continue
		}
		if !dotsOfPhone(t, groups[g:h+1]) {
			continue
		}
		if phoneBoundary(t, groups[g].start, groups[h].end) {
			return h
		}
	}
	return -1
}

// dotsOfPhone reports whether the dots between groups can be those of a phone number: none,
// or two or more that do not make an IP address (four groups of up to three digits). A
// single dot is a decimal point.
func dotsOfPhone(t []byte, groups []group) bool {
	dots, short := 0, true
	for h, gr := range groups {
		if h > 0 {
			dots += bytes.Count(t[groups[h-1].end:gr.start], []byte{'.'})
		}
		short = short && gr.end-gr.start <= 3
	}
	return dots == 0 || dots >= 2 && !(short && len(groups) == 4)
}

// group is a run of digits in a candidate phone number, and whether a "+" came before it.
type group struct {
	start, end int
	plus       bool
}

// phoneGroups reads the groups of digits that start at or after t[i] (after a "+" or "("),
// each separated from the next by at most two of " -()./" (and a "+" that starts a number);
// end is where the last group ends, or past what was read when there is none.
func phoneGroups(t []byte, i int) (groups []group, end int) {
	j := i
	for {
		plus := false
		k := j
		for seps := 0; k < len(t) && seps < 3; seps++ { // separators, and a "+" or "(" before the digits
			c := t[k]
			if c == '+' {
				plus = true
			} else if c != ' ' && c != '-' && c != '(' && c != ')' && (len(groups) == 0 || c != '.' && c != '/') {
				break
			}
			k++
		}
		if k >= len(t) || !isDigitByte(t[k]) || len(groups) == 0 && k-j > 2 {
			if len(groups) == 0 {
				return nil, k
			}
			return groups, end
		}
		d := k
		for d < len(t) && isDigitByte(t[d]) {
			d++
		}
		groups = append(groups, group{start: k, end: d, plus: plus})
		end, j = d, d
	}
}

// phoneBoundary reports whether the digits from start to end stand alone: no letter or digit
// touches them, nor a ':' or '.' with a digit on its far side (a time, a decimal), unless
// that is a float's fraction of zeros.
func phoneBoundary(t []byte, start, end int) bool {
	if start > 0 {
		c := t[start-1]
		if alnum(c) || (c == ':' || c == '.') && start > 1 && isDigitByte(t[start-2]) {
			return false
		}
	}
	if end < len(t) {
		c := t[end]
		if alnum(c) || c == ':' && end+1 < len(t) && isDigitByte(t[end+1]) ||
			c == '.' && end+1 < len(t) && isDigitByte(t[end+1]) && zeroFraction(t, end) == 0 {
			return false
		}
	}
	return true
}

// epochLike reports whether digits are 10 or 13 starting with 1: epoch seconds or
// milliseconds, which no number plan has without a country code.
func epochLike(digits string) bool {
	return (len(digits) == 10 || len(digits) == 13) && digits[0] == '1'
}

// MaskPhone hides the middle of a phone number, keeping its last 3 digits and up to 6 of its
// first, so that at least 4 are hidden: "2348025671695" becomes "234802****695". Fewer than 8
// characters are masked whole.
func MaskPhone(number string) string {
	if len(number) < 8 {
		return "****"
	}
	keep := min(6, len(number)-7)
	return number[:keep] + "****" + number[len(number)-3:]
}
