package rules

import "testing"

func TestCodeFor(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]string{
		400: CodeBadRequest, 401: CodeUnauthorized, 402: CodeInsufficientBalance,
		403: CodeInsufficientScope, 404: CodeNotFound, 405: CodeMethodNotAllowed,
		409: CodeConflict, 413: CodePayloadTooLarge, 415: CodeUnsupportedMediaType,
		429: CodeRateLimited, 418: CodeBadRequest, 500: CodeServerError, 503: CodeServerError,
		599: CodeServerError, 200: CodeUnexpectedStatus, 302: CodeUnexpectedStatus,
	} {
		if got := CodeFor(status); got != want {
			t.Errorf("CodeFor(%d) = %q, want %q", status, got, want)
		}
	}
}

func TestEncodingString(t *testing.T) {
	t.Parallel()
	for e, want := range map[Encoding]string{GSM7: "GSM-7", UCS2: "UCS-2", 0: "Encoding(0)", 7: "Encoding(7)"} {
		if got := e.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(e), got, want)
		}
	}
}
