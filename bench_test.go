package sms_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/internal/sdktest"
	"github.com/seedsms/sms-go/mockserver"
)

// Benchmarks of the SDK's request path, against plain net/http + encoding/json doing the same
// request, and of the Campaigns.All iterator over large lists. docs/benchmarks.md has the
// commands and the figures. They only run under -bench.

// benchMock returns a mock whose wallets cannot run out, holding n campaigns of the default
// workspace's test key, sent through its in-process transport from GOMAXPROCS goroutines.
// With refs, every send carries a reference, as the SDK's sends always do; without, the
// mock keeps no idempotency entries, which keeps a store of 100,000 campaigns lean.
func benchMock(n int, refs bool) (*mockserver.Server, error) {
	srv, err := mockserver.New(mockserver.WithBalances(1<<50, 1<<50))
	if err != nil {
		return nil, err
	}
	ws := srv.Default()
	hc := &http.Client{Transport: srv.Transport()}
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				if err := benchSend(hc, ws, i, refs); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return srv, nil
}

// benchSend sends send number i: one SMS to one number, which is one campaign.
func benchSend(hc *http.Client, ws mockserver.Workspace, i int64, ref bool) error {
	body := `{"to":"234803` + fmt.Sprintf("%07d", i%10_000_000) + `","from":"` + ws.SenderID +
		`","message":"Your order has shipped."`
	if ref {
		body += `,"reference":"bench-` + strconv.FormatInt(i, 10) + `"`
	}
	req, err := http.NewRequest(http.MethodPost, inProcessBase+"/v1/sms/send", bytes.NewReader([]byte(body+"}")))
	if err != nil {
		return err
	}
	req.Header.Set("X-API-Key", ws.TestKey)
	req.Header.Set("X-API-Secret", ws.TestSecret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("send %d: status %d: %s", i, resp.StatusCode, b)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// warmRequestLog fills the mock's request log (the newest 1,000 requests) with GETs of page
// size limit, so that it holds entries of the same size before and during a measurement. The
// pages asked for are past the end of the list, which makes them cheap.
func warmRequestLog(b *testing.B, c *sms.Client, limit int) {
	b.Helper()
	for i := range 1000 {
		p := &sms.ListCampaignsParams{Page: 10_000 + i, Limit: limit}
		if _, err := c.Campaigns.List(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
}

// rawCampaign and rawPage are what a hand-written client decodes GET /v1/sms/campaigns into:
// the same members, with exact money (sms.Amount) and RFC 3339 times.
type rawCampaign struct {
	ID             string     `json:"_id"`
	SenderID       string     `json:"senderId"`
	RecipientCount int        `json:"recipientCount"`
	Amount         sms.Amount `json:"amount"`
	Status         string     `json:"status"`
	Currency       string     `json:"currency"`
	Channel        string     `json:"channel"`
	SMSParts       int        `json:"smsParts"`
	MessageID      string     `json:"messageId"`
	Reference      string     `json:"reference"`
	CreatedAt      time.Time  `json:"createdAt"`
}

type rawPage struct {
	Data       []rawCampaign `json:"data"`
	Pagination struct {
		Page  int `json:"page"`
		Limit int `json:"limit"`
		Total int `json:"total"`
	} `json:"pagination"`
}

// rawLister is the hand-written client: plain net/http and encoding/json, with the headers the
// SDK sends.
type rawLister struct {
	hc                          *http.Client
	url, key, secret, userAgent string
}

func newRawLister(srv *mockserver.Server, base string, hc *http.Client) *rawLister {
	ws := srv.Default()
	return &rawLister{
		hc: hc, url: base + "/v1/sms/campaigns?limit=20", key: ws.TestKey, secret: ws.TestSecret,
		userAgent: "sms-go/" + sms.Version(),
	}
}

func (r *rawLister) list(ctx context.Context) (*rawPage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-API-Key", r.key)
	req.Header.Set("X-API-Secret", r.secret)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", r.userAgent)
	resp, err := r.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /v1/sms/campaigns: status %d", resp.StatusCode)
	}
	var page rawPage
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		return nil, err
	}
	// Read to the end, so that the connection is reused.
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return nil, err
	}
	return &page, nil
}

// canned answers every request with the same 200 response, from memory: what is left of a
// request is the client's own work.
type canned struct{ body []byte }

func (c canned) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: -1, // as the mock sends it: no Content-Length
		Request:       req,
	}, nil
}

// recordPage returns the body the mock answers r's request with.
func recordPage(b *testing.B, srv *mockserver.Server, r *rawLister) []byte {
	b.Helper()
	req, err := http.NewRequest(http.MethodGet, r.url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("X-API-Key", r.key)
	req.Header.Set("X-API-Secret", r.secret)
	resp, err := srv.Transport().RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("recording a page: %d %v", resp.StatusCode, err)
	}
	return body
}

// listStoreSize is the number of campaigns BenchmarkCampaignsList lists the newest 20 of.
const listStoreSize = 1000

// BenchmarkCampaignsList compares Campaigns.List (20 per page) with the same request made with
// net/http and encoding/json: in-process (sdk, raw: the mock's Transport, no sockets), against
// a transport that answers with a recorded page (sdk-canned, raw-canned), which leaves only
// the client's work, and over loopback TCP (sdk-loopback, raw-loopback).
//
// The paired variants alternate one SDK call and one raw call, each first in turn, and report
// the time of each (sdk-ns/call, raw-ns/call) and their ratio (sdk/raw): drift in the load of
// a shared machine then hits both sides alike, which separate runs cannot promise. Their
// ns/op, B/op and allocs/op are those of the pair.
func BenchmarkCampaignsList(b *testing.B) {
	srv, err := benchMock(listStoreSize, true)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	params := &sms.ListCampaignsParams{Limit: 20}
	viaSDK := func(b *testing.B, c *sms.Client) {
		page, err := c.Campaigns.List(ctx, params)
		if err != nil {
			b.Fatal(err)
		}
		if len(page.Items) != 20 {
			b.Fatalf("got %d campaigns, want 20", len(page.Items))
		}
	}
	viaRaw := func(b *testing.B, r *rawLister) {
		page, err := r.list(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(page.Data) != 20 {
			b.Fatalf("got %d campaigns, want 20", len(page.Data))
		}
	}
	sdk := func(c *sms.Client) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				viaSDK(b, c)
			}
		}
	}
	raw := func(r *rawLister) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				viaRaw(b, r)
			}
		}
	}
	paired := func(c *sms.Client, r *rawLister) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			var inSDK, inRaw time.Duration
			sdkFirst := false
			for b.Loop() {
				sdkFirst = !sdkFirst
				for turn := range 2 {
					start := time.Now()
					if (turn == 0) == sdkFirst {
						viaSDK(b, c)
						inSDK += time.Since(start)
					} else {
						viaRaw(b, r)
						inRaw += time.Since(start)
					}
				}
			}
			b.ReportMetric(float64(inSDK.Nanoseconds())/float64(b.N), "sdk-ns/call")
			b.ReportMetric(float64(inRaw.Nanoseconds())/float64(b.N), "raw-ns/call")
			b.ReportMetric(float64(inSDK)/float64(inRaw), "sdk/raw")
		}
	}

	inProcess := &http.Client{Transport: srv.Transport()}
	client := sdktest.BenchClient(b, srv, inProcessBase, inProcess)
	rawClient := newRawLister(srv, inProcessBase, inProcess)
	warmRequestLog(b, client, 20)
	checkSameList(b, ctx, client, rawClient)
	b.Run("sdk", sdk(client))
	b.Run("raw", raw(rawClient))
	b.Run("paired", paired(client, rawClient))

	recorded := &http.Client{Transport: canned{recordPage(b, srv, rawClient)}}
	client = sdktest.BenchClient(b, srv, inProcessBase, recorded)
	rawClient = newRawLister(srv, inProcessBase, recorded)
	b.Run("sdk-canned", sdk(client))
	b.Run("raw-canned", raw(rawClient))
	b.Run("paired-canned", paired(client, rawClient))

	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	// Each side has its own connection pool, closed when the benchmark ends.
	loopback := func() *http.Client {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		b.Cleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr}
	}
	client = sdktest.BenchClient(b, srv, srv.URL(), loopback())
	rawClient = newRawLister(srv, srv.URL(), loopback())
	b.Run("sdk-loopback", sdk(client))
	b.Run("raw-loopback", raw(rawClient))
	b.Run("paired-loopback", paired(client, rawClient))
}

// checkSameList checks that the SDK and the hand-written client read the same page.
func checkSameList(b *testing.B, ctx context.Context, c *sms.Client, r *rawLister) {
	b.Helper()
	page, err := c.Campaigns.List(ctx, &sms.ListCampaignsParams{Limit: 20})
	if err != nil {
		b.Fatal(err)
	}
	rp, err := r.list(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if len(page.Items) != len(rp.Data) || page.Total != rp.Pagination.Total || page.Total != listStoreSize {
		b.Fatalf("sdk: %d of %d, raw: %d of %d", len(page.Items), page.Total, len(rp.Data), rp.Pagination.Total)
	}
	for i, w := range rp.Data {
		c := page.Items[i]
		if c.ID != w.ID || c.Amount == nil || *c.Amount != w.Amount || !c.CreatedAt.Equal(w.CreatedAt) || c.Reference != w.Reference ||
			c.MessageID != w.MessageID || string(c.Status) != w.Status || string(c.Channel) != w.Channel {
			b.Fatalf("campaign %d: sdk %+v, raw %+v", i, c, w)
		}
	}
}

// allTotals are the list sizes BenchmarkCampaignsAll iterates over.
var allTotals = []int{10_000, 50_000, 100_000}

// allMocks fills one mock per total, once per process, on first use.
var allMocks = func() map[int]func() (*mockserver.Server, error) {
	m := make(map[int]func() (*mockserver.Server, error), len(allTotals))
	for _, n := range allTotals {
		m[n] = sync.OnceValues(func() (*mockserver.Server, error) { return benchMock(n, false) })
	}
	return m
}()

// maxHeapSamples bounds the forced collections of one peak measurement.
const maxHeapSamples = 100

// sampling samples the live heap right after every every-th response, while the SDK holds
// that response's body and the previous page's keys.
type sampling struct {
	rt    http.RoundTripper
	every int
	n     int
	h     *sdktest.HeapPeak
}

func (s *sampling) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.rt.RoundTrip(req)
	if s.n++; s.n%s.every == 0 {
		s.h.Sample()
	}
	return resp, err
}

// peakPass iterates Campaigns.All over the total once, sampling the live heap, and returns the
// most it grew over the live heap right before. A pass during which the runtime started an OS
// thread is made again (up to twice): each thread adds a few KB of runtime structures to the
// heap for good, at a random moment, and they are not the iteration's.
func peakPass(b *testing.B, srv *mockserver.Server, total, limit int) uint64 {
	b.Helper()
	threads := pprof.Lookup("threadcreate")
	every := max(1, total/limit/maxHeapSamples)
	for attempt := 1; ; attempt++ {
		h := &sdktest.HeapPeak{}
		client := sdktest.BenchClient(b, srv, inProcessBase,
			&http.Client{Transport: &sampling{rt: srv.Transport(), every: every, h: h}})
		started := threads.Count()
		h.Base = sdktest.LiveHeap()
		h.Peak = h.Base
		n := 0
		for _, err := range client.Campaigns.All(context.Background(), nil) {
			if err != nil {
				b.Fatal(err)
			}
			if n++; n%(limit*every) == 0 {
				h.Sample()
			}
		}
		if n != total {
			b.Fatalf("iterated %d campaigns, want %d", n, total)
		}
		if threads.Count() == started || attempt == 3 {
			return h.Peak - h.Base
		}
	}
}

// BenchmarkCampaignsAll iterates Campaigns.All (100 per page) over 10,000, 50,000 and 100,000
// campaigns in-process. ns/op, B/op and allocs/op are per full iteration (the mock's handler
// included); ns/campaign is ns/op over the total. peak-MB is the most live heap the iteration
// added to the live heap right before it (which holds the mocks' stores): sampled with forced
// collections right after responses (the raw page in hand) and at the end of pages (the
// decoded page, its keys and the previous page's), on up to 100 pages spread over the list,
// in an untimed pass before the timed loop. It stays flat as the total grows: one page is held
// at a time. The moment inside json.Unmarshal when both the raw and the decoded page are live
// is not sampled; it holds about twice as much, also per page.
func BenchmarkCampaignsAll(b *testing.B) {
	for _, total := range allTotals {
		b.Run("campaigns="+strconv.Itoa(total), func(b *testing.B) {
			srv, err := allMocks[total]()
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			inProcess := &http.Client{Transport: srv.Transport()}
			client := sdktest.BenchClient(b, srv, inProcessBase, inProcess)
			const limit = 100 // All's default
			warmRequestLog(b, client, limit)
			b.ReportAllocs()

			// The peak pass: untimed, as b.Loop resets the timer on its first call.
			peak := peakPass(b, srv, total, limit)

			for b.Loop() {
				n := 0
				for _, err := range client.Campaigns.All(ctx, nil) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != total {
					b.Fatalf("iterated %d campaigns, want %d", n, total)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(total), "ns/campaign")
			b.ReportMetric(float64(peak)/1e6, "peak-MB") // benchstat reads MB as 10^6 bytes
		})
	}
}
