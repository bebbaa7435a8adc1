package mockserver_test

import (
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

func TestSendResponse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.send(sms([]string{"08025671695", "+2348031234567"}, "reference", "order-1042"))
	assert.Equal(t, "SMS request accepted.", r.str("message"))
	id := r.str("campaign.id")
	assert.Regexp(t, oidRe, id)
	assert.Equal(t, "sent", r.str("campaign.status"))
	assert.Equal(t, messageIDOf(t, id), r.str("campaign.message_id"))
	assert.Equal(t, 2, r.int("campaign.recipients"))
	assert.Equal(t, int64(2*gp), r.kobo("campaign.amount"))
	assert.Equal(t, "6.40", r.str("campaign.amount"))
	assert.Equal(t, "NGN", r.str("campaign.currency"))
	assert.Equal(t, 1, r.int("campaign.sms_parts"))
	assert.Equal(t, int64(mockserver.DefaultBalance-2*gp), e.balance(mockserver.ModeLive))
	assert.Empty(t, r.Header.Get("Idempotent-Replayed"))

	l := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	require.Len(t, l.list("data"), 1)
	assert.Equal(t, map[string]any{
		"_id": id, "senderId": "MOCKSMS", "recipientCount": l.get("data.0.recipientCount"), "amount": l.get("data.0.amount"),
		"status": "sent", "currency": "NGN", "channel": "generic", "smsParts": l.get("data.0.smsParts"),
		"messageId": messageIDOf(t, id), "reference": "order-1042", "createdAt": l.get("data.0.createdAt"),
	}, l.get("data.0"))
	assert.Equal(t, 2, l.int("data.0.recipientCount"))
	assert.Equal(t, int64(2*gp), l.kobo("data.0.amount"))
	assert.Equal(t, 1, l.int("data.0.smsParts"))
	assertTime(t, fixedNow, l, "data.0.createdAt")

	st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"2348025671695", "2348031234567"}, ids(st, "data.recipients", "to"), "normalized, in request order")

	// Without a reference, the listed reference is null.
	id2 := e.send(sms(num(9))).str("campaign.id")
	l = e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
	assert.Equal(t, id2, l.str("data.0._id"))
	assertNull(t, l, "data.0.reference")
}

// TestSMSParts: sms_parts and the amount (parts x recipients x price) for GSM-7, its extension
// table and UCS-2, with odd prices so the default prices cannot pass by accident.
func TestSMSParts(t *testing.T) {
	t.Parallel()
	const generic, dnd = 7, 11
	tests := []struct {
		name  string
		msg   string
		parts int
	}{
		{"short", "Hello", 1},
		{"160 GSM-7", strings.Repeat("a", 160), 1},
		{"161 GSM-7", strings.Repeat("a", 161), 2},
		{"306 GSM-7", strings.Repeat("a", 306), 2},
		{"307 GSM-7", strings.Repeat("a", 307), 3},
		{"1530 GSM-7 is 10 parts", strings.Repeat("a", 1530), 10},
		{"GSM-7 accents", strings.Repeat("Ça va? àèìòù ÄÖÑÜ ß £¥ §¿ ¡", 5), 1},
		{"160 é", strings.Repeat("é", 160), 1},
		{"161 é", strings.Repeat("é", 161), 2},
		{"80 euro signs", strings.Repeat("€", 80), 1},
		{"81 euro signs", strings.Repeat("€", 81), 2},
		{"extension chars fill one part", strings.Repeat("a", 152) + "^{}\\", 1},
		{"extension chars count 2", strings.Repeat("a", 153) + "^{}\\", 2},
		{"79 pipes and a letter", strings.Repeat("|", 79) + "a", 1},
		{"80 pipes and a letter", strings.Repeat("|", 80) + "a", 2},
		{"form feed counts 2", strings.Repeat("a", 159) + "\f", 2},
		{"brackets and tilde fill one part", strings.Repeat("a", 154) + "[~]", 1},
		{"brackets and tilde", strings.Repeat("a", 155) + "[~]", 2},
		{"70 UCS-2", strings.Repeat("ж", 70), 1},
		{"71 UCS-2", strings.Repeat("ж", 71), 2},
		{"134 UCS-2", strings.Repeat("ж", 134), 2},
		{"135 UCS-2", strings.Repeat("ж", 135), 3},
		{"670 UCS-2 is 10 parts", strings.Repeat("ж", 670), 10},
		{"one non-GSM char makes UCS-2", strings.Repeat("a", 159) + "ж", 3},
		{"35 emoji", strings.Repeat("😀", 35), 1},
		{"36 emoji", strings.Repeat("😀", 36), 2},
		{"Yoruba diacritics", "Ẹ ku àárọ̀", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, mockserver.WithPrices(generic, dnd))
			r := e.send(sms([]string{num(1), num(2)}, "message", tc.msg))
			assert.Equal(t, tc.parts, r.int("campaign.sms_parts"))
			want := int64(tc.parts * 2 * generic)
			assert.Equal(t, want, r.kobo("campaign.amount"))
			assert.Equal(t, int64(mockserver.DefaultBalance)-want, e.balance(mockserver.ModeLive))

			r = e.send(sms([]string{num(1), num(2), num(3)}, "message", tc.msg, "channel", "dnd"))
			assert.Equal(t, int64(tc.parts*3*dnd), r.kobo("campaign.amount"), "dnd channel")
			l := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
			assert.Equal(t, "dnd", l.str("data.0.channel"))
			assert.Equal(t, "generic", l.str("data.1.channel"))
			assert.Equal(t, tc.parts, l.int("data.0.smsParts"))
		})
	}
}

// TestNameIsNotFilledOnSend: {{name}} is a campaign feature; in POST /v1/sms/send it is text
// like any other, and its braces are GSM-7 extension characters (2 septets each).
func TestNameIsNotFilledOnSend(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.send(sms(num(1), "message", strings.Repeat("a", 148)+"{{name}}")) // 148 + 8 + 4 = 160 septets
	assert.Equal(t, 1, r.int("campaign.sms_parts"))
	r = e.send(sms(num(1), "message", strings.Repeat("a", 149)+"{{name}}")) // 161 septets
	assert.Equal(t, 2, r.int("campaign.sms_parts"))
	assert.Equal(t, int64(2*gp), r.kobo("campaign.amount"))
	r = e.send(sms(num(1), "message", strings.Repeat("{{name}}", 20))) // 240 septets
	assert.Equal(t, 2, r.int("campaign.sms_parts"))
}

// TestEmptyMessageAfterFillingIsNotFree: a campaign whose message is only {{name}}, sent to a
// recipient without a name, is not a free SMS of 0 parts (sms_parts is at least 1).
func TestEmptyMessageAfterFillingIsNotFree(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do(http.MethodPost, "/v1/sms/campaigns", sms([]any{num(1), M{"phone": num(2), "name": ""}}, "message", "{{name}}"))
	if r.Status == http.StatusBadRequest { // rejecting it is fine too
		assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.ModeLive))
		return
	}
	r.wantStatus(http.StatusAccepted)
	assert.GreaterOrEqual(t, r.int("campaign.sms_parts"), 1)
	assert.Equal(t, int64(mockserver.DefaultBalance)-r.kobo("campaign.amount"), e.balance(mockserver.ModeLive))
	assert.GreaterOrEqual(t, r.kobo("campaign.amount"), int64(2*gp))
}

func TestDuplicateNumbersAreSentOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.send(sms([]string{"08025671695", "2348025671695", "+2348025671695", "2348031234567", "08025671695"}))
	assert.Equal(t, 2, r.int("campaign.recipients"))
	assert.Equal(t, int64(2*gp), r.kobo("campaign.amount"))
	st := e.do(http.MethodGet, "/v1/sms/campaigns/"+r.str("campaign.id")+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"2348025671695", "2348031234567"}, ids(st, "data.recipients", "to"))
	assert.Equal(t, 2, st.int("pagination.total"))

	c := e.campaign(sms([]any{M{"phone": "08025671695", "name": "Ada"}, "2348025671695", M{"phone": "+2348025671695", "name": "Bo"}}))
	assert.Equal(t, 1, c.int("campaign.recipients"))
	assert.Equal(t, int64(gp), c.kobo("campaign.amount"))
}

// TestPersonalization: {{name}} is filled per recipient and parts are counted after that.
func TestPersonalization(t *testing.T) {
	t.Parallel()
	const price = 7
	e := newEnv(t, mockserver.WithPrices(price, 11))
	msg := "Hello {{name}}, " + strings.Repeat("x", 140)
	r := e.campaign(sms([]any{
		M{"phone": num(1), "name": "Ada"},                  // 151 GSM-7: 1 part
		M{"phone": num(2), "name": "Bartholomew-Ezekiel!"}, // 168: 2 parts
		num(3),                                               // no name, 148: 1 part
		M{"phone": num(4), "name": "Ọlá"},                    // UCS-2, 151 units: 3 parts
		M{"phone": num(1), "name": "Duplicate"},              // sent once, as the first
		M{"phone": num(5)},                                   // no name: 1 part
		M{"phone": num(6), "name": ""},                       // empty name: 1 part
		M{"phone": num(7), "name": strings.Repeat("n", 100)}, // 248: 2 parts
	}, "message", msg))
	assert.Equal(t, 7, r.int("campaign.recipients"))
	assert.Equal(t, 3, r.int("campaign.sms_parts"), "the largest")
	assert.Equal(t, int64((1+2+1+3+1+1+2)*price), r.kobo("campaign.amount"))
	assert.Equal(t, int64(mockserver.DefaultBalance-(1+2+1+3+1+1+2)*price), e.balance(mockserver.ModeLive))

	// Every {{name}} is replaced.
	r = e.campaign(sms([]any{M{"phone": num(1), "name": strings.Repeat("n", 80)}}, "message", "{{name}} {{name}}"))
	assert.Equal(t, 2, r.int("campaign.sms_parts"))

	// Without {{name}} the names change nothing.
	r = e.campaign(sms([]any{M{"phone": num(1), "name": "Ọlá"}, num(2)}, "message", strings.Repeat("a", 160)))
	assert.Equal(t, 1, r.int("campaign.sms_parts"))
	assert.Equal(t, int64(2*price), r.kobo("campaign.amount"))
}

// TestPersonalizedTooLongNamesTheRecipient: the 400 for a message over 10 parts after {{name}}
// is filled names the offending recipient as it was sent.
func TestPersonalizedTooLongNamesTheRecipient(t *testing.T) {
	t.Parallel()
	msg := strings.Repeat("a", 1500) + "{{name}}"
	long := strings.Repeat("b", 40)
	tests := []struct {
		name  string
		to    []any
		msg   string
		field string
	}{
		{"the long name", []any{num(1), M{"phone": num(2), "name": long}}, msg, "to[1].name"},
		{"after a duplicate", []any{num(1), num(1), M{"phone": num(2), "name": long}}, msg, "to[2].name"},
		{"the template alone", []any{num(1)}, strings.Repeat("a", 1531) + "{{name}}", "message"},
		{"the template alone, a plain number", []any{M{"phone": num(1), "name": "Ada"}, num(2)}, strings.Repeat("a", 1531) + "{{name}}", "message"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			r := e.do(http.MethodPost, "/v1/sms/campaigns", sms(tc.to, "message", tc.msg)).wantError(400, "bad_request")
			assert.Equal(t, tc.field, r.str("error.field"))
			assert.Equal(t, 0, e.campaignTotal())
		})
	}
}

// TestProviderFailureRefunds: a send the provider refuses (a fault rule, in Go or over HTTP)
// is accepted as failed and refunded, listed and reported so, replayed as it was answered.
func TestProviderFailureRefunds(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/v1/sms/send", "/v1/sms/campaigns"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if path == "/v1/sms/send" {
				require.NoError(t, e.srv.AddFaults(mockserver.FaultRule{Path: path, ProviderFailure: true, Times: 1}))
			} else { // the same rule over HTTP
				e.do(http.MethodPost, "/_mock/faults", M{"rules": []M{{"path": path, "providerFailure": true, "times": 1}}}).wantStatus(http.StatusOK)
			}
			body := sms([]string{num(1), num(2)}, "reference", "ref-fail", "message", strings.Repeat("a", 200))
			r := e.do(http.MethodPost, path, body).wantStatus(http.StatusAccepted)
			id := r.str("campaign.id")
			assert.Equal(t, "failed", r.str("campaign.status"))
			assert.Equal(t, "0.00", r.str("campaign.amount"))
			assertNull(t, r, "campaign.message_id")
			assert.Equal(t, 2, r.int("campaign.recipients"))
			assert.Equal(t, 2, r.int("campaign.sms_parts"))
			assert.Equal(t, int64(mockserver.DefaultBalance), e.balance(mockserver.ModeLive), "refunded")

			l := e.do(http.MethodGet, "/v1/sms/campaigns", nil).wantStatus(http.StatusOK)
			assert.Equal(t, 1, l.int("pagination.total"))
			assert.Equal(t, "failed", l.str("data.0.status"))
			assert.Equal(t, "0.00", l.str("data.0.amount"))
			assertNull(t, l, "data.0.messageId")
			st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
			assertFailedStatus(t, st, id, []string{num(1), num(2)})
			assert.Error(t, e.srv.Deliver(id, nil))
			e.srv.Advance(time.Hour)
			st = e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status?limit=1&page=2", nil).wantStatus(http.StatusOK)
			assertFailedStatus(t, st, id, []string{num(2)})
			assert.Equal(t, []int{2, 1, 2}, []int{st.int("pagination.page"), st.int("pagination.limit"), st.int("pagination.total")})

			// The accepted (failed) answer is what the reference replays; a new request sends.
			again := e.do(http.MethodPost, path, body).wantStatus(http.StatusAccepted)
			assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
			assert.Equal(t, r.get("campaign"), again.get("campaign"))
			ok := e.do(http.MethodPost, path, with(body, "reference", "ref-ok")).wantStatus(http.StatusAccepted)
			assert.Equal(t, "sent", ok.str("campaign.status"))
			assert.Equal(t, int64(mockserver.DefaultBalance-4*gp), e.balance(mockserver.ModeLive))
		})
	}
}

// TestConcurrentSendsKeepTheWalletExact: 64 sends at once on one workspace, of mixed sizes,
// channels, endpoints and modes. Every kobo is accounted for, every 402 was deserved, and every
// accepted campaign exists once.
func TestConcurrentSendsKeepTheWalletExact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		live, test int64
		runsOut    bool
	}{
		{"plenty", mockserver.DefaultBalance, mockserver.DefaultBalance, false},
		{"running out midway", 25_000, 12_000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, mockserver.WithBalances(tc.live, tc.test))
			require.NoError(t, e.srv.AddDND(num(100), num(501)))
			const n = 64
			type job struct {
				mode mockserver.Mode
				cost int64
			}
			jobs := make([]job, n)
			rs := e.parallel(n, func(i int) call {
				rcpt, parts := 1+i%7, 1+i%3
				to := nums(i*100, rcpt)
				if i%5 == 1 {
					to = append(to, "+"+to[0]) // a duplicate
				}
				body := sms(to, "message", strings.Repeat("a", []int{100, 300, 400}[i%3]))
				price := int64(gp)
				if i%4 == 0 {
					body["channel"], price = "dnd", dp
				}
				path := "/v1/sms/send"
				if i%2 == 1 {
					path = "/v1/sms/campaigns"
				}
				jobs[i] = job{mockserver.ModeLive, int64(rcpt*parts) * price}
				opt := e.live()
				if i%6 == 5 {
					jobs[i].mode, opt = mockserver.ModeTest, e.test()
				}
				return post(path, body, opt)
			})

			start := map[mockserver.Mode]int64{mockserver.ModeLive: tc.live, mockserver.ModeTest: tc.test}
			spent := map[mockserver.Mode]int64{}
			accepted := map[mockserver.Mode][]string{}
			rejected := map[mockserver.Mode]int{}
			cheapestRejected := map[mockserver.Mode]int64{mockserver.ModeLive: math.MaxInt64, mockserver.ModeTest: math.MaxInt64}
			for i, r := range rs {
				j := jobs[i]
				switch r.Status {
				case http.StatusAccepted:
					assert.Equal(t, j.cost, r.kobo("campaign.amount"), "job %d", i)
					spent[j.mode] += r.kobo("campaign.amount")
					accepted[j.mode] = append(accepted[j.mode], r.str("campaign.id"))
				case http.StatusPaymentRequired:
					assert.Equal(t, "insufficient_balance", r.str("error.code"))
					rejected[j.mode]++
					cheapestRejected[j.mode] = min(cheapestRejected[j.mode], j.cost)
				default:
					t.Errorf("job %d: %d %s", i, r.Status, r.Raw)
				}
			}

			for _, mode := range []mockserver.Mode{mockserver.ModeLive, mockserver.ModeTest} {
				opt := e.live()
				if mode == mockserver.ModeTest {
					opt = e.test()
				}
				final := e.balance(mode)
				// Only debits happened, so the balance fell monotonically: final >= 0 means it
				// was never negative.
				assert.GreaterOrEqual(t, final, int64(0), mode)
				assert.Equal(t, start[mode]-spent[mode], final, "%s: start - sum of amounts, to the kobo", mode)
				if rejected[mode] > 0 {
					// At its 402 the wallet held less than that request's cost, and it only fell.
					assert.Less(t, final, cheapestRejected[mode], "%s: a 402 the wallet could have paid", mode)
				}
				if tc.runsOut {
					assert.NotEmpty(t, accepted[mode], mode)
					assert.NotZero(t, rejected[mode], mode)
				} else {
					assert.Zero(t, rejected[mode], mode)
				}

				l := e.do(http.MethodGet, "/v1/sms/campaigns?limit=100", nil, opt).wantStatus(http.StatusOK)
				assert.Equal(t, len(accepted[mode]), l.int("pagination.total"), mode)
				listed := ids(l, "data", "_id")
				assert.ElementsMatch(t, accepted[mode], listed, mode)
				var sum int64
				for i := range listed {
					sum += l.kobo("data." + itoa(i) + ".amount")
				}
				assert.Equal(t, spent[mode], sum, mode)
			}
		})
	}
}

// TestSendAnswersWhileCampaignsSettle: the answer of a send is the campaign as it was
// accepted, whatever happens to the campaign once the store lets go of it. Four clients send
// campaigns of 101 recipients (accepted as processing) in process while four others move the
// clock past the processing delay and list the campaigns, which settles them. Under -race a
// send answer that still reads the stored campaign while a listing settles it is reported.
func TestSendAnswersWhileCampaignsSettle(t *testing.T) {
	t.Parallel()
	e := newInProcessEnv(t, mockserver.WithBalances(mockserver.MaxBalance, mockserver.MaxBalance))
	const senders, listers, rounds = 4, 4, 25
	var wg sync.WaitGroup
	answers := make(chan *resp, senders*rounds)
	for range senders {
		wg.Go(func() {
			for range rounds {
				r, err := e.try(http.MethodPost, "/v1/sms/campaigns", sms(nums(0, 101)))
				if !assert.NoError(t, err) || !assert.Equal(t, http.StatusAccepted, r.Status, "%s", r.Raw) {
					return
				}
				answers <- r
			}
		})
	}
	for range listers {
		wg.Go(func() {
			for range rounds {
				if !assert.NoError(t, e.srv.Advance(2*time.Second)) {
					return
				}
				r, err := e.try(http.MethodGet, "/v1/sms/campaigns?limit=100", nil)
				if !assert.NoError(t, err) || !assert.Equal(t, http.StatusOK, r.Status, "%s", r.Raw) {
					return
				}
			}
		})
	}
	wg.Wait()
	close(answers)
	for r := range answers {
		assert.Equal(t, "processing", r.str("campaign.status"), "a campaign of 101 is accepted as processing: %s", r.Raw)
		assertNull(t, r, "campaign.message_id")
	}
}

// TestNigerianNumberLength: a number starting with 234 is Nigerian and has 10 digits after
// 234 (and its trunk 0); every route that takes a number refuses the others with a 400 that
// names the member and says how many digits it has, and charges and stores nothing.
func TestNigerianNumberLength(t *testing.T) {
	t.Parallel()
	numbers := []struct{ number, has string }{
		{"+234 803 123 456", "9 digits after 234"},
		{"+234 803 123 45678", "11 digits after 234"},
		{"234 0803 123 45678", "11 digits after 234"},
		{"2340803123456", "9 digits after 234"},
	}
	routes := []struct {
		path, field string
		body        func(n string) M
	}{
		{"/v1/sms/send", "to[1]", func(n string) M { return sms([]string{num(1), n}) }},
		{"/v1/sms/campaigns", "to[0].phone", func(n string) M { return sms([]any{M{"phone": n, "name": "Ada"}}) }},
		{"/v1/otp/send", "to", func(n string) M { return otpBody(n) }},
		{"/_mock/dnd", "numbers[0]", func(n string) M { return M{"numbers": []string{n}} }},
	}
	for _, n := range numbers {
		for _, rt := range routes {
			t.Run(rt.path+"/"+n.number, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				before := e.state()
				r := e.do(http.MethodPost, rt.path, rt.body(n.number)).wantError(http.StatusBadRequest, "bad_request")
				assert.Equal(t, rt.field, r.str("error.field"))
				assert.Contains(t, r.str("error.message"), "a Nigerian number has 10")
				assert.Contains(t, r.str("error.message"), n.has)
				assert.Equal(t, before, e.state(), "nothing charged or stored")
			})
		}
	}
}
