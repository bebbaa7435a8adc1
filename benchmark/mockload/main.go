// Command mockload measures the mock binary under two abusive loads, on loopback only, and
// prints what it saw: connections the mock still holds and its resident memory (VmRSS from
// /proc, so Linux only).
//
//	go build -o /tmp/sms-mockserver ./cmd/sms-mockserver
//	go run ./benchmark/mockload -bin /tmp/sms-mockserver -mode slowloris -n 2000 -args '-read-timeout 2s'
//	go run ./benchmark/mockload -bin /tmp/sms-mockserver -mode requestlog -readers 8
//
// slowloris opens n connections that each send the headers of a POST /v1/sms/send and one
// byte of a 100,000-byte body, then stall; it reports, right after and once -wait has passed,
// how many the mock still holds open, its RSS, and whether a fresh request is still answered.
// With -waves, new connections follow while the earlier ones stay open on the client's side.
//
// requestlog fills the request log (1,000 entries, each with -fill-kb of headers; the default
// 60 is close to the mock's 64 KiB header limit), then has -readers clients read GET /_mock/requests at once,
// -rounds times, and reports the peak RSS seen while they read (sampled every 2 ms).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seedsms/sms-go/benchmark/internal/mockproc"
)

func main() {
	bin := flag.String("bin", "", "path of the sms-mockserver binary to measure")
	args := flag.String("args", "", "extra flags for the binary, space separated")
	mode := flag.String("mode", "slowloris", "slowloris or requestlog")
	n := flag.Int("n", 2000, "slowloris: stalled connections (at most 5000)")
	wait := flag.Duration("wait", 4*time.Second, "slowloris: how long to wait before the second look")
	waves := flag.Int("waves", 1, "slowloris: waves of n connections, each after the previous one's wait (at most 3)")
	readers := flag.Int("readers", 8, "requestlog: concurrent readers (at most 64)")
	rounds := flag.Int("rounds", 3, "requestlog: reads per reader")
	fillKB := flag.Int("fill-kb", 60, "requestlog: KB of headers on each logged request (at most 60)")
	flag.Parse()
	if *bin == "" || *n < 1 || *n > 5000 || *waves < 1 || *waves > 3 || *readers < 1 || *readers > 64 || *rounds < 1 || *rounds > 20 || *fillKB < 1 || *fillKB > 60 {
		flag.Usage()
		os.Exit(2)
	}
	m, err := start(*bin, strings.Fields(*args))
	if err != nil {
		fmt.Fprintln(os.Stderr, "mockload:", err)
		os.Exit(1)
	}
	defer m.Stop()
	switch *mode {
	case "slowloris":
		for w := range *waves {
			if err == nil {
				fmt.Printf("wave %d:\n", w+1)
				var release func()
				release, err = slowloris(m, *n, *wait)
				defer release()
			}
		}
	case "requestlog":
		err = requestLog(m, *readers, *rounds, *fillKB)
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mockload:", err)
		os.Exit(1)
	}
}

type mock struct{ *mockproc.Mock }

func start(bin string, extra []string) (*mock, error) {
	m, err := mockproc.Start(bin, append([]string{"-addr", "127.0.0.1:0"}, extra...)...)
	if err != nil {
		return nil, err
	}
	return &mock{m}, nil
}

// rssMB is the mock's resident memory, in MB.
func (m *mock) rssMB() float64 {
	kb, err := m.RSSKB()
	if err != nil {
		return -1
	}
	return float64(kb) / 1024
}

// probe times one GET /v1/balance on a fresh connection.
func (m *mock) probe() string {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequest(http.MethodGet, m.URL+"/v1/balance", nil)
	req.Header.Set("X-API-Key", m.LiveKey)
	req.Header.Set("X-API-Secret", m.LiveSecret)
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return "failed: " + err.Error()
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return fmt.Sprintf("%d in %v", resp.StatusCode, time.Since(t0).Round(time.Millisecond))
}

// slowloris runs one wave; release closes its connections.
func slowloris(m *mock, n int, wait time.Duration) (release func(), err error) {
	fmt.Printf("idle: rss %.1f MB\n", m.rssMB())
	head := "POST /v1/sms/send HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + m.LiveKey +
		"\r\nX-API-Secret: " + m.LiveSecret + "\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
	var open atomic.Int64
	var wg sync.WaitGroup
	conns := make([]net.Conn, 0, n)
	release = func() {
		for _, c := range conns {
			_ = c.Close()
		}
		wg.Wait()
	}
	for i := range n {
		c, err := net.DialTimeout("tcp", m.Addr, 5*time.Second)
		if err != nil {
			return release, fmt.Errorf("connection %d: %w", i, err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, head); err != nil {
			return release, err
		}
		open.Add(1)
		wg.Add(1)
		go func() { // the server closing the connection ends this read
			defer wg.Done()
			_, _ = io.Copy(io.Discard, c)
			open.Add(-1)
		}()
	}
	time.Sleep(500 * time.Millisecond)
	fmt.Printf("%d stalled bodies sent: %d connections held, rss %.1f MB, fresh request: %s\n", n, open.Load(), m.rssMB(), m.probe())
	time.Sleep(wait)
	fmt.Printf("after %v more: %d connections held, rss %.1f MB, fresh request: %s\n", wait, open.Load(), m.rssMB(), m.probe())
	return release, nil
}

func requestLog(m *mock, readers, rounds, fillKB int) error {
	const entries = 1000
	headers := fillKB * 2 / 3 // of 1,500 bytes each
	if headers == 0 {
		headers = 1
	}
	value := strings.Repeat("v", 1500)
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	c := &http.Client{Transport: tr, Timeout: time.Minute}
	for i := range entries {
		req, _ := http.NewRequest(http.MethodGet, m.URL+"/v1/balance?i="+strconv.Itoa(i), nil)
		req.Header.Set("X-API-Key", m.LiveKey)
		req.Header.Set("X-API-Secret", m.LiveSecret)
		for h := range headers {
			req.Header.Set("X-Fill-"+strconv.Itoa(h), value)
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	fmt.Printf("log filled (%d requests, ~%d KB of headers each): rss %.1f MB\n", entries, headers*1500/1000, m.rssMB())

	var peak atomic.Int64 // kB
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			if kb := int64(m.rssMB() * 1024); kb > peak.Load() {
				peak.Store(kb)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	t0 := time.Now()
	var wg sync.WaitGroup
	var bytesRead atomic.Int64
	errs := make(chan error, readers)
	for range readers {
		wg.Go(func() {
			for range rounds {
				resp, err := c.Get(m.URL + "/_mock/requests")
				if err != nil {
					errs <- err
					return
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("GET /_mock/requests: %d", resp.StatusCode)
					return
				}
				bytesRead.Add(n)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	close(errs)
	if err := errors.Join(drain(errs)...); err != nil {
		return err
	}
	fmt.Printf("%d readers x %d reads of GET /_mock/requests (%.1f MB each) in %v: peak rss %.1f MB\n",
		readers, rounds, float64(bytesRead.Load())/float64(readers*rounds)/1e6, time.Since(t0).Round(time.Millisecond), float64(peak.Load())/1024)
	return nil
}

func drain(errs <-chan error) []error {
	var out []error
	for err := range errs {
		out = append(out, err)
	}
	return out
}
