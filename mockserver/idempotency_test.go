package mockserver_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

func TestIdempotency(t *testing.T) {
	t.Parallel()

	t.Run("replay", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		body := sms([]string{num(1), num(2)}, "reference", "order-1")
		first := e.send(body)
		assert.Empty(t, first.Header.Get("Idempotent-Replayed"))
		second := e.send(body)
		assert.Equal(t, "true", second.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, first.get("campaign"), second.get("campaign"))
		assert.Equal(t, first.get("message"), second.get("message"))
		assert.NotEqual(t, first.str("requestId"), second.str("requestId"))
		assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.ModeLive), "one debit")
		assert.Equal(t, 1, e.campaignTotal())

		// Another key of the same workspace and mode replays too.
		pub, sec, _ := e.createKey(M{"name": "k2", "scopes": M{"sms": true}})
		third := e.send(body, withKey(pub, sec))
		assert.Equal(t, "true", third.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, first.str("campaign.id"), third.str("campaign.id"))
	})

	t.Run("member order and white space do not matter", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		a := e.send(M{"to": []string{num(1)}, "from": "MOCKSMS", "message": "Hi", "reference": "r-2"})
		b := e.do(http.MethodPost, "/v1/sms/send", rawBody("{ \"reference\" : \"r-2\",\n\t\"message\":\"Hi\", \"from\": \"MOCKSMS\",  \"to\": [ \""+num(1)+"\" ] }\n")).wantStatus(202)
		assert.Equal(t, "true", b.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, a.str("campaign.id"), b.str("campaign.id"))
		// The same number written another way is another JSON value: another body.
		e.do(http.MethodPost, "/v1/sms/send", M{"to": []string{"+" + num(1)}, "from": "MOCKSMS", "message": "Hi", "reference": "r-2"}).wantError(409, "conflict")
		e.do(http.MethodPost, "/v1/sms/send", M{"to": num(1), "from": "MOCKSMS", "message": "Hi", "reference": "r-2"}).wantError(409, "conflict")
		assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.ModeLive))
	})

	t.Run("another body is a conflict", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.campaign(sms([]string{num(1)}, "reference", "r-3"))
		r := e.do(http.MethodPost, "/v1/sms/campaigns", sms([]string{num(1)}, "reference", "r-3", "message", "Other")).wantError(409, "conflict")
		assert.Equal(t, "reference", r.str("error.field"))
		e.do(http.MethodPost, "/v1/sms/campaigns", sms([]string{num(1)}, "reference", "r-3", "channel", "generic")).wantError(409, "conflict")
		e.do(http.MethodPost, "/v1/sms/send", sms([]string{num(1)}, "reference", "r-3")).wantError(409, "conflict")
		assert.Equal(t, 1, e.campaignTotal())
	})

	t.Run("a 402 does not burn the reference", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		body := sms(num(1), "reference", "r-4")
		e.setBalance(mockserver.ModeLive, gp-1)
		e.do(http.MethodPost, "/v1/sms/send", body).wantError(402, "insufficient_balance")
		e.do(http.MethodPost, "/v1/sms/send", body).wantError(402, "insufficient_balance")
		e.setBalance(mockserver.ModeLive, gp)
		r := e.send(body)
		assert.Empty(t, r.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, int64(0), e.balance(mockserver.ModeLive))
		again := e.send(body)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, r.str("campaign.id"), again.str("campaign.id"))
	})

	t.Run("a 400 or an injected 5xx does not burn the reference", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "reference", "r-5", "from", "NOSUCH")).wantError(400, "bad_request")
		r := e.send(sms(num(1), "reference", "r-5")) // another body: no conflict
		assert.Empty(t, r.Header.Get("Idempotent-Replayed"))

		e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/sms/send", Status: 503, Times: 1})
		e.do(http.MethodPost, "/v1/sms/send", sms(num(1), "reference", "r-6")).wantError(503, "server_error")
		r = e.send(sms(num(1), "reference", "r-6"))
		assert.Empty(t, r.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, 2, e.campaignTotal())
	})

	t.Run("the window is 24 hours", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		body := sms(num(1), "reference", "r-7")
		first := e.send(body)
		e.srv.Advance(24*time.Hour - time.Second)
		assert.Equal(t, "true", e.send(body).Header.Get("Idempotent-Replayed"))
		assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.ModeLive))
		e.srv.Advance(time.Second)
		later := e.send(body)
		assert.Empty(t, later.Header.Get("Idempotent-Replayed"))
		assert.NotEqual(t, first.str("campaign.id"), later.str("campaign.id"))
		assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.ModeLive))
		assert.Equal(t, 2, e.campaignTotal())
		// The new window starts with the new request.
		e.srv.Advance(time.Hour)
		assert.Equal(t, later.str("campaign.id"), e.send(body).str("campaign.id"))
	})

	t.Run("per workspace and mode", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		body := sms(num(1), "reference", "r-8")
		live := e.send(body)
		test := e.send(body, e.test())
		assert.Empty(t, test.Header.Get("Idempotent-Replayed"))
		assert.NotEqual(t, live.str("campaign.id"), test.str("campaign.id"))
		other := e.newWorkspace()
		theirs := e.send(body, withKey(other.LiveKey, other.LiveSecret))
		assert.Empty(t, theirs.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.ModeLive))
		assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.ModeTest))
		// Still a conflict in its own scope.
		e.do(http.MethodPost, "/v1/sms/send", with(body, "message", "x"), e.test()).wantError(409, "conflict")
	})

	t.Run("no reference, no deduplication", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		a := e.send(sms(num(1)))
		b := e.send(sms(num(1)))
		assert.NotEqual(t, a.str("campaign.id"), b.str("campaign.id"))
		assert.Empty(t, b.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.ModeLive))
	})
}

// Past WithIdempotencyLimit, the oldest reference of the workspace is forgotten: sending it
// again is a new send, while the newer ones still replay without a second charge.
func TestIdempotencyLimitOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithIdempotencyLimit(2))
	first := map[string]string{}
	for _, ref := range []string{"r-1", "r-2", "r-3"} {
		first[ref] = e.send(sms(num(1), "reference", ref)).str("campaign.id")
	}
	spent := int64(mockserver.DefaultBalance - e.balance(mockserver.ModeLive))
	for _, ref := range []string{"r-3", "r-2"} {
		r := e.send(sms(num(1), "reference", ref))
		assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"), ref)
		assert.Equal(t, first[ref], r.str("campaign.id"), ref)
	}
	assert.Equal(t, spent, int64(mockserver.DefaultBalance-e.balance(mockserver.ModeLive)), "replays are not charged")
	again := e.send(sms(num(1), "reference", "r-1"))
	assert.Empty(t, again.Header.Get("Idempotent-Replayed"), "r-1 was the oldest: forgotten")
	assert.NotEqual(t, first["r-1"], again.str("campaign.id"))
	assert.Equal(t, 4, e.campaignTotal())
}

// The same request written another way (its members in another order, other white space,
// a character escaped) is the same request: the second replays the first, whichever comes
// first. A body with a member given twice is no request: 400, and nothing replays.
func TestIdempotencyIgnoresLayout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, written, plain string
	}{
		{"send", "/v1/sms/send",
			"{ \"message\" : \"Hi \\u003cb>\",\n\t\"to\":\"" + num(1) + `","from":"MOCKSMS","reference":"r-1"}`,
			`{"to":"` + num(1) + `","from":"MOCKSMS","message":"Hi <b>","reference":"r-1"}`},
		{"campaign", "/v1/sms/campaigns",
			`{"to":[{"phone":"` + num(1) + `","name":"A\u00e9"},"` + num(2) + `"],"from":"MOCKSMS","message":"Hi {{name}}","reference":"r-2"}`,
			`{"reference":"r-2","message":"Hi {{name}}","from":"MOCKSMS","to":[{"name":"Aé","phone":"` + num(1) + `"},"` + num(2) + `"]}`},
	}
	t.Run("a member given twice", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.do(http.MethodPost, "/v1/sms/send", rawBody(tests[0].plain)).wantStatus(http.StatusAccepted)
		twice := `{"message":"x",` + tests[0].plain[1:]
		r := e.do(http.MethodPost, "/v1/sms/send", rawBody(twice)).wantError(http.StatusBadRequest, "bad_request")
		assert.Equal(t, "message", r.str("error.field"))
		assert.Empty(t, r.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, 1, e.campaignTotal())
	})
	for _, tt := range tests {
		for _, plainFirst := range []bool{false, true} {
			order := "/written-first"
			if plainFirst {
				order = "/plain-first"
			}
			t.Run(tt.name+order, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				first, second := tt.written, tt.plain
				if plainFirst {
					first, second = second, first
				}
				a := e.do(http.MethodPost, tt.path, rawBody(first)).wantStatus(http.StatusAccepted)
				b := e.do(http.MethodPost, tt.path, rawBody(second)).wantStatus(http.StatusAccepted)
				assert.Equal(t, "true", b.Header.Get("Idempotent-Replayed"))
				assert.Equal(t, a.str("campaign.id"), b.str("campaign.id"))
				assert.Equal(t, 1, e.campaignTotal())
			})
		}
	}
}

// TestConcurrentSameReference: 32 identical requests with one reference at once run once.
func TestConcurrentSameReference(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/v1/sms/send", "/v1/sms/campaigns"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			body := sms(nums(1, 3), "reference", "same-ref", "message", strings.Repeat("b", 200))
			rs := e.parallel(32, func(int) call { return post(path, body) })
			id := rs[0].str("campaign.id")
			replayed := 0
			for i, r := range rs {
				r.wantStatus(http.StatusAccepted)
				assert.Equal(t, id, r.str("campaign.id"), "request %d", i)
				assert.Equal(t, rs[0].get("campaign"), r.get("campaign"))
				if r.Header.Get("Idempotent-Replayed") == "true" {
					replayed++
				}
			}
			assert.Equal(t, 31, replayed, "exactly one request ran")
			assert.Equal(t, int64(mockserver.DefaultBalance-3*2*gp), e.balance(mockserver.ModeLive), "one debit")
			assert.Equal(t, 1, e.campaignTotal())
		})
	}
}

// TestConcurrentReferenceConflict: two different bodies with one reference at once: one body
// wins and runs once, every request with the other body is 409.
func TestConcurrentReferenceConflict(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bodies := []M{sms(num(1), "reference", "r"), sms(num(2), "reference", "r")}
	rs := e.parallel(32, func(i int) call { return post("/v1/sms/send", bodies[i%2]) })
	winner := -1
	for i, r := range rs {
		if r.Status == http.StatusAccepted {
			if winner < 0 {
				winner = i % 2
			}
			assert.Equal(t, winner, i%2, "both bodies ran")
		} else {
			r.wantError(http.StatusConflict, "conflict")
		}
	}
	require.GreaterOrEqual(t, winner, 0)
	for i, r := range rs {
		if i%2 == winner {
			assert.Equal(t, http.StatusAccepted, r.Status, "request %d of the winning body", i)
		}
	}
	assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.ModeLive))
	assert.Equal(t, 1, e.campaignTotal())
}
