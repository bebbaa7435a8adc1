package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/events"
	"github.com/seedsms/sms-go/mockserver/internal/idem"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"

	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Benchmarks of the mock's hot paths. docs/benchmarks.md has the commands and the figures.
// They live in package mockserver so that large stores can be filled in-process, without a
// million HTTP requests.

// benchServer is a server whose default workspace cannot run out of money, with opts, and
// that workspace's live caller.
func benchServer(tb testing.TB, opts ...Option) (*Server, store.Caller) {
	tb.Helper()
	s, err := New(append([]Option{WithBalances(1<<60, 1<<60)}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := s.api.Store().Workspace(s.Default().WorkspaceID)
	if err != nil {
		tb.Fatal(err)
	}
	return s, c
}

// benchStore is a store of its own whose default workspace cannot run out of money, and that
// workspace's live caller, for measuring memory: its event ring holds one event, so that
// what is measured is what the store keeps.
func benchStore(tb testing.TB) (*store.Store, store.Caller) {
	tb.Helper()
	st, creds := store.New(store.Config{
		GenericPrice: DefaultGenericPrice, DNDPrice: DefaultDNDPrice, LiveBalance: 1 << 60, TestBalance: 1 << 60,
		Country: DefaultCountry, MaxWorkspaces: DefaultMaxWorkspaces, MaxDND: DefaultMaxDND, MaxMessages: DefaultMaxMessages,
		IDs: ids.NewGen(), Events: events.NewBus(1), Watchers: &store.Watchers{},
	}, store.Credentials{}, time.Now().UnixNano())
	c, err := st.Workspace(creds.WorkspaceID)
	if err != nil {
		tb.Fatal(err)
	}
	return st, c
}

// benchFill stores n live campaigns of the given number of distinct recipients each, the way
// a POST /v1/sms/send or /v1/sms/campaigns ends: one store.Send each.
func benchFill(tb testing.TB, st *store.Store, c store.Caller, n, recipients int) {
	tb.Helper()
	now := time.Now()
	next := uint64(2348000000000)
	for range n {
		targets := make([]store.Target, recipients)
		for j := range targets {
			targets[j] = store.Target{Phone: next, Index: j}
			next++
		}
		if _, err := st.Send(c, store.SendParams{From: DefaultSenderID, Message: benchTemplate, Targets: targets}, now); err != nil {
			tb.Fatal(err)
		}
	}
}

// benchTemplate is the message of benchFill's campaigns. One string shared by all of them, so
// the memory measured is the campaigns', not the bytes of their text.
const benchTemplate = "Your order has shipped."

// benchGet is a GET with the default workspace's live key.
func benchGet(s *Server, target string) *http.Request {
	ws := s.Default()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("X-API-Key", ws.LiveKey)
	req.Header.Set("X-API-Secret", ws.LiveSecret)
	return req
}

// benchServe runs one request through the whole handler stack and checks its status.
func benchServe(b *testing.B, h http.Handler, req *http.Request, want int) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s %s: %d %s", req.Method, req.URL, rec.Code, rec.Body)
	}
	return rec
}

// benchListLoop is the loop of BenchmarkListCampaigns/stack on s.
func benchListLoop(b *testing.B, s *Server) {
	h, req := s.Handler(), benchGet(s, "/v1/sms/campaigns?limit=20")
	b.ReportAllocs()
	for b.Loop() {
		benchServe(b, h, req, http.StatusOK)
	}
}

// BenchmarkListCampaigns is GET /v1/sms/campaigns?limit=20 through the whole stack (request
// ID, request log, routing, authentication, store, JSON), against a baseline handler that
// does only the JSON work of the same response; and over a million campaigns, the first page
// against page 50,000, which must cost the same.
func BenchmarkListCampaigns(b *testing.B) {
	b.Run("stack", func(b *testing.B) {
		s, c := benchServer(b)
		benchFill(b, s.api.Store(), c, 1000, 1)
		benchListLoop(b, s)
	})

	b.Run("baseline", func(b *testing.B) {
		s, c := benchServer(b)
		benchFill(b, s.api.Store(), c, 1000, 1)
		// The same 20 campaigns in the same shape, read back from the stack's answer, the same
		// pagination and a request ID of the same length: the baseline marshals exactly the
		// bytes the stack writes.
		var body struct {
			Data []struct {
				ID             string      `json:"_id"`
				SenderID       string      `json:"senderId"`
				RecipientCount int         `json:"recipientCount"`
				Amount         json.Number `json:"amount"`
				Status         string      `json:"status"`
				Currency       string      `json:"currency"`
				Channel        string      `json:"channel"`
				SMSParts       int         `json:"smsParts"`
				MessageID      *string     `json:"messageId"`
				Reference      *string     `json:"reference"`
				CreatedAt      string      `json:"createdAt"`
			} `json:"data"`
			Pagination wire.Pagination `json:"pagination"`
			RequestID  string          `json:"requestId"`
		}
		stack := benchServe(b, s.Handler(), benchGet(s, "/v1/sms/campaigns?limit=20"), http.StatusOK).Body.Bytes()
		if err := json.Unmarshal(stack, &body); err != nil || len(body.Data) != 20 {
			b.Fatalf("the stack's answer: %v, %d campaigns", err, len(body.Data))
		}
		body.RequestID = ids.NewGen().Next().RequestID()
		baseline := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(body); err != nil {
				panic(err)
			}
		})
		req := httptest.NewRequest(http.MethodGet, "/v1/sms/campaigns?limit=20", nil)
		want := benchServe(b, s.Handler(), benchGet(s, "/v1/sms/campaigns?limit=20"), http.StatusOK).Body.Len()
		if got := benchServe(b, baseline, req, http.StatusOK).Body.Len(); got != want {
			b.Fatalf("the baseline writes %d bytes, the stack %d: not the same response", got, want)
		}
		b.ReportAllocs()
		for b.Loop() {
			benchServe(b, baseline, req, http.StatusOK)
		}
	})

	b.Run("1M", func(b *testing.B) {
		if testing.Short() {
			b.Skip("a million campaigns: not with -short")
		}
		s, c := benchServer(b)
		benchFill(b, s.api.Store(), c, 1_000_000, 1)
		h := s.Handler()
		for _, page := range []int{1, 50_000} {
			b.Run("page="+strconv.Itoa(page), func(b *testing.B) {
				req := benchGet(s, "/v1/sms/campaigns?limit=20&page="+strconv.Itoa(page))
				if n := bytes.Count(benchServe(b, h, req, http.StatusOK).Body.Bytes(), []byte(`"_id"`)); n != 20 {
					b.Fatalf("page %d holds %d campaigns, want 20", page, n)
				}
				b.ReportAllocs()
				for b.Loop() {
					benchServe(b, h, req, http.StatusOK)
				}
			})
		}
		runtime.KeepAlive(s)
	})
}

// BenchmarkSend is POST /v1/sms/send to one recipient through the whole stack.
func BenchmarkSend(b *testing.B) {
	s, _ := benchServer(b)
	benchSends(b, s)
}

// benchSends is the loop of BenchmarkSend on s.
func benchSends(b *testing.B, s *Server) {
	h, next := s.Handler(), benchSendRequest(s)
	b.ReportAllocs()
	for b.Loop() {
		benchServe(b, h, next(), http.StatusAccepted)
	}
}

// BenchmarkAutoDelivery is the list and send paths of BenchmarkListCampaigns/stack and
// BenchmarkSend with automatic delivery off and at the binary's default delay on the real
// clock: what a request pays for automatic delivery. The listed campaigns are delivered
// before the loop, as in a mock whose sends were long ago; the sends fall due while it runs.
func BenchmarkAutoDelivery(b *testing.B) {
	for _, d := range []time.Duration{0, DefaultDeliveryDelay} {
		delay := "delay=off"
		if d > 0 {
			delay = "delay=" + d.String()
		}
		b.Run("list/"+delay, func(b *testing.B) {
			s, c := benchServer(b, WithAutoDelivery(d))
			benchFill(b, s.api.Store(), c, 1000, 1)
			s.DeliverAll()
			benchListLoop(b, s)
		})
		b.Run("send/"+delay, func(b *testing.B) {
			s, _ := benchServer(b, WithAutoDelivery(d))
			defer s.api.StopDelivery()
			benchSends(b, s)
		})
	}
}

// BenchmarkAutoDeliveryPaired is BenchmarkAutoDelivery with both servers in one loop: each
// iteration serves one request on the server with automatic delivery off and one on the
// server at the binary's default delay, each first in turn, and reports their times and the
// ratio off/on (1: the same speed), so that a burst of load falls on both alike. send-queued
// is send with a delay of an hour on the second server: each send is queued, and nothing falls
// due while the benchmark runs.
func BenchmarkAutoDeliveryPaired(b *testing.B) {
	for _, route := range []string{"list", "send", "send-queued"} {
		b.Run(route, func(b *testing.B) {
			var servers [2]*Server // off, on
			var reqs [2]func() *http.Request
			on := DefaultDeliveryDelay
			if route == "send-queued" {
				on = time.Hour
			}
			for k, d := range []time.Duration{0, on} {
				s, c := benchServer(b, WithAutoDelivery(d))
				b.Cleanup(s.api.StopDelivery)
				servers[k] = s
				if route == "list" {
					benchFill(b, s.api.Store(), c, 1000, 1)
					s.DeliverAll()
					req := benchGet(s, "/v1/sms/campaigns?limit=20")
					reqs[k] = func() *http.Request { return req }
					continue
				}
				reqs[k] = benchSendRequest(s)
			}
			want := http.StatusOK
			if route != "list" {
				want = http.StatusAccepted
			}
			ns := benchPaired(b, servers, reqs, want)
			b.ReportMetric(float64(ns[0])/float64(b.N)/1e3, "off-µs/req")
			b.ReportMetric(float64(ns[1])/float64(b.N)/1e3, "on-µs/req")
			b.ReportMetric(float64(ns[0])/float64(ns[1]), "off/on")
		})
	}
}

// BenchmarkBalancePendingPaired is GET /v1/balance on a server whose 10,000 other workspaces
// each hold a campaign pending for MagicSlow's 10 minutes, and on one whose 10,000 workspaces
// hold none, both at the binary's default delay: one request on each per iteration, each
// first in turn, and the ratio pending/none of their speeds (1: the same).
func BenchmarkBalancePendingPaired(b *testing.B) {
	const n = 10_000
	var servers [2]*Server // pending, none
	for k := range servers {
		s, _ := benchServer(b, WithAutoDelivery(DefaultDeliveryDelay), WithWorkspaceLimit(n+1))
		b.Cleanup(s.api.StopDelivery)
		st := s.api.Store()
		for range n {
			creds, err := st.NewWorkspace(store.WorkspaceParams{}, s.Now().UnixNano())
			if err != nil {
				b.Fatal(err)
			}
			if k == 1 {
				continue
			}
			c, err := st.Workspace(creds.WorkspaceID)
			if err != nil {
				b.Fatal(err)
			}
			slow, _ := store.ParsePhone("to", MagicSlow)
			if _, err := st.Send(c, store.SendParams{From: DefaultSenderID, Message: benchTemplate, Targets: []store.Target{{Phone: slow}}}, s.Now()); err != nil {
				b.Fatal(err)
			}
		}
		// Past the delay: each campaign's first pass is settled, MagicSlow waits its 10 minutes.
		if _, more := st.Settle(s.Now().Add(DefaultDeliveryDelay).UnixNano()); more != (k == 0) {
			b.Fatalf("server %d: campaigns waiting: %v", k, more)
		}
		servers[k] = s
	}
	pending, none := benchGet(servers[0], "/v1/balance"), benchGet(servers[1], "/v1/balance")
	ns := benchPaired(b, servers, [2]func() *http.Request{func() *http.Request { return pending }, func() *http.Request { return none }}, http.StatusOK)
	b.ReportMetric(float64(ns[0])/float64(b.N)/1e3, "pending-µs/req")
	b.ReportMetric(float64(ns[1])/float64(b.N)/1e3, "none-µs/req")
	b.ReportMetric(float64(ns[1])/float64(ns[0]), "pending/none")
}

// benchPaired serves one request on each server per iteration, each first in turn, and
// returns the time each took in all.
func benchPaired(b *testing.B, servers [2]*Server, reqs [2]func() *http.Request, want int) [2]int64 {
	var ns [2]int64
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		for j := range 2 {
			k := (i + j) % 2
			req := reqs[k]()
			start := time.Now()
			benchServe(b, servers[k].Handler(), req, want)
			ns[k] += time.Since(start).Nanoseconds()
		}
	}
	return ns
}

// benchSendRequest returns a function that readies BenchmarkSend's request to s again, with
// its body to read.
func benchSendRequest(s *Server) func() *http.Request {
	ws := s.Default()
	body := []byte(`{"to":"2348025671695","from":"MOCKSMS","message":"Your order 42 has shipped."}`)
	rd := bytes.NewReader(body)
	req := httptest.NewRequest(http.MethodPost, "/v1/sms/send", nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", ws.LiveKey)
	req.Header.Set("X-API-Secret", ws.LiveSecret)
	req.ContentLength = int64(len(body))
	return func() *http.Request {
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		return req
	}
}

// BenchmarkCampaignMemory measures the heap a stored campaign keeps: n campaigns of one
// recipient, then n of 100, each in a fresh server, live heap after a GC before and after.
// It reports B/campaign (one recipient), B/campaign-100 and B/recipient, the cost of each
// recipient past the first, and objects/campaign, the heap objects a campaign of one adds
// (each one more for the collector to mark). ns/op is the time of one whole measurement.
func BenchmarkCampaignMemory(b *testing.B) {
	const n = 10_000
	measure := func(recipients int) (bytes, objects float64) {
		st, c := benchStore(b)
		before, beforeObjects := liveHeapObjects()
		benchFill(b, st, c, n, recipients)
		after, afterObjects := liveHeapObjects()
		runtime.KeepAlive(st)
		return float64(after-before) / n, float64(afterObjects-beforeObjects) / n
	}
	var one, hundred, objects float64
	runs := 0
	for b.Loop() {
		bytes, o := measure(1)
		one, objects = one+bytes, objects+o
		bytes, _ = measure(100)
		hundred += bytes
		runs++
	}
	one, hundred = one/float64(runs), hundred/float64(runs)
	b.ReportMetric(objects/float64(runs), "objects/campaign")
	b.ReportMetric(one, "B/campaign")
	b.ReportMetric(hundred, "B/campaign-100")
	b.ReportMetric((hundred-one)/99, "B/recipient")
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	b, _ := liveHeapObjects()
	return b
}

// liveHeapObjects is the heap in use after a full collection, and the objects in it.
func liveHeapObjects() (bytes, objects uint64) {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, m.HeapObjects
}

// BenchmarkIdempotencyMemory measures the heap one remembered reference keeps besides the
// answer it replays (all entries share one answer here): 100,000 answered references of 36
// characters in one workspace, live heap after a GC before and after. ns/op is the time of one
// whole measurement.
func BenchmarkIdempotencyMemory(b *testing.B) {
	const n = 100_000
	answer := []byte(`{"message":"SMS request accepted."}`)
	var total float64
	runs := 0
	for b.Loop() {
		m := idem.New(n)
		before := liveHeap()
		for i := range n {
			ref := fmt.Sprintf("order-%030d", i)
			e, _, _ := m.Begin(ids.ID{1}, idem.NewKey(0, ref), [32]byte{}, int64(i))
			m.Finish(ids.ID{1}, e, http.StatusAccepted, answer, int64(i))
		}
		after := liveHeap()
		runtime.KeepAlive(m)
		total += float64(after-before) / n
		runs++
	}
	b.ReportMetric(total/float64(runs), "B/reference")
}

// benchPost is a POST of body with the default workspace's live key.
func benchPost(s *Server, target string, body []byte) *http.Request {
	ws := s.Default()
	req := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", ws.LiveKey)
	req.Header.Set("X-API-Secret", ws.LiveSecret)
	return req
}

// BenchmarkCampaign10k is POST /v1/sms/campaigns with 10,000 distinct plain numbers and a new
// reference each time (as the SDK sends it) through the whole stack: the body is decoded,
// fingerprinted, priced and stored. ns/recipient is ns/op / 10,000.
func BenchmarkCampaign10k(b *testing.B) {
	const n = 10_000
	s, _ := benchServer(b)
	h := s.Handler()
	var to bytes.Buffer
	for i := range n {
		if i > 0 {
			to.WriteByte(',')
		}
		to.WriteString(`"23480` + fmt.Sprintf("%08d", i) + `"`)
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		body := []byte(`{"to":[` + to.String() + `],"from":"MOCKSMS","message":"Your order has shipped.","reference":"ref-` + strconv.Itoa(i) + `"}`)
		benchServe(b, h, benchPost(s, "/v1/sms/campaigns", body), http.StatusAccepted)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/recipient")
}

// BenchmarkCampaign10kConcurrent is a bulk job through the whole stack, beside
// BenchmarkCampaign10k's batches one after another: 32 batches of 10,000 distinct numbers
// (320,000 recipients, the same numbers in every job) POSTed to /v1/sms/campaigns from
// concurrency goroutines at once, each with a new reference. Sent at once, batches are
// accepted in one order and finish in another. Meanwhile one more goroutine sends
// POST /v1/sms/send to one recipient, then sleeps a millisecond, again and again. It reports
// the process's CPU time per job (cpu-ms/op: the mock's work, the bodies being built before
// the clock starts, the single sends included), the median time of a batch's request
// (ms-batch-p50), and the median and worst time of the single sends (ms-send-p50,
// ms-send-max).
func BenchmarkCampaign10kConcurrent(b *testing.B) {
	const batches, n = 32, 10_000
	var to [batches]string
	for k := range to {
		var sb strings.Builder
		for i := range n {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `"2348%09d"`, k*n+i)
		}
		to[k] = sb.String()
	}
	for _, concurrency := range []int{1, 8, 16} {
		b.Run("concurrency="+strconv.Itoa(concurrency), func(b *testing.B) {
			s, _ := benchServer(b)
			h := s.Handler()
			job := 0
			var cpu time.Duration
			var batchTimes, sendTimes []time.Duration
			for b.Loop() {
				b.StopTimer()
				job++
				reqs := make(chan *http.Request, batches)
				for k := range to {
					body := `{"to":[` + to[k] + `],"from":"MOCKSMS","message":"Your order has shipped.","reference":"job-` +
						strconv.Itoa(job) + `-` + strconv.Itoa(k) + `"}`
					reqs <- benchPost(s, "/v1/sms/campaigns", []byte(body))
				}
				close(reqs)
				runtime.GC()
				before := processCPU()
				b.StartTimer()
				var mu sync.Mutex
				var wg sync.WaitGroup
				for range concurrency {
					wg.Go(func() {
						for req := range reqs {
							start := time.Now()
							rec := httptest.NewRecorder()
							h.ServeHTTP(rec, req)
							d := time.Since(start)
							if rec.Code != http.StatusAccepted {
								panic(rec.Body.String())
							}
							mu.Lock()
							batchTimes = append(batchTimes, d)
							mu.Unlock()
						}
					})
				}
				stop := make(chan struct{})
				sent := make(chan []time.Duration)
				go func() {
					var times []time.Duration
					for i := 0; ; i++ {
						select {
						case <-stop:
							sent <- times
							return
						default:
						}
						body := `{"to":"` + strconv.Itoa(2347100000000+i%1000) + `","from":"MOCKSMS","message":"Your code is 1234."}`
						req := benchPost(s, "/v1/sms/send", []byte(body))
						start := time.Now()
						rec := httptest.NewRecorder()
						h.ServeHTTP(rec, req)
						times = append(times, time.Since(start))
						if rec.Code != http.StatusAccepted {
							panic(rec.Body.String())
						}
						time.Sleep(time.Millisecond)
					}
				}()
				wg.Wait()
				close(stop)
				sendTimes = append(sendTimes, <-sent...)
				b.StopTimer()
				cpu += processCPU() - before
				b.StartTimer()
			}
			slices.Sort(batchTimes)
			slices.Sort(sendTimes)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(cpu)/float64(b.N), "cpu-ms/op")
			b.ReportMetric(ms(batchTimes[len(batchTimes)/2]), "ms-batch-p50")
			if len(sendTimes) > 0 {
				b.ReportMetric(ms(sendTimes[len(sendTimes)/2]), "ms-send-p50")
				b.ReportMetric(ms(sendTimes[len(sendTimes)-1]), "ms-send-max")
			}
		})
	}
}

// processCPU is the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMessageMemory measures what the inbox keeps: n campaigns of 100 recipients with a
// personal template and an 8-byte name each, and n OTPs, in fresh stores, live heap after a
// GC before and after. It reports B/message (campaign and names included, the template
// shared), B/message-no-name (the same campaigns with no names) and B/otp (an OTP's message,
// its text and pin included, plus its pin record; not its entry in the latest pins of
// /_mock/otps/latest, measured apart with the same numbers and taken off).
func BenchmarkMessageMemory(b *testing.B) {
	const n, per = 1000, 100
	campaigns := func(names bool) float64 {
		st, c := benchStore(b)
		now := time.Now()
		before := liveHeap()
		next := uint64(2348000000000)
		for range n {
			targets := make([]store.Target, per)
			for j := range targets {
				targets[j] = store.Target{Phone: next, Index: j}
				if names {
					targets[j].Name = fmt.Sprintf("N%07d", j)
				}
				next++
			}
			if _, err := st.Send(c, store.SendParams{From: DefaultSenderID, Message: "Hi {{name}}, your order has shipped.",
				Personalize: names, Targets: targets}, now); err != nil {
				b.Fatal(err)
			}
		}
		after := liveHeap()
		q, err := store.NewQuery(store.Filter{To: "2348000000007"})
		if err != nil {
			b.Fatal(err)
		}
		if _, got := st.Messages(q, 0, 10); got != 1 {
			b.Fatalf("%d messages to one number, want 1", got)
		}
		runtime.KeepAlive(st)
		return float64(after-before) / (n * per)
	}
	otps := func() float64 {
		st, c := benchStore(b)
		start := time.Now()
		before := liveHeap()
		for i := range n {
			now := start.Add(time.Duration(i) * time.Millisecond) // all within the records' 2-hour retention
			if _, err := st.SendOTP(c, store.OTPParams{From: DefaultSenderID, Phone: uint64(2348000000000 + i),
				Text: "Your code is <>", Placeholder: "<>", Alphabet: "0123456789", Length: 6, TTL: time.Minute}, now); err != nil {
				b.Fatal(err)
			}
		}
		after := liveHeap()
		runtime.KeepAlive(st)
		// The latest pins of the same numbers, pin IDs and pins, alone.
		var pins store.LatestPins
		pinsBefore := liveHeap()
		for i := range n {
			pins.Deliver(strconv.Itoa(2348000000000+i), ids.UUID(), "123456", start.UnixNano())
		}
		pinsAfter := liveHeap()
		runtime.KeepAlive(&pins)
		return (float64(after-before) - float64(pinsAfter-pinsBefore)) / n
	}
	var named, plain, otp float64
	runs := 0
	for b.Loop() {
		named += campaigns(true)
		plain += campaigns(false)
		otp += otps()
		runs++
	}
	b.ReportMetric(named/float64(runs), "B/message")
	b.ReportMetric(plain/float64(runs), "B/message-no-name")
	b.ReportMetric(otp/float64(runs), "B/otp")
}

// BenchmarkMessagesQuery is GET /_mock/messages?to= over 100,000 kept messages (1,000
// campaigns of 100): the whole store is scanned, the matches sorted and one page rendered.
func BenchmarkMessagesQuery(b *testing.B) {
	s, c := benchServer(b)
	benchFill(b, s.api.Store(), c, 1000, 100)
	h := s.Handler()
	req := httptest.NewRequest(http.MethodGet, "/_mock/messages?to=2348000012345", nil)
	if n := bytes.Count(benchServe(b, h, req, http.StatusOK).Body.Bytes(), []byte(`"text"`)); n != 1 {
		b.Fatalf("%d messages, want 1", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		benchServe(b, h, req, http.StatusOK)
	}
}

// BenchmarkSendReference is POST /v1/sms/send to one recipient with a new reference on every
// request, as the SDK sends it, through the whole stack, once the workspace remembers 1,000
// and then 300,000 references: the cost of a send must not grow with the references stored.
func BenchmarkSendReference(b *testing.B) {
	for _, stored := range []int{1_000, 300_000} {
		b.Run("stored="+strconv.Itoa(stored), func(b *testing.B) {
			if testing.Short() && stored > 1_000 {
				b.Skip("300,000 references: not with -short")
			}
			s, err := New(WithBalances(1<<60, 1<<60), WithIdempotencyLimit(1_000_000))
			if err != nil {
				b.Fatal(err)
			}
			h := s.Handler()
			body := func(ref string) []byte {
				return []byte(`{"to":"2348025671695","from":"MOCKSMS","message":"Your order 42 has shipped.","reference":"` + ref + `"}`)
			}
			for i := range stored {
				benchServe(b, h, benchPost(s, "/v1/sms/send", body("fill-"+strconv.Itoa(i))), http.StatusAccepted)
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				i++
				benchServe(b, h, benchPost(s, "/v1/sms/send", body("ref-"+strconv.Itoa(i))), http.StatusAccepted)
			}
		})
	}
}

// BenchmarkLoopbackPaired compares the mock with a bare net/http handler over loopback TCP,
// request by request: each iteration makes one request to each server (each first in turn)
// through its own keep-alive client, timing each, so that load that comes and goes on a
// shared machine hits both alike. The bare server answers with the bytes the mock gave for
// the same request and the mock's headers, after reading the request body. It reports
// mock-ns/req, bare-ns/req and bare/mock, the mock's speed as a fraction of the bare
// handler's (client time included on both sides). Sends carry a new reference each time.
func BenchmarkLoopbackPaired(b *testing.B) {
	for _, route := range []string{"list", "send"} {
		b.Run(route, func(b *testing.B) {
			s, c := benchServer(b)
			if route == "list" {
				benchFill(b, s.api.Store(), c, 1000, 1)
			}
			require := func(err error) {
				if err != nil {
					b.Fatal(err)
				}
			}
			require(s.Start())
			b.Cleanup(func() { _ = s.Close() })
			ws := s.Default()
			n := 0
			newReq := func(base string) *http.Request {
				var req *http.Request
				var err error
				if route == "list" {
					req, err = http.NewRequest(http.MethodGet, base+"/v1/sms/campaigns?limit=20", nil)
				} else {
					n++
					req, err = http.NewRequest(http.MethodPost, base+"/v1/sms/send", strings.NewReader(
						`{"to":"2348025671695","from":"MOCKSMS","message":"Your order 42 has shipped.","reference":"ref-`+strconv.Itoa(n)+`"}`))
					req.Header.Set("Content-Type", "application/json")
				}
				require(err)
				req.Header.Set("X-API-Key", ws.LiveKey)
				req.Header.Set("X-API-Secret", ws.LiveSecret)
				return req
			}
			mockClient := &http.Client{Transport: &http.Transport{}}
			bareClient := &http.Client{Transport: &http.Transport{}}
			do := func(c *http.Client, req *http.Request) (int, []byte) {
				resp, err := c.Do(req)
				require(err)
				body, err := io.ReadAll(resp.Body)
				require(err)
				require(resp.Body.Close())
				return resp.StatusCode, body
			}
			status, canned := do(mockClient, newReq(s.URL()))
			if status/100 != 2 {
				b.Fatalf("%d %s", status, canned)
			}
			requestID := "req-" + strings.Repeat("0", 24)
			bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("X-Request-Id", requestID)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = w.Write(canned)
			}))
			b.Cleanup(bare.Close)
			var mockNs, bareNs int64
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				i++
				for k := range 2 {
					onMock := (i+k)%2 == 0
					c, base := bareClient, bare.URL
					if onMock {
						c, base = mockClient, s.URL()
					}
					req := newReq(base)
					start := time.Now()
					if got, body := do(c, req); got != status {
						b.Fatalf("%d %s", got, body)
					}
					if d := time.Since(start).Nanoseconds(); onMock {
						mockNs += d
					} else {
						bareNs += d
					}
				}
			}
			b.ReportMetric(float64(mockNs)/float64(b.N), "mock-ns/req")
			b.ReportMetric(float64(bareNs)/float64(b.N), "bare-ns/req")
			b.ReportMetric(float64(bareNs)/float64(mockNs), "bare/mock")
		})
	}
}
