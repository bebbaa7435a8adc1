package safetext

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
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
}

// Redactor replaces secrets, pins and, for a Config with People, phone numbers in text and in
// JSON. Its rule is the one rule of the module: the SDK's errors, the doctor's saved answers
// and the mock's request log use it. A Redactor is safe for concurrent use.
type Redactor struct {
	secrets []string            // whole, longest first
	pieces  map[string]struct{} // every MinPiece-long window of each secret's random part
	pins    []string
	people  bool
}

// New returns a Redactor for c. Empty secrets and pins are ignored.
func New(c Config) *Redactor {
	r := &Redactor{pieces: make(map[string]struct{}), people: c.People}
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
		for i := 0; i+MinPiece <= len(body); i++ {
			if w := body[i : i+MinPiece]; !strings.ContainsFunc(w, notPieceRune) {
				r.pieces[w] = struct{}{}
			}
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
			r.pins = append(r.pins, p)
		}
	}
	return r
}

// pieceRune reports whether c may be part of a credential's run in text: letters, digits and
// "_-.+~" (base64url, base64 without padding, a JWT's dots).
func pieceRune(c rune) bool {
	return c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == '+' || c == '~')
}

func notPieceRune(c rune) bool { return !pieceRune(c) }

// Shapes of secrets found whatever the Config: an API secret (up to a character that cannot be
// in one), a Bearer or Basic credential, and a JWT or any base64url run that starts like one
// (a JWT's first two segments each start with eyJ, the encoding of `{"`).
var secretShape = regexp.MustCompile(`(?i:sk_(?:live|test)_)[^\s"'<>&,;)}\]\\]*` +
	`|(?i:\b(?:bearer|basic)\s+)[^\s"'<>&,;)}\]\\]+` +
	`|eyJ[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*)*`)

// pinText matches what text says is a pin or a code, such as "your code is 482913", "PIN:
// 4829" or "482913 is your OTP" (group 1 or 2; it must hold a digit). The words between may be
// quoted, as in JSON held in a string.
var pinText = regexp.MustCompile(`(?i)\b(?:pin|otp|code|passcode|password)s?\b["'\\]*(?:\s*(?:is|was|:|=|-)\s*|\s+)["'\\]*([A-Za-z0-9]{4,8})\b` +
	`|\b([0-9]{4,8})\s+is\s+(?:your|the)\s+(?:\w+\s+)?(?:pin|otp|code|passcode|password)\b`)

// Text returns s with the caller's own secrets and pins, whatever is shaped like a secret and,
// with People, pins in words and phone numbers replaced.
func (r *Redactor) Text(s string) string {
	s = r.Secrets(s)
	if !r.people {
		return s
	}
	s = pinText.ReplaceAllStringFunc(s, func(m string) string {
		sub := pinText.FindStringSubmatchIndex(m)
		for g := 1; g <= 2; g++ {
			if i, j := sub[2*g], sub[2*g+1]; i >= 0 && strings.ContainsFunc(m[i:j], isDigit) {
				return m[:i] + Redacted + m[j:]
			}
		}
		return m
	})
	return MaskPhones(s)
}

// Secrets returns s with the caller's own secrets and pins, and whatever is shaped like a
// secret, replaced: Text without what People adds, for text such as a request ID, whose
// digits are no phone number.
func (r *Redactor) Secrets(s string) string {
	for _, o := range r.secrets {
		s = strings.ReplaceAll(s, o, Redacted)
	}
	if len(r.pieces) > 0 {
		s = r.replacePieces(s)
	}
	s = secretShape.ReplaceAllString(s, Redacted)
	for _, p := range r.pins {
		s = replaceAlone(s, p)
	}
	return s
}

// replacePieces replaces every run of pieceRune characters that holds a window of r.pieces.
func (r *Redactor) replacePieces(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !pieceRune(rune(s[i])) {
			i++
			continue
		}
		j := i
		for j < len(s) && pieceRune(rune(s[j])) {
			j++
		}
		if j-i >= MinPiece && r.holdsPiece(s[i:j]) {
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

func (r *Redactor) holdsPiece(run string) bool {
	for i := 0; i+MinPiece <= len(run); i++ {
		if _, ok := r.pieces[run[i:i+MinPiece]]; ok {
			return true
		}
	}
	return false
}

// replaceAlone replaces each occurrence of p in s that no letter or digit touches.
func replaceAlone(s, p string) string {
	var b strings.Builder
	last := 0
	for i := 0; ; {
		k := strings.Index(s[i:], p)
		if k < 0 {
			break
		}
		k += i
		end := k + len(p)
		if (k == 0 || !alnum(s[k-1])) && (end == len(s) || !alnum(s[end])) {
			b.WriteString(s[last:k])
			b.WriteString(Redacted)
			last = end
		}
		i = k + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func alnum(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c rune) bool { return c >= '0' && c <= '9' }

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

// maskNumber masks s as one phone number when it holds a digit and only digits and " -().+"
// otherwise, keeping a leading "+".
func maskNumber(s string) (string, bool) {
	var digits strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits.WriteByte(c)
		case c == ' ' || c == '-' || c == '(' || c == ')' || c == '.' || c == '+':
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

// MaskPhones masks every phone number in s as MaskPhone does, keeping a leading "+". A phone
// number is 10 to 15 digits, in groups separated by a space, a dash or parentheses ("+234 803
// 123 4567", "0803-123-4567", "(0803) 1234567"), that no letter or digit touches ("_" may:
// "to_2348031234567"; so may a "+" escaped in a URL, "to=%2B2348031234567"). A group starting with "+", or with "0" once a number has 10 digits,
// starts the next number. Not phone numbers: groups touching a letter (an ID), a time or a
// decimal (a ':' or '.' with a digit beyond it on either side), and 10 or 13 digits starting with 1
// written without separators, as epoch seconds and milliseconds are (no number plan has them).
func MaskPhones(s string) string {
	if !strings.ContainsFunc(s, isDigit) {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isDigit(rune(s[i])) && !(s[i] == '+' || s[i] == '(') {
			i++
			continue
		}
		groups, end := phoneGroups(s, i)
		for g := 0; g < len(groups); {
			best := phoneAt(s, groups, g)
			if best < 0 {
				g++
				continue
			}
			from := groups[g].start
			if groups[g].plus {
				from = strings.LastIndexByte(s[:from], '+')
			}
			var digits strings.Builder
			for h := g; h <= best; h++ {
				digits.WriteString(s[groups[h].start:groups[h].end])
			}
			b.WriteString(s[last:from])
			if groups[g].plus {
				b.WriteByte('+')
			}
			b.WriteString(MaskPhone(digits.String()))
			last = groups[best].end
			g = best + 1
		}
		i = max(end, i+1)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// phoneAt returns the last group of the longest phone number that starts with groups[g], or
// -1 when none does.
func phoneAt(s string, groups []group, g int) int {
	var ends []int
	n := 0
	for h := g; h < len(groups); h++ {
		if h > g && (groups[h].plus || n >= minPhoneDigits && s[groups[h].start] == '0') {
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
		if h == g && !groups[g].plus && epochLike(s[groups[g].start:groups[g].end]) {
			continue
		}
		if phoneBoundary(s, groups[g].start, groups[h].end) {
			return h
		}
	}
	return -1
}

// group is a run of digits in a candidate phone number, and whether a "+" came before it.
type group struct {
	start, end int
	plus       bool
}

// phoneGroups reads the groups of digits that start at or after s[i] (after a "+" or "("),
// each separated from the next by at most two of " -()" (and a "+" that starts a number);
// end is where the last group ends, or past what was read when there is none.
func phoneGroups(s string, i int) (groups []group, end int) {
	j := i
	for {
		plus := false
		k := j
		for seps := 0; k < len(s) && seps < 3; seps++ { // separators, and a "+" or "(" before the digits
			c := s[k]
			if c == '+' {
				plus = true
			} else if c != ' ' && c != '-' && c != '(' && c != ')' {
				break
			}
			k++
		}
		if k >= len(s) || !isDigit(rune(s[k])) || len(groups) == 0 && k-j > 2 {
			if len(groups) == 0 {
				return nil, k
			}
			return groups, end
		}
		d := k
		for d < len(s) && isDigit(rune(s[d])) {
			d++
		}
		groups = append(groups, group{start: k, end: d, plus: plus})
		end, j = d, d
	}
}

// phoneBoundary reports whether the digits from start to end stand alone: no letter or digit
// touches them, nor a ':' or '.' with a digit on its far side (a time, a decimal).
func phoneBoundary(s string, start, end int) bool {
	if start > 0 {
		c := s[start-1]
		if start >= 3 && strings.EqualFold(s[start-3:start], "%2B") { // a "+" escaped in a URL
			c = '+'
		}
		if alnum(c) || (c == ':' || c == '.') && start > 1 && isDigit(rune(s[start-2])) {
			return false
		}
	}
	if end < len(s) {
		c := s[end]
		if alnum(c) || (c == ':' || c == '.') && end+1 < len(s) && isDigit(rune(s[end+1])) {
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
