package bulk

import "unicode/utf8"

// The size of a batch's request body, estimated as the reader fills the batch, so that it
// is cut before the body would exceed the API's 1 MiB. Every string is counted as
// encoding/json writes it (see jsonLen): the estimate is exact but for rare control
// characters, which it over-counts, so batches are cut as late as they can be and never past
// the limit.

// bodyOverhead is the size of a batch's request body without its recipients, with the
// longest reference the job can have.
func bodyOverhead(p *Params) int {
	n := len(`{"to":[],"from":"","message":"","reference":""}`) + jsonLen(p.From) + jsonLen(p.Message) +
		jsonLen(p.JobID) + 1 + maxBatchDigits
	if p.Channel != "" {
		n += len(`,"channel":""`) + jsonLen(string(p.Channel))
	}
	return n
}

// recipientSize is the size of a recipient in the request body: a JSON string of the
// number, or {"phone":...,"name":...} (see campaignTo). The number is normalized: digits,
// which JSON does not escape.
func recipientSize(phone, name string) int {
	if name == "" {
		return len(phone) + 2
	}
	return len(`{"phone":"","name":""}`) + len(phone) + jsonLen(name)
}

// jsonLen is an upper bound of the length of s encoded by encoding/json, without the
// quotes: exact except for control characters other than \n, \r and \t, counted as \u00XX.
func jsonLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n
}
