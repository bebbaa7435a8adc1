package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestPhonesAsPeopleWriteThem: send and bulk take numbers with spaces, dashes, dots and
// parentheses, and a local number that lost its 0, and the phones get them normalized; a
// spreadsheet's float is a row reported invalid, with the reason.
func TestPhonesAsPeopleWriteThem(t *testing.T) {
	t.Parallel()
	f := newFixture(t)

	r := runCLI(t, f.env, "", "send", "--to", "0803-123-4561", "--to", "(0803) 1234562", "--to", "+234 803 123 4563",
		"--to", "8031234564", "--to", "0803.123.4565", "--from", f.ws.SenderID, "--message", "Hi")
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, to := range []string{"2348031234561", "2348031234562", "2348031234563", "2348031234564", "2348031234565"} {
		assert.Len(t, f.srv.Messages(mockserver.Filter{To: to, Contains: "Hi"}), 1, to)
	}

	csv := writeFile(t, "people.csv",
		"phone,name\n+234 (0)805 111 2221,Ada\n805-111-2222,Bola\n8051112223,Chi\n8051112224.0,Dayo\n")
	r = runCLI(t, f.env, "", "bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Hello {{name}}", "--job-id", "people", "--skip-invalid")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "line 5")
	assert.Contains(t, r.stderr, "ends in .0 or .00")
	for to, name := range map[string]string{"2348051112221": "Ada", "2348051112222": "Bola", "2348051112223": "Chi"} {
		msgs := f.srv.Messages(mockserver.Filter{To: to})
		require.Len(t, msgs, 1, to)
		assert.Equal(t, "Hello "+name, msgs[0].Text)
	}
	assert.Empty(t, f.srv.Messages(mockserver.Filter{To: "80511122240"}))
}

// TestNigerianNumberLength: a number starting with 234 needs 10 digits after 234 (and its
// trunk 0). send refuses the others as a usage error before sending anything; bulk reports
// their rows invalid, saying how many digits they have, and sends the rest.
func TestNigerianNumberLength(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct{ number, has string }{
		{"+234 803 123 456", "9 digits after 234"},
		{"+234 803 123 45678", "11 digits after 234"},
		{"234 0803 123 45678", "11 digits after 234"},
	}
	for _, tt := range tests {
		r := runCLI(t, f.env, "", "send", "--to", "08031234570", "--to", tt.number, "--from", f.ws.SenderID, "--message", "Wrong length")
		assert.Equal(t, exitUsage, r.code, tt.number)
		assert.Contains(t, r.stderr, tt.has, tt.number)
	}
	assert.Empty(t, f.srv.Messages(mockserver.Filter{Contains: "Wrong length"}), "send sent nothing")

	csv := writeFile(t, "lengths.csv", "phone,name\n"+tests[0].number+",A\n"+tests[1].number+",B\n"+tests[2].number+",C\n08031234571,D\n")
	r := runCLI(t, f.env, "", "bulk", "--csv", csv, "--from", f.ws.SenderID, "--message", "Length {{name}}", "--job-id", "lengths", "--skip-invalid")
	require.Equal(t, exitOK, r.code, r.stderr)
	for i, tt := range tests {
		assert.Contains(t, r.stderr, "line "+strconv.Itoa(i+2)+": invalid phone number "+strconv.Quote(tt.number)+": "+tt.has)
		assert.Contains(t, r.stderr, tt.has)
	}
	msgs := f.srv.Messages(mockserver.Filter{Contains: "Length"})
	require.Len(t, msgs, 1)
	assert.Equal(t, "2348031234571", msgs[0].To)
}

// TestSendUnreadableAnswerMasked: `sms send` answered by a 2xx it cannot read prints the
// start of the body with every phone number masked, whatever its form, and no pin or secret,
// in its text and in --json.
func TestSendUnreadableAnswerMasked(t *testing.T) {
	t.Parallel()
	const secret = "sk_test_Q9vX2mL7pR4tY8wZ1aB5cD6eF3gH0jK2"
	body := `{"status":"success","data":{"to":[2348025671695,"+234 803 123 4567"],"msisdn":2348051234567,` +
		`"recipient":"0807-123-4567","note":"sent to_2348091234567","otp_code":"5521","pinCode":7731,` +
		`"text":"Your code is 913357","echo":"` + secret[len("sk_test_"):] + `"`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{envBaseURL: srv.URL, envAPIKey: "pk_test_abc", envAPISecret: secret}
	for _, json := range []bool{false, true} {
		args := []string{"send", "--to", "08025671695", "--from", "ACME", "--message", "Hi"}
		if json {
			args = append(args, "--json")
		}
		r := runCLI(t, env, "", args...)
		require.Equal(t, exitFailure, r.code, r.stderr)
		require.Contains(t, r.stderr, "outcome unknown")
		for _, leak := range []string{"8025671695", "803 123 4567", "8051234567", "807-123-4567", "8091234567",
			"5521", "7731", "913357", secret[len("sk_test_"):][:8]} {
			assert.NotContains(t, r.stderr, leak)
			assert.NotContains(t, r.stdout, leak)
		}
		assert.Contains(t, r.stderr, "234802****695")
		if json {
			assert.Contains(t, r.stdout, "234802****695")
		}
	}
}
