package mockserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// parallel runs n requests at once (released together) and returns their responses in order.
func (e *env) parallel(n int, req func(i int) call) []*resp {
	e.t.Helper()
	calls := make([]call, n)
	for i := range calls {
		calls[i] = req(i)
	}
	out := make([]*resp, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			<-start
			c := calls[i]
			out[i], errs[i] = e.try(c.method, c.path, c.body, c.opts...)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		require.NoError(e.t, err, "request %d", i)
	}
	return out
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
				jobs[i] = job{mockserver.Live, int64(rcpt*parts) * price}
				opt := e.live()
				if i%6 == 5 {
					jobs[i].mode, opt = mockserver.Test, e.test()
				}
				return post(path, body, opt)
			})

			start := map[mockserver.Mode]int64{mockserver.Live: tc.live, mockserver.Test: tc.test}
			spent := map[mockserver.Mode]int64{}
			accepted := map[mockserver.Mode][]string{}
			rejected := map[mockserver.Mode]int{}
			cheapestRejected := map[mockserver.Mode]int64{mockserver.Live: math.MaxInt64, mockserver.Test: math.MaxInt64}
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

			for _, mode := range []mockserver.Mode{mockserver.Live, mockserver.Test} {
				opt := e.live()
				if mode == mockserver.Test {
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

// TestConcurrentCampaignsStayFindable: campaigns created at once are all found by id, and the
// list is newest first (same createdAt on the fixed clock: by _id, descending).
func TestConcurrentCampaignsStayFindable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// In process, without sockets, requests reach the workspace's lock closer together.
	e.hc = &http.Client{Transport: e.srv.Transport()}
	const rounds, n = 40, 64
	var created []string
	for round := range rounds {
		for _, r := range e.parallel(n, func(i int) call { return post("/v1/sms/send", sms(num(round*n+i))) }) {
			r.wantStatus(http.StatusAccepted)
			created = append(created, r.str("campaign.id"))
		}
	}
	want := slices.Clone(created)
	slices.Sort(want)
	slices.Reverse(want)
	var listed []string
	for page := 1; page <= rounds*n/100+1; page++ {
		l := e.do(http.MethodGet, "/v1/sms/campaigns?limit=100&page="+itoa(page), nil).wantStatus(http.StatusOK)
		listed = append(listed, ids(l, "data", "_id")...)
	}
	assert.Equal(t, want, listed, "newest first: by _id, descending")
	missing := 0
	for i, id := range created {
		if e.srv.Deliver(id, nil) != nil {
			missing++
		}
		if i%64 == 0 { // over HTTP too, for a sample
			e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
		}
	}
	assert.Zero(t, missing, "campaigns that exist but are not found by id")
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
			assert.Equal(t, int64(mockserver.DefaultBalance-3*2*gp), e.balance(mockserver.Live), "one debit")
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
	assert.Equal(t, int64(mockserver.DefaultBalance-gp), e.balance(mockserver.Live))
	assert.Equal(t, 1, e.campaignTotal())
}

// TestConcurrentOTP: the per-number limit, single use and the attempt limit hold under
// concurrent requests.
func TestConcurrentOTP(t *testing.T) {
	t.Parallel()

	t.Run("five sends per number", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		rs := e.parallel(16, func(int) call { return post("/v1/otp/send", otpBody(num(1))) })
		count := map[int]int{}
		for _, r := range rs {
			count[r.Status]++
		}
		assert.Equal(t, map[int]int{200: 5, 429: 11}, count)
		assert.Equal(t, int64(mockserver.DefaultBalance-5*gp), e.balance(mockserver.Live))
	})

	t.Run("a pin verifies once", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		id, pin := e.otp(otpBody(num(1)))
		rs := e.parallel(16, func(int) call { return post("/v1/otp/verify", M{"pin_id": id, "pin": pin}) })
		count := map[int]int{}
		for _, r := range rs {
			count[r.Status]++
			if r.Status == http.StatusOK {
				assert.True(t, r.bool("data.verified"))
			}
		}
		assert.Equal(t, map[int]int{200: 1, 400: 15}, count)
	})

	t.Run("five wrong pins lock it", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		id, pin := e.otp(otpBody(num(1)))
		rs := e.parallel(16, func(int) call { return post("/v1/otp/verify", M{"pin_id": id, "pin": "x" + pin}) })
		var left []int
		locked := 0
		for _, r := range rs {
			switch r.Status {
			case http.StatusOK:
				assert.False(t, r.bool("data.verified"))
				left = append(left, r.int("data.attemptsRemaining"))
			case http.StatusTooManyRequests:
				locked++
			default:
				t.Errorf("%d %s", r.Status, r.Raw)
			}
		}
		assert.ElementsMatch(t, []int{4, 3, 2, 1, 0}, left)
		assert.Equal(t, 11, locked)
		e.verify(id, pin).wantError(http.StatusTooManyRequests, "rate_limited")
	})
}

// TestConcurrentKeysAndRevocation: keys created at once are all distinct and listed; a key
// revoked while requests run is refused afterwards.
func TestConcurrentKeysAndRevocation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rs := e.parallel(16, func(i int) call {
		return post("/v1/keys", M{"name": "k" + itoa(i), "scopes": M{"balance": true}})
	})
	seen := map[string]bool{}
	for _, r := range rs {
		r.wantStatus(http.StatusCreated)
		assert.False(t, seen[r.str("data.publicKey")])
		seen[r.str("data.publicKey")] = true
	}
	assert.Equal(t, 18, e.do(http.MethodGet, "/v1/keys", nil).wantStatus(200).int("count"))

	pub, sec, id := rs[0].str("data.publicKey"), rs[0].str("data.secret"), rs[0].str("data._id")
	out := e.parallel(17, func(i int) call {
		if i == 8 {
			return call{http.MethodDelete, "/v1/keys/" + id, nil, nil}
		}
		return get("/v1/balance", withKey(pub, sec))
	})
	for i, r := range out {
		if i != 8 {
			assert.Contains(t, []int{200, 401}, r.Status)
		}
	}
	out[8].wantStatus(http.StatusOK)
	e.do(http.MethodGet, "/v1/balance", nil, withKey(pub, sec)).wantError(401, "unauthorized")
}

// TestSendAnswersWhileCampaignsSettle: the answer of a send is the campaign as it was
// accepted, whatever happens to the campaign once the store lets go of it. Four clients send
// campaigns of 101 recipients (accepted as processing) in process while four others move the
// clock past the processing delay and list the campaigns, which settles them. Under -race a
// send answer that still reads the stored campaign while a listing settles it is reported.
func TestSendAnswersWhileCampaignsSettle(t *testing.T) {
	t.Parallel()
	srv := mockserver.New(mockserver.WithBalances(mockserver.MaxBalance, mockserver.MaxBalance))
	ws := srv.Default()
	hc := &http.Client{Transport: srv.Transport()}
	do := func(method, path string, body []byte) (int, []byte) {
		req, err := http.NewRequest(method, "http://mock.invalid"+path, bytes.NewReader(body))
		if err != nil {
			panic(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", ws.LiveKey)
		req.Header.Set("X-API-Secret", ws.LiveSecret)
		resp, err := hc.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			panic(err)
		}
		return resp.StatusCode, b
	}
	body, err := json.Marshal(M{"to": nums(0, 101), "from": mockserver.DefaultSenderID, "message": "hi"})
	require.NoError(t, err)

	const senders, listers, rounds = 4, 4, 25
	var wg sync.WaitGroup
	answers := make(chan []byte, senders*rounds)
	for range senders {
		wg.Go(func() {
			for range rounds {
				status, b := do(http.MethodPost, "/v1/sms/campaigns", body)
				if status != http.StatusAccepted {
					t.Errorf("send: %d %s", status, b)
					return
				}
				answers <- b
			}
		})
	}
	for range listers {
		wg.Go(func() {
			for range rounds {
				if err := srv.Advance(2 * time.Second); err != nil {
					t.Error(err)
					return
				}
				if status, b := do(http.MethodGet, "/v1/sms/campaigns?limit=100", nil); status != http.StatusOK {
					t.Errorf("list: %d %s", status, b)
					return
				}
			}
		})
	}
	wg.Wait()
	close(answers)
	for b := range answers {
		var out struct {
			Campaign struct {
				Status    string  `json:"status"`
				MessageID *string `json:"message_id"`
			} `json:"campaign"`
		}
		require.NoError(t, json.Unmarshal(b, &out), "%s", b)
		assert.Equal(t, "processing", out.Campaign.Status, "a campaign of 101 is accepted as processing: %s", b)
		assert.Nil(t, out.Campaign.MessageID, "%s", b)
	}
}
