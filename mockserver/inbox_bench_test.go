package mockserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// The inbox's reads over large stores: docs/benchmarks.md has the commands and the figures.

// inboxServers holds the filled servers of BenchmarkInboxFirstPage by size, filled once per
// run of the test binary: filling a million messages takes seconds.
var inboxServers sync.Map // int -> *Server

// inboxServer is a server holding n messages: n one-recipient sends, each to a number of its
// own (so n conversations), filled through the store.
func inboxServer(b *testing.B, n int) *Server {
	if s, ok := inboxServers.Load(n); ok {
		return s.(*Server)
	}
	s, c := benchServer(b)
	benchFill(b, s.api.Store(), c, n, 1)
	runtime.GC() // the fill's garbage is not the reads'
	inboxServers.Store(n, s)
	return s
}

// BenchmarkInboxFirstPage is the first page of GET /_mock/messages and /_mock/conversations,
// through the whole handler, over a store of 1,000 and of 1,000,000 messages (one-recipient
// sends, each to its own number): unfiltered, and by workspace as the inbox page asks; and a
// page of conversations deep in the list (offset 989,900: past the end at 1,000).
func BenchmarkInboxFirstPage(b *testing.B) {
	for _, n := range []int{1000, 1_000_000} {
		for _, target := range []string{"messages?limit=1", "conversations?limit=1", "conversations?limit=50&workspaceId=", "messages?limit=50&workspaceId=", "conversations?limit=100&page=9900"} {
			name := strings.ReplaceAll(strings.TrimSuffix(target, "&workspaceId="), "?", "/") + map[bool]string{true: "&ws", false: ""}[strings.HasSuffix(target, "=")]
			b.Run(name+"/stored="+strconv.Itoa(n), func(b *testing.B) {
				if n > 1000 && testing.Short() {
					b.Skip("a million messages: not with -short")
				}
				s := inboxServer(b, n)
				if strings.HasSuffix(target, "=") {
					target += s.Default().WorkspaceID
				}
				h, req := s.Handler(), httptest.NewRequest(http.MethodGet, "/_mock/"+target, nil)
				rec := benchServe(b, h, req, http.StatusOK)
				if !bytes.Contains(rec.Body.Bytes(), []byte(`"total":`+strconv.Itoa(n)+`}`)) {
					b.Fatalf("%s: %s", target, rec.Body)
				}
				b.ReportAllocs()
				for b.Loop() {
					benchServe(b, h, req, http.StatusOK)
				}
			})
		}
	}
}

// rss is the process's resident memory, in bytes (Linux), or 0.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// BenchmarkInboxReaders is POST /v1/sms/send to one recipient, a send about every
// millisecond, while 32 clients read over loopback HTTP, on a store of 1,000,000 messages (as
// BenchmarkInboxFirstPage's). One op is one whole measurement of two phases of 10 s each,
// each started from the same resident memory (debug.FreeOSMemory): first the baseline, the
// 32 clients reading GET /v1/balance (the same connections and handlers, and garbage enough to
// move the heap towards its collection goal), then the 32 clients reading the inbox. It
// reports, for the inbox phase, the send's median, 99th percentile and worst time
// (ms-send-p50, -p99, -max; ms-send-max-base: the worst of the baseline), how far the
// process's peak RSS (sampled every 5 ms) rose above the baseline's peak (MB-rss-growth) and
// the peak live heap (after each collection) above the store's (MB-live-growth), and the
// reads answered and refused (reads, 429s). Readers:
//
//   - index: messages?limit=1 and conversations?limit=1, by turns;
//   - search: messages?contains=... (a text no message holds) and conversations?to=..., each
//     a scan of the store; past the 2 that run at once they wait for a turn, in the order they
//     came, 16 at most; past those, 429 (the client waits 10 ms);
//   - longpoll: messages?contains=...&wait=1s, each first scan waiting for a turn in the
//     same queue as search's (429 past 16 waiting), then waiting for a message.
func BenchmarkInboxReaders(b *testing.B) {
	if testing.Short() {
		b.Skip("a million messages: not with -short")
	}
	const readers, span = 32, 10 * time.Second
	targets := map[string][]string{
		"index":    {"/_mock/messages?limit=1", "/_mock/conversations?limit=1"},
		"search":   {"/_mock/messages?limit=1&contains=no+such+text", "/_mock/conversations?limit=1&to=2349999999999"},
		"longpoll": {"/_mock/messages?limit=1&contains=no+such+text&wait=1s"},
	}
	for _, kind := range []string{"index", "search", "longpoll"} {
		b.Run(kind, func(b *testing.B) {
			s, c := benchServer(b)
			benchFill(b, s.api.Store(), c, 1_000_000, 1)
			srv := httptest.NewServer(s.Handler())
			defer srv.Close()
			ws := s.Default()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: readers + 1}}
			get := func(ctx context.Context, path string) int {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
				req.Header.Set("X-API-Key", ws.LiveKey)
				req.Header.Set("X-API-Secret", ws.LiveSecret)
				resp, err := client.Do(req)
				if err != nil {
					return 0
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				return resp.StatusCode
			}
			i := 0
			send := func() time.Duration {
				body := `{"to":"` + strconv.Itoa(2347100000000+i) + `","from":"MOCKSMS","message":"Your order 42 has shipped."}`
				i++
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/sms/send", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-API-Key", ws.LiveKey)
				req.Header.Set("X-API-Secret", ws.LiveSecret)
				start := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				d := time.Since(start)
				if resp.StatusCode != http.StatusAccepted {
					b.Fatalf("send: %d", resp.StatusCode)
				}
				time.Sleep(time.Millisecond)
				return d
			}
			type result struct {
				times             []time.Duration // of the sends, sorted
				peakRSS, peakLive int64
				reads, refused    int64
			}
			// phase has the readers read list for span while sends go on.
			phase := func(list []string) result {
				debug.FreeOSMemory()
				ctx, cancel := context.WithCancel(context.Background())
				var wg sync.WaitGroup
				var r result
				var reads, refused, peakRSS, peakLive atomic.Int64
				wg.Go(func() {
					sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
					t := time.NewTicker(5 * time.Millisecond)
					defer t.Stop()
					for ctx.Err() == nil {
						if v := rss(); v > peakRSS.Load() {
							peakRSS.Store(v)
						}
						metrics.Read(sample)
						if v := int64(sample[0].Value.Uint64()); v > peakLive.Load() {
							peakLive.Store(v)
						}
						<-t.C
					}
				})
				for k := range readers {
					wg.Go(func() {
						for n := 0; ctx.Err() == nil; n++ {
							switch code := get(ctx, list[(k+n)%len(list)]); {
							case ctx.Err() != nil:
							case code == http.StatusOK:
								reads.Add(1)
							case code == http.StatusTooManyRequests:
								refused.Add(1)
								time.Sleep(10 * time.Millisecond)
							default:
								panic(code)
							}
						}
					})
				}
				for end := time.Now().Add(span); time.Now().Before(end); {
					r.times = append(r.times, send())
				}
				cancel()
				wg.Wait()
				slices.Sort(r.times)
				r.peakRSS, r.peakLive, r.reads, r.refused = peakRSS.Load(), peakLive.Load(), reads.Load(), refused.Load()
				return r
			}
			var base, inbox result
			var live int64
			for b.Loop() {
				runtime.GC()
				sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
				metrics.Read(sample)
				live = int64(sample[0].Value.Uint64())
				base = phase([]string{"/v1/balance"})
				inbox = phase(targets[kind])
			}
			at := func(q float64) float64 { return float64(inbox.times[int(q*float64(len(inbox.times)-1))]) / 1e6 }
			b.ReportMetric(at(0.5), "ms-send-p50")
			b.ReportMetric(at(0.99), "ms-send-p99")
			b.ReportMetric(at(1), "ms-send-max")
			b.ReportMetric(float64(base.times[len(base.times)-1])/1e6, "ms-send-max-base")
			b.ReportMetric(float64(inbox.peakRSS-base.peakRSS)/(1<<20), "MB-rss-growth")
			b.ReportMetric(float64(inbox.peakLive-live)/(1<<20), "MB-live-growth")
			b.ReportMetric(float64(inbox.reads), "reads")
			b.ReportMetric(float64(inbox.refused), "429s")
		})
	}
}

// BenchmarkDeleteWorkspace is what forgetting a workspace costs over a store of 1,000 and of
// 500,000 messages (one-recipient sends of the default workspace, each to its own number):
//
//   - empty: an op makes a workspace and deletes it (Server.NewWorkspace, DeleteWorkspace);
//   - sends: an op is one send of the default workspace (one recipient, through the store)
//     while two goroutines loop making a workspace, sending one message from it to a number
//     the default workspace also has, and deleting it, as parallel test files sharing one
//     mock do; it reports the sends' median (ms-send-p50) and the deletions a second.
func BenchmarkDeleteWorkspace(b *testing.B) {
	for _, n := range []int{1000, 500_000} {
		b.Run("empty/stored="+strconv.Itoa(n), func(b *testing.B) {
			if n > 1000 && testing.Short() {
				b.Skip("half a million messages: not with -short")
			}
			s := inboxServer(b, n)
			b.ReportAllocs()
			for b.Loop() {
				ws, err := s.NewWorkspace(WorkspaceParams{})
				if err != nil {
					b.Fatal(err)
				}
				if err := s.DeleteWorkspace(ws.WorkspaceID); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("sends/stored="+strconv.Itoa(n), func(b *testing.B) {
			if n > 1000 && testing.Short() {
				b.Skip("half a million messages: not with -short")
			}
			s := inboxServer(b, n)
			st := s.api.Store()
			def, err := st.Workspace(s.Default().WorkspaceID)
			if err != nil {
				b.Fatal(err)
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var deleted atomic.Int64
			for range 2 {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						ws, err := s.NewWorkspace(WorkspaceParams{})
						if err != nil {
							b.Error(err)
							return
						}
						c, err := st.Workspace(ws.WorkspaceID)
						if err != nil {
							b.Error(err)
							return
						}
						if _, err := st.Send(c, store.SendParams{From: DefaultSenderID, Message: benchTemplate, Targets: []store.Target{{Phone: 2348000000000}}}, time.Now()); err != nil {
							b.Error(err)
							return
						}
						if err := s.DeleteWorkspace(ws.WorkspaceID); err != nil {
							b.Error(err)
							return
						}
						deleted.Add(1)
					}
				})
			}
			targets := []store.Target{{Phone: 2349000000000}}
			var took []time.Duration
			start := time.Now()
			for b.Loop() {
				t0 := time.Now()
				if _, err := st.Send(def, store.SendParams{From: DefaultSenderID, Message: benchTemplate, Targets: targets}, time.Now()); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t0))
			}
			close(stop)
			wg.Wait()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1e6, "ms-send-p50")
			b.ReportMetric(float64(deleted.Load())/time.Since(start).Seconds(), "deletes/s")
		})
	}
}
