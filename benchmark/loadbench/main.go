// Command loadbench compares the mock's hot paths over loopback with a bare net/http handler
// that writes the same bytes, using wrk. It starts the sms-mockserver binary given by -mock,
// fills it, starts a bare server (itself, re-run with -serve-bare) that answers every request
// with the body the mock gave for the same request, then runs wrk against each in turn,
// -rounds times, and prints each run's requests per second, the medians, their ratio and the
// mock's resident memory. Only loopback addresses are used.
//
// Usage (from the module root):
//
//	go build -o /tmp/sms-mockserver ./cmd/sms-mockserver
//	go run ./benchmark/loadbench -mock /tmp/sms-mockserver -route list -rounds 5 -d 5s
//	go run ./benchmark/loadbench -mock /tmp/sms-mockserver -route send -rounds 5 -d 5s
//	go run ./benchmark/loadbench -mock /tmp/sms-mockserver -route rss -sends 100000
//	go run ./benchmark/loadbench -mock /tmp/sms-mockserver -route list -mock-args '-profile documented'
//	go run ./benchmark/loadbench -mock /tmp/sms-mockserver -route list -also-args '-delivery-delay off'
//	go run ./benchmark/loadbench -mock /tmp/sms-mockserver -route send -also-mock /tmp/sms-mockserver-before
//	go run ./benchmark/loadbench -mock /tmp/sms-mockserver -route balance -workspaces 10000 -rounds 5 -d 5s
//
// -also-args runs a second mock with more flags in the same rounds, each against the bare
// handler; -also-mock runs that second mock from another binary (an earlier build), with
// -mock-args and -also-args. -route balance compares two mocks instead of the mock with a bare handler: each holds
// -workspaces more workspaces, with one send each to MagicSlow (still pending, due 10 minutes
// later) in the first and none in the other, and wrk reads GET /v1/balance of each in turn.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seedsms/sms-go/benchmark/internal/mockproc"
)

const sendBody = `{"to":"2348025671695","from":"MOCKSMS","message":"Your order 42 has shipped.","reference":"%s"}`

func main() {
	mock := flag.String("mock", "", "path of the sms-mockserver binary")
	route := flag.String("route", "list", "list, send, rss or balance")
	rounds := flag.Int("rounds", 5, "wrk runs against each server")
	dur := flag.Duration("d", 5*time.Second, "duration of one wrk run")
	threads := flag.Int("t", 2, "wrk threads")
	conns := flag.Int("c", 8, "wrk connections")
	sends := flag.Int("sends", 100_000, "sends with references for -route rss")
	workspaces := flag.Int("workspaces", 10_000, "workspaces with a send each for -route balance")
	bare := flag.String("serve-bare", "", "internal: serve this file's bytes on this address (addr=file)")
	bareLength := flag.Bool("bare-length", false, "the bare handler declares Content-Length, as the mock does (without it, a body over 2 KiB goes out chunked)")
	mockArgs := flag.String("mock-args", "", "more flags for the mock, separated by spaces")
	alsoArgs := flag.String("also-args", "", "run a second mock with these flags too (after -mock-args), in the same rounds")
	settle := flag.Duration("cpu-settle", 1500*time.Millisecond, "CPU time is counted until this long after each run (the delivery a run leaves due)")
	alsoMock := flag.String("also-mock", "", "run the second mock from this binary (with -mock-args and -also-args)")
	flag.Parse()
	if *bare != "" {
		serveBare(*bare, *bareLength)
		return
	}
	if *mock == "" {
		log.Fatal("-mock is required")
	}
	if *route == "balance" {
		balance(*mock, strings.Fields(*mockArgs), *workspaces, *rounds, *threads, *conns, *dur)
		return
	}
	c := startMock(*mock, strings.Fields(*mockArgs))
	defer c.Stop()
	pid := c.Cmd.Process.Pid
	fmt.Printf("mock idle: RSS %.1f MB\n", rssMB(pid))
	switch *route {
	case "rss":
		fillSends(c, *sends)
		fmt.Printf("mock after %d sends with references: RSS %.1f MB\n", *sends, rssMB(pid))
		return
	case "list":
		fillSends(c, 1000)
	}
	target, body := capture(c, *route)
	f, err := os.CreateTemp("", "loadbench-*.json")
	check(err)
	defer func() { _ = os.Remove(f.Name()) }()
	_, err = f.Write(body)
	check(err)
	check(f.Close())
	bareAddr, err := mockproc.FreeAddr()
	check(err)
	self, err := os.Executable()
	check(err)
	bp := exec.Command(self, "-serve-bare", bareAddr+"="+f.Name(), "-bare-length="+strconv.FormatBool(*bareLength))
	bp.Stderr = os.Stderr
	check(bp.Start())
	defer func() { _ = bp.Process.Kill(); _, _ = bp.Process.Wait() }()
	check(mockproc.WaitListening(bareAddr))
	script := luaScript(c, *route)
	defer func() { _ = os.Remove(script) }()

	sides := []side{{"mock", c.URL, script, pid}, {"bare", "http://" + bareAddr, script, bp.Process.Pid}}
	if *alsoArgs != "" || *alsoMock != "" {
		// A second mock, with more flags or of another build, filled the same way, measured in
		// the same rounds.
		bin, name := *mock, "mock["+*alsoArgs+"]"
		if *alsoMock != "" {
			bin, name = *alsoMock, "also["+filepath.Base(*alsoMock)+" "+*alsoArgs+"]"
		}
		c2 := startMock(bin, append(strings.Fields(*mockArgs), strings.Fields(*alsoArgs)...))
		defer c2.Stop()
		if *route == "list" {
			fillSends(c2, 1000)
		}
		script2 := luaScript(c2, *route)
		defer func() { _ = os.Remove(script2) }()
		sides = append(sides, side{name, c2.URL, script2, c2.Cmd.Process.Pid})
	}
	rps := make([][]float64, len(sides))
	cpu := make([][]float64, len(sides)) // µs of the server's CPU a request
	var counting sync.WaitGroup
	for i := range *rounds {
		// Rotate which goes first, so that a burst of other load lands on every side.
		for k := range sides {
			j := (i + k) % len(sides)
			before := cpuTime(sides[j].pid)
			r, n := runWrk(*threads, *conns, *dur, sides[j].script, sides[j].base+target, fmt.Sprintf("%s%d", sides[j].name[:4], i))
			rps[j] = append(rps[j], r)
			cpu[j] = append(cpu[j], 0)
			counting.Add(1)
			go func(j, i int) {
				// The work a run leaves due (automatic delivery) is the run's too.
				defer counting.Done()
				time.Sleep(*settle)
				cpu[j][i] = float64((cpuTime(sides[j].pid) - before).Microseconds()) / float64(n)
			}(j, i)
		}
		counting.Wait()
		line := fmt.Sprintf("round %d:", i+1)
		for j, sd := range sides {
			line += fmt.Sprintf(" %s %.0f req/s", sd.name, rps[j][i])
			if sd.name != "bare" {
				line += fmt.Sprintf(" (%.3f of bare)", rps[j][i]/rps[1][i])
			}
			line += fmt.Sprintf(" %.1f µs CPU/req;", cpu[j][i])
		}
		fmt.Println(strings.TrimSuffix(line, ";"))
	}
	for j, sd := range sides {
		if sd.name == "bare" {
			continue
		}
		ratios := make([]float64, len(rps[j]))
		for i := range ratios {
			ratios[i] = rps[j][i] / rps[1][i]
		}
		fmt.Printf("median: %s %.0f req/s, bare %.0f req/s, ratio of medians %.3f, median of ratios %.3f %s\n",
			sd.name, median(rps[j]), median(rps[1]), median(rps[j])/median(rps[1]), median(ratios), spread(ratios))
		fmt.Printf("median CPU a request: %s %.1f µs, bare %.1f µs, bare/%s %.3f\n",
			sd.name, median(cpu[j]), median(cpu[1]), sd.name, median(cpu[1])/median(cpu[j]))
	}
	if len(sides) == 3 {
		// The two mocks round by round: a burst of load falls on both of one round alike.
		perRound := make([]float64, *rounds)
		for i := range perRound {
			perRound[i] = cpu[2][i] / cpu[0][i]
		}
		fmt.Printf("median of the rounds' CPU a request, %s/%s: %.3f %s\n", sides[2].name, sides[0].name, median(perRound), spread(perRound))
	}
	fmt.Printf("mock after the runs: RSS %.1f MB\n", rssMB(pid))
}

// side is one server wrk runs against, and its process.
type side struct {
	name, base, script string
	pid                int
}

// cpuTime is the CPU time process pid has used so far.
func cpuTime(pid int) time.Duration {
	d, err := mockproc.CPUTime(pid)
	check(err)
	return d
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// spread says how far the median of v can be trusted: a 95% confidence interval for it, from
// v's order statistics (no assumption about v's distribution), or with fewer than 6 values,
// where no such interval exists, v's range.
func spread(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return ""
	}
	k := medianCIRank(len(s))
	if k == 0 {
		return fmt.Sprintf("(range %.3f to %.3f, n=%d)", s[0], s[len(s)-1], len(s))
	}
	return fmt.Sprintf("(95%% CI %.3f to %.3f, n=%d)", s[k-1], s[len(s)-k], len(s))
}

// medianCIRank is the largest k such that the k-th smallest and the k-th largest of n values
// bound their median with at least 95% confidence: P(Binomial(n, 1/2) < k) <= 2.5%. It is 0
// when n is too small for any.
func medianCIRank(n int) int {
	k, cdf, term := 0, 0.0, math.Pow(0.5, float64(n)) // term: P(X = i), from i = 0
	for i := 0; i < n; i++ {
		cdf += term
		if cdf > 0.025 {
			break
		}
		k = i + 1
		term = term * float64(n-i) / float64(i+1)
	}
	return k
}

// startMock runs the mock with a wallet that cannot run out.
func startMock(path string, args []string) *mockproc.Mock {
	addr, err := mockproc.FreeAddr()
	check(err)
	m, err := mockproc.Start(path, append([]string{"-addr", addr, "-live-balance", "1000000000000.00"}, args...)...)
	check(err)
	return m
}

func request(c *mockproc.Mock, method, target, body string) (*http.Response, []byte) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.URL+target, rd)
	check(err)
	req.Header.Set("X-API-Key", c.LiveKey)
	req.Header.Set("X-API-Secret", c.LiveSecret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	check(err)
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	check(err)
	return resp, b
}

// fillSends makes n sends with a reference each, from 8 goroutines.
func fillSends(c *mockproc.Mock, n int) {
	fill(n, func(i int) {
		resp, b := request(c, http.MethodPost, "/v1/sms/send", fmt.Sprintf(sendBody, "fill-"+strconv.Itoa(i)))
		if resp.StatusCode != http.StatusAccepted {
			log.Fatalf("fill: %d %s", resp.StatusCode, b)
		}
	})
}

// fill calls do(0) to do(n-1) from 8 goroutines.
func fill(n int, do func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				do(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// capture returns the route's target and the body the mock answers it with.
func capture(c *mockproc.Mock, route string) (string, []byte) {
	switch route {
	case "list":
		const target = "/v1/sms/campaigns?limit=20"
		resp, b := request(c, http.MethodGet, target, "")
		if resp.StatusCode != http.StatusOK || bytes.Count(b, []byte(`"_id"`)) != 20 {
			log.Fatalf("list: %d %s", resp.StatusCode, b)
		}
		return target, b
	case "send":
		resp, b := request(c, http.MethodPost, "/v1/sms/send", fmt.Sprintf(sendBody, "capture"))
		if resp.StatusCode != http.StatusAccepted {
			log.Fatalf("send: %d %s", resp.StatusCode, b)
		}
		return "/v1/sms/send", b
	}
	log.Fatalf("unknown route %q", route)
	return "", nil
}

// serveBare answers every request with the file's bytes and the mock's headers, after
// reading the request body.
func serveBare(spec string, declareLength bool) {
	addr, file, _ := strings.Cut(spec, "=")
	body, err := os.ReadFile(file)
	check(err)
	status := http.StatusOK
	if bytes.HasPrefix(body, []byte(`{"message":"SMS request accepted."`)) {
		status = http.StatusAccepted
	}
	requestID := "req-" + strings.Repeat("0", 24)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("X-Request-Id", requestID)
		w.Header().Set("Content-Type", "application/json")
		if declareLength {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
	hs := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// luaScript writes the wrk script: the key pair on every request and, for sends, a body with
// a reference unique across threads and runs (the run's name comes as wrk's argument).
func luaScript(c *mockproc.Mock, route string) string {
	s := fmt.Sprintf(`wrk.headers["X-API-Key"] = %q
wrk.headers["X-API-Secret"] = %q
`, c.LiveKey, c.LiveSecret)
	if route == "send" {
		s += `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
function init(args)
  run = args[1]
  n = 0
end
function request()
  n = n + 1
  return wrk.format(nil, nil, nil, string.format('` + sendBody + `', run .. "-" .. tid .. "-" .. n))
end
`
	}
	f, err := os.CreateTemp("", "loadbench-*.lua")
	check(err)
	_, err = f.WriteString(s)
	check(err)
	check(f.Close())
	return f.Name()
}

var (
	rpsLine   = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	countLine = regexp.MustCompile(`([0-9]+) requests in `)
)

func runWrk(threads, conns int, d time.Duration, script, url, run string) (rps float64, requests int) {
	out, err := exec.Command("wrk", "-t"+strconv.Itoa(threads), "-c"+strconv.Itoa(conns),
		"-d"+strconv.Itoa(int(d.Seconds()))+"s", "-s", script, url, "--", run).CombinedOutput()
	if err != nil {
		log.Fatalf("wrk: %v\n%s", err, out)
	}
	if bytes.Contains(out, []byte("Non-2xx")) {
		log.Fatalf("wrk saw errors:\n%s", out)
	}
	m := rpsLine.FindSubmatch(out)
	if m == nil {
		log.Fatalf("wrk: no Requests/sec in\n%s", out)
	}
	rps, err = strconv.ParseFloat(string(m[1]), 64)
	check(err)
	n := countLine.FindSubmatch(out)
	if n == nil {
		log.Fatalf("wrk: no request count in\n%s", out)
	}
	requests, err = strconv.Atoi(string(n[1]))
	check(err)
	return rps, requests
}

// rssMB is the process's resident memory from /proc, in MB (10^6 bytes).
func rssMB(pid int) float64 {
	kb, err := mockproc.RSSKB(pid)
	check(err)
	return float64(kb) * 1024 / 1e6
}

// balance runs -route balance: GET /v1/balance on a mock whose other workspaces each hold a
// campaign still pending against one whose workspaces have none.
func balance(path string, args []string, n, rounds, threads, conns int, d time.Duration) {
	args = append(args, "-workspace-limit", strconv.Itoa(n+1))
	pending, none := startMock(path, args), startMock(path, args)
	defer pending.Stop()
	defer none.Stop()
	start := time.Now()
	fillWorkspaces(pending, n, "2347000000005") // MagicSlow: delivered 10 minutes after its send
	fillWorkspaces(none, n, "")
	fmt.Printf("filled %d workspaces in each in %v\n", n, time.Since(start).Round(time.Second))
	scripts := map[*mockproc.Mock]string{pending: luaScript(pending, "balance"), none: luaScript(none, "balance")}
	for _, s := range scripts {
		defer func() { _ = os.Remove(s) }()
	}
	var pRPS, nRPS, ratios []float64
	for i := range rounds {
		order := []*mockproc.Mock{pending, none}
		if i%2 == 1 {
			order = []*mockproc.Mock{none, pending}
		}
		rps := map[*mockproc.Mock]float64{}
		for _, m := range order {
			rps[m], _ = runWrk(threads, conns, d, scripts[m], m.URL+"/v1/balance", "balance")
		}
		p, o := rps[pending], rps[none]
		pRPS, nRPS, ratios = append(pRPS, p), append(nRPS, o), append(ratios, p/o)
		fmt.Printf("round %d: pending %.0f req/s, none %.0f req/s, pending/none %.3f\n", i+1, p, o, p/o)
	}
	if time.Since(start) > 10*time.Minute {
		log.Print("warning: the runs took longer than MagicSlow's 10 minutes: the last ones had nothing pending")
	}
	fmt.Printf("median: pending %.0f req/s, none %.0f req/s, ratio of medians %.3f, median of ratios %.3f\n",
		median(pRPS), median(nRPS), median(pRPS)/median(nRPS), median(ratios))
}

// fillWorkspaces makes n workspaces and one send from each to the number to (none when to is
// empty), from 8 goroutines.
func fillWorkspaces(c *mockproc.Mock, n int, to string) {
	fill(n, func(int) {
		resp, b := request(c, http.MethodPost, "/_mock/workspaces", "")
		if resp.StatusCode != http.StatusCreated {
			log.Fatalf("workspace: %d %s", resp.StatusCode, b)
		}
		if to == "" {
			return
		}
		var ws mockproc.Mock
		check(json.Unmarshal(b, &ws))
		ws.URL = c.URL
		resp, b = request(&ws, http.MethodPost, "/v1/sms/send", `{"to":"`+to+`","from":"MOCKSMS","message":"Your order 42 has shipped."}`)
		if resp.StatusCode != http.StatusAccepted {
			log.Fatalf("send: %d %s", resp.StatusCode, b)
		}
	})
}
