package inbox_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// The page in a real browser: Debian's chromium, headless, driven by chromedp. In CI (CI set)
// a missing browser fails the test; elsewhere it is skipped. INBOX_SCREENSHOT=path also saves
// a screenshot of the page at the end.

// browser starts one headless chromium for the test and returns its tab.
func startBrowser(t *testing.T, width, height int) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("chromium is not installed; CI installs it (.ci/run) for the browser tests: %v", err)
		}
		t.Skip("chromium is not installed; apt-get install chromium to run the browser tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Headless,
		chromedp.WindowSize(width, height), chromedp.Flag("lang", "en-GB"))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	ctx, cancel := context.WithTimeout(ctx, 300*time.Second)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Run(ctx), "starting chromium")
	return ctx
}

// slack stretches every deadline of within: they are upper bounds that only a broken page
// reaches, and CI runs this test beside every other package under -race on two cores, where a
// click that takes 50 ms alone can take seconds.
const slack = 8

// within runs actions with a deadline of d (times slack).
func within(ctx context.Context, d time.Duration, actions ...chromedp.Action) error {
	ctx, cancel := context.WithTimeout(ctx, d*slack)
	defer cancel()
	return chromedp.Run(ctx, actions...)
}

func count(ctx context.Context, t *testing.T, selector string) int {
	t.Helper()
	var n int
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll(`+strconv.Quote(selector)+`).length`, &n)))
	return n
}

func text(ctx context.Context, t *testing.T, selector string) string {
	t.Helper()
	var s string
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`(document.querySelector(`+strconv.Quote(selector)+`) || {}).textContent || ''`, &s)))
	return s
}

// nextFrames waits until the page has drawn two frames: what a fetch that has been answered
// makes the page do has been done by then.
func nextFrames() chromedp.Action {
	return chromedp.Evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))))`, nil,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })
}

// click clicks the element selector finds, in one step in the page: the page redraws lists
// on events, so a node looked up first may be gone by the time a separate click comes.
func click(selector string) chromedp.Action {
	return chromedp.Poll(`(() => { const e = document.querySelector(`+strconv.Quote(selector)+`); if (!e || e.disabled) return false; e.click(); return true })()`, nil)
}

// textIs waits until the element selector finds has the text want.
func textIs(selector, want string) chromedp.Action {
	return chromedp.Poll(`(document.querySelector(`+strconv.Quote(selector)+`) || {}).textContent === `+strconv.Quote(want), nil)
}

// textHas waits until the element selector finds contains want.
func textHas(selector, want string) chromedp.Action {
	return chromedp.Poll(`((document.querySelector(`+strconv.Quote(selector)+`) || {}).textContent || '').includes(`+strconv.Quote(want)+`)`, nil)
}

// countIs waits until selector finds n elements.
func countIs(selector string, n int) chromedp.Action {
	return chromedp.Poll(`document.querySelectorAll(`+strconv.Quote(selector)+`).length === `+strconv.Itoa(n), nil)
}

// typeSearch replaces what the search box holds and lets the page read the server.
func typeSearch(s string) chromedp.Action {
	return chromedp.Evaluate(`(() => { const e = document.querySelector('#search'); e.value = `+strconv.Quote(s)+`; e.dispatchEvent(new Event('input')); })()`, nil)
}

// setValue sets a form control's value.
func setValue(selector, v string) chromedp.Action {
	return chromedp.Evaluate(`document.querySelector(`+strconv.Quote(selector)+`).value = `+strconv.Quote(v), nil)
}

// front is the mock behind a wrapper that counts what the page reads and can answer a route in
// the mock's place: a route the mock does not have yet, or an older mock without one.
type front struct {
	inner         http.Handler
	conversations atomic.Int64 // GET /_mock/conversations without a to filter: whole reads of the list
	listing       atomic.Int64 // such reads not answered yet
	faultReads    atomic.Int64 // GET /_mock/faults answered

	mu       sync.Mutex
	override map[string]http.HandlerFunc // by "METHOD /path prefix"
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/_mock/conversations" && r.URL.Query().Get("to") == "" {
		f.conversations.Add(1)
		f.listing.Add(1)
		defer f.listing.Add(-1)
	}
	if r.Method == http.MethodGet && r.URL.Path == "/_mock/faults" {
		defer f.faultReads.Add(1)
	}
	f.mu.Lock()
	var h http.HandlerFunc
	for k, v := range f.override {
		method, prefix, _ := strings.Cut(k, " ")
		if r.Method == method && strings.HasPrefix(r.URL.Path, prefix) {
			h = v
		}
	}
	f.mu.Unlock()
	if h != nil {
		h(w, r)
		return
	}
	f.inner.ServeHTTP(w, r)
}

func (f *front) answer(route string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.override == nil {
		f.override = map[string]http.HandlerFunc{}
	}
	if h == nil {
		delete(f.override, route)
		return
	}
	f.override[route] = h
}

// get reads a /_mock/ route of the mock itself into v; it runs in the handlers that stand in
// for routes, outside the test's goroutine.
func (f *front) get(path string, v any) error {
	rec := httptest.NewRecorder()
	f.inner.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return json.Unmarshal(rec.Body.Bytes(), v)
}

// holdStreams opens event streams on the mock until it refuses more (64 are allowed) and
// returns a function that closes n of them.
func holdStreams(t *testing.T, url string) (release func(n int), held func() int) {
	t.Helper()
	var mu sync.Mutex
	var cancels []context.CancelFunc
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1}}
	deadline := time.Now().Add(5 * time.Second)
	for len(cancels) < 64 && time.Now().Before(deadline) {
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/_mock/events", nil)
		require.NoError(t, err)
		res, err := client.Do(req)
		require.NoError(t, err)
		if res.StatusCode != http.StatusOK {
			res.Body.Close()
			cancel()
			time.Sleep(20 * time.Millisecond) // a stream the page closed is not let go yet
			continue
		}
		_, err = bufio.NewReader(res.Body).ReadString('\n') // "retry: 1000"
		require.NoError(t, err)
		cancels = append(cancels, cancel)
	}
	require.Len(t, cancels, 64, "the mock holds 64 event streams")
	t.Cleanup(func() { release(len(cancels)) })
	release = func(n int) {
		mu.Lock()
		defer mu.Unlock()
		for ; n > 0 && len(cancels) > 0; n-- {
			cancels[len(cancels)-1]()
			cancels = cancels[:len(cancels)-1]
		}
	}
	return release, func() int { mu.Lock(); defer mu.Unlock(); return len(cancels) }
}

func TestPageInBrowser(t *testing.T) {
	// A server that does not deduplicate references, so that the page can show a duplicate.
	srv := mockserver.NewTest(t, mockserver.WithReferenceDeduplication(false))
	f := &front{inner: srv.Handler()}
	ts := httptest.NewServer(f)
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	ctx := startBrowser(t, 1280, 820) // closed first: its streams end before the servers close

	var exceptions []string
	var exMu sync.Mutex
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			exMu.Lock()
			exceptions = append(exceptions, e.ExceptionDetails.Error())
			exMu.Unlock()
		}
	})
	t.Cleanup(func() {
		exMu.Lock()
		defer exMu.Unlock()
		assert.Empty(t, exceptions, "the page's script threw")
	})

	ws := srv.Default()
	client, err := sms.NewClient(ws.LiveKey, ws.LiveSecret, sms.WithBaseURL(srv.URL()))
	require.NoError(t, err)
	send := func(text, reference string, to ...string) string {
		t.Helper()
		res, err := client.SMS.Send(t.Context(), &sms.SendParams{To: to, From: ws.SenderID, Message: text, Reference: reference})
		require.NoError(t, err)
		return res.Campaign.ID
	}
	otp := func(to string) *sms.OTP {
		t.Helper()
		o, err := client.OTP.Send(t.Context(), &sms.SendOTPParams{To: to, From: ws.SenderID, Message: "Your Acme code is < 1234 >. It expires in 10 minutes."})
		require.NoError(t, err)
		return o
	}

	t.Run("the page says Loading until its script runs", func(t *testing.T) {
		require.NoError(t, chromedp.Run(ctx,
			network.Enable(),
			network.SetBlockedURLs([]string{"*/_mock/inbox/app.js"}),
			chromedp.Navigate(ts.URL+"/"),
			chromedp.WaitVisible(`#no-conversations`)))
		assert.Equal(t, "Loading…", text(ctx, t, `#no-conversations`))
		require.NoError(t, chromedp.Run(ctx, network.SetBlockedURLs([]string{})))
	})

	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(`#stream.on`), // subscribed to /_mock/events
	))
	assert.Equal(t, "connected", text(ctx, t, `#stream`), "the stream's state does not read like the API's live mode")

	t.Run("no messages yet is not no match", func(t *testing.T) {
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(`#no-conversations.no-messages`)))
		assert.Contains(t, text(ctx, t, `#no-conversations`), "No messages yet")
		require.NoError(t, within(ctx, 2*time.Second, typeSearch("zzz"), chromedp.WaitVisible(`#no-conversations.no-match`)))
		assert.Equal(t, "No conversation matches “zzz”.", text(ctx, t, `#no-conversations`))
		require.NoError(t, within(ctx, 2*time.Second, typeSearch(""), chromedp.WaitVisible(`#no-conversations.no-messages`)))
	})

	t.Run("a message appears in its conversation without reload", func(t *testing.T) {
		send("Your order 4217 has shipped.", "", "08025671695")
		row := `#conversations li[data-to="2348025671695"]`
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(row)), "the number did not appear within 2s")
		require.NoError(t, within(ctx, 2*time.Second, click(row), chromedp.WaitVisible(`#messages li.msg`)))

		send("Your parcel arrives today", "", "+2348025671695")
		start := time.Now()
		require.NoError(t, within(ctx, 2*time.Second, countIs(`#messages li.msg`, 2)), "the second message did not appear within 2s")
		t.Logf("the message appeared after %v", time.Since(start))
		assert.Equal(t, "Your parcel arrives today", text(ctx, t, `#messages li.msg:last-child .text`))
		assert.Contains(t, text(ctx, t, `#thread-title`), "+2348025671695")
		assert.Equal(t, 0, count(ctx, t, row+` .unread`), "an open conversation has nothing unread")
	})

	t.Run("an event updates the list without reading it again", func(t *testing.T) {
		require.Eventually(t, func() bool { return f.listing.Load() == 0 }, 16*time.Second, 10*time.Millisecond, "a read of the list never ended")
		require.NoError(t, chromedp.Run(ctx, nextFrames())) // and the page has drawn what it read
		before := f.conversations.Load()
		row := `#conversations li[data-to="2348011111111"]`
		send("Hello there", "", "2348011111111")
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(row)))
		send("Are you there?", "", "08011111111")
		require.NoError(t, within(ctx, 2*time.Second, textIs(row+` .unread`, "2")), "the new conversation counts its two messages")
		assert.Equal(t, "2348011111111", attr(ctx, t, `#conversations li:first-child`, "data-to"), "the newest conversation is on top")
		assert.Contains(t, text(ctx, t, row+` .snippet`), "Are you there?")
		send("A third one", "", "2348025671695") // the open conversation moves up and grows
		require.NoError(t, within(ctx, 2*time.Second, countIs(`#messages li.msg`, 3)))
		assert.Equal(t, "2348025671695", attr(ctx, t, `#conversations li:first-child`, "data-to"))
		// Something that does not happen needs a window to not happen in: the old page read
		// the list again 50 ms after each event. Under load this can only miss such a read
		// (a pass), never fail a correct page.
		time.Sleep(400 * time.Millisecond)
		assert.Equal(t, before, f.conversations.Load(), "the page read GET /_mock/conversations again after an event")
	})

	// An old conversation beyond the newest 100: a number with an older message "Flash sale",
	// then 125 other numbers.
	send("Flash sale: 50% off everything today", "", "08099999999")
	send("Thanks for shopping with us", "", "08099999999")
	recipients := make([]sms.Recipient, 125)
	for i := range recipients {
		recipients[i] = sms.Recipient{Phone: fmt.Sprintf("23480300%05d", i), Name: fmt.Sprintf("Customer %d", i)}
	}
	_, err = client.Campaigns.Create(t.Context(), &sms.CreateCampaignParams{To: recipients, From: ws.SenderID,
		Message: "Hello {{name}}, our weekly news is out.", Reference: "weekly-news:7"})
	require.NoError(t, err)
	const total = 128 // 125 + 2348099999999, 2348011111111 and 2348025671695
	old := `#conversations li[data-to="2348099999999"]`

	t.Run("the list pages beyond 100", func(t *testing.T) {
		require.NoError(t, within(ctx, 5*time.Second, countIs(`#conversations li`, 100), textIs(`#more-conversations`, "Load more (100 of 128)")))
		assert.Equal(t, 0, count(ctx, t, old), "the old number is beyond the first page")
		require.NoError(t, within(ctx, 2*time.Second, click(`#more-conversations`), countIs(`#conversations li`, total)))
		assert.Equal(t, 1, count(ctx, t, old))
		assert.False(t, visible(ctx, t, `#more-conversations`))
	})

	t.Run("search finds a number in any form, beyond the newest 100", func(t *testing.T) {
		require.NoError(t, chromedp.Run(ctx, chromedp.Reload(), chromedp.WaitVisible(`#stream.on`)))
		require.NoError(t, within(ctx, 2*time.Second, countIs(`#conversations li`, 100)))
		for _, typed := range []string{"08099999999", "0809 999 9999", "+234 809 999 9999", "2348099999999", "(0809) 999-9999"} {
			require.NoError(t, within(ctx, 2*time.Second, typeSearch(typed), countIs(`#conversations li`, 1), chromedp.WaitVisible(old)), typed)
			assert.False(t, visible(ctx, t, `#no-conversations`), typed)
		}
		require.NoError(t, within(ctx, 2*time.Second, typeSearch("0809 111 1111"), chromedp.WaitVisible(`#no-conversations.no-match`)))
		assert.Equal(t, 0, count(ctx, t, `#conversations li`))
		assert.Equal(t, "No conversation matches “0809 111 1111”.", text(ctx, t, `#no-conversations`))
	})

	t.Run("a part of a number is looked for in the texts", func(t *testing.T) {
		require.NoError(t, within(ctx, 2*time.Second, typeSearch("4217"), chromedp.WaitVisible(`#search-hint`)))
		require.NoError(t, within(ctx, 2*time.Second, countIs(`#conversations li`, 1)))
		assert.Equal(t, 1, count(ctx, t, `#conversations li[data-to="2348025671695"]`), "the text 'Your order 4217 has shipped.'")
		require.NoError(t, within(ctx, 2*time.Second, typeSearch("0809999"), chromedp.WaitVisible(`#no-conversations.no-match`)))
		assert.Contains(t, text(ctx, t, `#search-hint`), "not a whole phone number")
		assert.Contains(t, text(ctx, t, `#search-hint`), "not a whole phone number")
	})

	t.Run("text search finds a conversation by an older message", func(t *testing.T) {
		require.NoError(t, within(ctx, 2*time.Second, typeSearch("FLASH"), countIs(`#conversations li`, 1), chromedp.WaitVisible(old)))
		assert.False(t, visible(ctx, t, `#search-hint`))
		assert.Equal(t, "1 match", text(ctx, t, old+` .matches`))
		require.NoError(t, within(ctx, 2*time.Second, click(old), countIs(`#messages li.msg`, 2)))
		assert.Equal(t, 1, count(ctx, t, `#messages li.msg.match`))
		assert.Contains(t, text(ctx, t, `#messages li.msg.match .text`), "Flash sale")
		require.NoError(t, within(ctx, 2*time.Second, typeSearch(""), countIs(`#conversations li`, 100)))
	})

	t.Run("a thread pages beyond 100", func(t *testing.T) {
		for i := range 104 {
			send(fmt.Sprintf("Reminder %d", i), "", "2348077777777")
		}
		row := `#conversations li[data-to="2348077777777"]`
		require.NoError(t, within(ctx, 10*time.Second, chromedp.WaitVisible(row), click(row), countIs(`#messages li.msg`, 100)))
		require.NoError(t, within(ctx, 2*time.Second, textIs(`#older-messages`, "Load older messages (4 more)")))
		require.NoError(t, within(ctx, 2*time.Second, click(`#older-messages`), countIs(`#messages li.msg`, 104)))
		assert.Equal(t, 0, count(ctx, t, `#older-messages`))
		assert.Equal(t, "Reminder 0", text(ctx, t, `#messages li.msg:first-child .text`))
		assert.Equal(t, "Reminder 103", text(ctx, t, `#messages li.msg:last-child .text`))
	})

	t.Run("OTPs: filter by kind, copy the pin, replaced and verified pins", func(t *testing.T) {
		otp("08066666666")
		second := otp("08066666666")
		_, pin, err := srv.LatestOTP("2348066666666")
		require.NoError(t, err)
		require.NoError(t, chromedp.Run(ctx, setValue(`#kind`, "otp"),
			chromedp.Evaluate(`document.querySelector('#kind').dispatchEvent(new Event('change'))`, nil)))
		row := `#conversations li[data-to="2348066666666"]`
		require.NoError(t, within(ctx, 2*time.Second, countIs(`#conversations li`, 1), chromedp.WaitVisible(row)))
		require.NoError(t, within(ctx, 2*time.Second, click(row), countIs(`#messages li.msg.otp`, 2)))
		msg := func(id string) string { return `#messages li.msg[data-id="` + id + `"]` }
		olderID, newerID := messageID(t, srv, "2348066666666", 1), messageID(t, srv, "2348066666666", 0)
		assert.Equal(t, "replaced", text(ctx, t, msg(olderID)+` .pin-state`))
		assert.Equal(t, "not verified", text(ctx, t, msg(newerID)+` .pin-state`))
		assert.Equal(t, pin, text(ctx, t, msg(newerID)+` .pin`))

		var copied string
		require.NoError(t, chromedp.Run(ctx,
			browser.GrantPermissions([]browser.PermissionType{browser.PermissionTypeClipboardReadWrite, browser.PermissionTypeClipboardSanitizedWrite}).WithOrigin(ts.URL),
			emulation.SetFocusEmulationEnabled(true),
			chromedp.Click(msg(newerID)+` button.copy`, chromedp.ByQuery), // a click of the user's: copying needs one
			textIs(msg(newerID)+` button.copy`, "Copied"),
			chromedp.Evaluate(`navigator.clipboard.readText()`, &copied, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })))
		assert.Equal(t, pin, copied)

		_, err = client.OTP.Verify(t.Context(), &sms.VerifyOTPParams{PinID: second.PinID, Pin: pin})
		require.NoError(t, err)
		require.NoError(t, within(ctx, 2*time.Second, textIs(msg(newerID)+` .pin-state`, "verified")))
		assert.Equal(t, "replaced", text(ctx, t, msg(olderID)+` .pin-state`))

		// Its details say that the mock does not link an OTP to its request, not that the
		// request left the log.
		require.NoError(t, within(ctx, 2*time.Second, click(msg(newerID)+` button.details-button`), chromedp.WaitVisible(`#details .request`)))
		assert.Contains(t, text(ctx, t, `#details .request`), "does not link an OTP message to the request that sent it")
		require.NoError(t, chromedp.Run(ctx, click(`#details-close`), chromedp.WaitNotVisible(`#details`)))

		require.NoError(t, chromedp.Run(ctx, setValue(`#kind`, ""),
			chromedp.Evaluate(`document.querySelector('#kind').dispatchEvent(new Event('change'))`, nil)))
		require.NoError(t, within(ctx, 2*time.Second, countIs(`#conversations li`, 100)))
	})

	t.Run("a message's details: its campaign and job", func(t *testing.T) {
		id := send("Spring sale starts now", "spring-sale:3", "2348055555555")
		row := `#conversations li[data-to="2348055555555"]`
		require.NoError(t, within(ctx, 2*time.Second, click(row), countIs(`#messages li.msg`, 1)))
		require.NoError(t, within(ctx, 2*time.Second, click(`#messages li.msg button.details-button`), chromedp.WaitVisible(`#details .campaign .reference`)))
		assert.Equal(t, "spring-sale:3", text(ctx, t, `#details .campaign .reference`))
		assert.Equal(t, "spring-sale", text(ctx, t, `#details .campaign .job`))
		assert.Contains(t, text(ctx, t, `#details .campaign`), id)
		// GET /_mock/messages/{id}: the message, its campaign, the request that sent it and its
		// history, which grows once the campaign is delivered.
		require.NoError(t, within(ctx, 5*time.Second, chromedp.WaitVisible(`#details .request pre`)))
		assert.Equal(t, 1, count(ctx, t, `#details .history li`))
		require.NoError(t, chromedp.Run(ctx, click(`#details-close`), chromedp.WaitNotVisible(`#details`)))
		require.NoError(t, srv.Deliver(id, nil))
		// The delivery's event draws the thread again: click the button once it has, or the
		// click may land on the one being replaced.
		require.NoError(t, within(ctx, 2*time.Second, textHas(`#messages li.msg`, "delivered")))
		require.NoError(t, within(ctx, 2*time.Second, click(`#messages li.msg button.details-button`), chromedp.WaitVisible(`#details .request pre`)))
		assert.Contains(t, text(ctx, t, `#details .request`), "POST /v1/sms/send")
		assert.Contains(t, text(ctx, t, `#details .request pre`), `"reference": "spring-sale:3"`)
		assert.Equal(t, 2, count(ctx, t, `#details .history li`))
		assert.Equal(t, 0, count(ctx, t, `#details .unavailable`))
		assert.Equal(t, "spring-sale", text(ctx, t, `#details .campaign .job`))
		require.NoError(t, chromedp.Run(ctx, click(`#details-close`), chromedp.WaitNotVisible(`#details`)))
	})

	t.Run("an error from a control stays until dismissed", func(t *testing.T) {
		require.NoError(t, chromedp.Run(ctx, click(`#tabs button[data-tab="faults"]`), chromedp.WaitVisible(`#fault-form`),
			setValue(`#fault-form [name=latency]`, "soon"), click(`#fault-form button[type=submit]`)))
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(`#notices .notice.error`)))
		assert.Contains(t, text(ctx, t, `#notices .notice.error .text`), "Add the fault: ")
		assert.Contains(t, text(ctx, t, `#notices .notice.error .text`), "latency")
		// The tab is read again after the control and on the next event: the error stays.
		reads := f.faultReads.Load()
		send("Anyone?", "", "2348044444444")
		require.NoError(t, chromedp.Run(ctx, click(`#tabs button[data-tab="faults"]`)))
		require.Eventually(t, func() bool { return f.faultReads.Load() > reads }, 16*time.Second, 10*time.Millisecond, "the tab was not read again")
		require.NoError(t, chromedp.Run(ctx, nextFrames())) // the page has drawn what it read
		assert.Equal(t, 1, count(ctx, t, `#notices .notice.error`))
		require.NoError(t, within(ctx, 2*time.Second, click(`#notices .notice.error .dismiss`), countIs(`#notices .notice`, 0)))
	})

	t.Run("amounts are exact, with thousands separators", func(t *testing.T) {
		require.NoError(t, chromedp.Run(ctx, click(`#tabs button[data-tab="wallets"]`), chromedp.WaitVisible(`#wallets`),
			setValue(`#wallets [name=live]`, "12345678901234567.89"), click(`#wallets button[type=submit]`)))
		require.NoError(t, within(ctx, 2*time.Second, textIs(`#live-balance`, "₦12,345,678,901,234,567.89")))
		kobo, err := srv.Balance(ws.WorkspaceID, mockserver.ModeLive)
		require.NoError(t, err)
		assert.Equal(t, int64(1234567890123456789), kobo)

		// Both ways of reading the amounts: the reviver's source text, and quoting them first.
		var got []string
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`(() => {
			const text = '{"balance":12345678901234567.89,"text":"\\"cost\\": 1.5","data":[{"cost":3.2,"amount":0,"parts":2}]}';
			const out = [String(hasSource)];
			for (const parse of [parseWithSource, parseQuoted]) {
				const v = parse(text);
				out.push(naira(v.balance), v.text, naira(v.data[0].cost), naira(v.data[0].amount), typeof v.data[0].parts);
			}
			out.push(naira('-1234.5'), naira('999'), naira('1000'));
			return out;
		})()`, &got)))
		assert.Equal(t, []string{"true",
			"₦12,345,678,901,234,567.89", `"cost": 1.5`, "₦3.20", "₦0.00", "number",
			"₦12,345,678,901,234,567.89", `"cost": 1.5`, "₦3.20", "₦0.00", "number",
			"-₦1,234.50", "₦999.00", "₦1,000.00"}, got)
	})

	t.Run("campaigns: reference, job and text; deliver one; deliver all", func(t *testing.T) {
		id := send("Sale today", "summer:12", "2348022222222", "2348033333333")
		row := `#campaigns tr[data-id="` + id + `"]`
		require.NoError(t, chromedp.Run(ctx, click(`#tabs button[data-tab="campaigns"]`)))
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(row), textIs(row+` td.delivery`, "sent")))
		assert.Equal(t, "summer:12", text(ctx, t, row+` td.reference code.reference`))
		assert.Equal(t, "summer", text(ctx, t, row+` td.reference .job`))
		require.NoError(t, within(ctx, 2*time.Second, textIs(row+` td.text`, "Sale today")))

		// A bulk job's batches are accepted in any order: the tab shows them together, by
		// number, whatever came between them; and the table fits a 1280-pixel window.
		for _, b := range []string{"3", "1", "4"} {
			send("Autumn sale", "autumn:"+b, "2348022222222")
		}
		send("Unrelated", "", "2348022222222")
		send("Autumn sale", "autumn:2", "2348022222222")
		const refsJS = `[...document.querySelectorAll('#campaigns td.reference code')].map((c) => c.textContent).filter((r) => /^(autumn|summer):/.test(r))`
		require.NoError(t, within(ctx, 2*time.Second, chromedp.Poll(refsJS+`.length === 5`, nil)))
		var refs []string
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(refsJS, &refs)))
		assert.Equal(t, []string{"autumn:4", "autumn:3", "autumn:2", "autumn:1", "summer:12"}, refs)
		var overflow float64
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('#tab-campaigns table').getBoundingClientRect().right - document.documentElement.clientWidth`, &overflow)))
		assert.LessOrEqual(t, overflow, 0.0, "the campaigns table is wider than a 1280-pixel window")

		// The same reference sent again is a second campaign here: both rows say so, no other.
		again := send("Sale today", "summer:12", "2348022222222", "2348033333333")
		require.NotEqual(t, id, again)
		for _, c := range []string{id, again} {
			dup := `#campaigns tr[data-id="` + c + `"] td.reference .duplicate`
			require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(dup)))
			assert.Equal(t, "sent 2×", text(ctx, t, dup))
		}
		assert.Equal(t, 2, count(ctx, t, `#campaigns td.reference .duplicate`))
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('#tab-campaigns table').getBoundingClientRect().right - document.documentElement.clientWidth`, &overflow)))
		assert.LessOrEqual(t, overflow, 0.0, "the campaigns table with a duplicate is wider than a 1280-pixel window")
		require.NoError(t, within(ctx, 2*time.Second, click(row+` button.deliver`), textIs(row+` td.delivery`, "delivered")))
		got := srv.Messages(mockserver.Filter{CampaignID: id})
		require.Len(t, got, 2)
		for _, m := range got {
			assert.Equal(t, mockserver.StatusDelivered, m.Status)
		}

		// A mock without POST /_mock/deliver: a note, and nothing breaks.
		f.answer("POST /_mock/deliver", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":"not_found","message":"Route not found."},"requestId":"req_0123456789abcdef01234567"}`))
		})
		require.NoError(t, within(ctx, 2*time.Second, click(`#deliver-all`), chromedp.WaitVisible(`#notices .notice.info`)))
		assert.Contains(t, text(ctx, t, `#notices .notice.info`), "Deliver all is not available")
		require.NoError(t, chromedp.Run(ctx, click(`#notices .notice.info .dismiss`)))

		// A mock with it: every campaign still sent is settled, and the tab shows it.
		var calls atomic.Int64
		f.answer("POST /_mock/deliver", func(w http.ResponseWriter, _ *http.Request) {
			calls.Add(1)
			n := 0
			for _, mode := range []string{"live", "test"} {
				var camps struct {
					Data []struct {
						ID     string `json:"_id"`
						Status string
						Counts struct{ Sent int }
					}
				}
				assert.NoError(t, f.get("/_mock/workspaces/"+ws.WorkspaceID+"/campaigns?limit=100&mode="+mode, &camps))
				for _, c := range camps.Data {
					if c.Status == "sent" && c.Counts.Sent > 0 {
						assert.NoError(t, srv.Deliver(c.ID, nil))
						n++
					}
				}
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"campaigns":%d,"requestId":"req_0123456789abcdef01234567"}`, n)
		})
		defer f.answer("POST /_mock/deliver", nil)
		require.NoError(t, within(ctx, 3*time.Second, click(`#deliver-all`), textHas(`#campaigns-note`, "Settled ")))
		assert.EqualValues(t, 1, calls.Load())
		require.NoError(t, within(ctx, 2*time.Second, chromedp.Poll(`[...document.querySelectorAll('#campaigns td.delivery')].every((td) => td.textContent !== 'sent')`, nil)))
		assert.Contains(t, text(ctx, t, `#campaigns-note`), "Settled ", "the list read after Deliver all erased what it settled")
		assert.Equal(t, 0, count(ctx, t, `#notices .notice`))
	})

	t.Run("requests: long bodies are collapsed", func(t *testing.T) {
		require.NoError(t, chromedp.Run(ctx, click(`#tabs button[data-tab="requests"]`)))
		bulk := `#requests tr:has(td.body .collapsible)`
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(bulk)))
		assert.Equal(t, 1, count(ctx, t, bulk), "only the 125-recipient body is long")
		assert.NotContains(t, text(ctx, t, bulk+` pre`), "2348030000124", "the body is collapsed")
		assert.Contains(t, text(ctx, t, bulk+` button.show-all`), "show all")
		require.NoError(t, chromedp.Run(ctx, click(bulk+` button.show-all`)))
		assert.Contains(t, text(ctx, t, bulk+` pre`), "2348030000124")
		assert.Contains(t, text(ctx, t, bulk+` pre`), `"reference": "weekly-news:7"`)
	})

	t.Run("the stream reconnects after a 429", func(t *testing.T) {
		// The page lets its stream go, the test takes every one the mock allows, and the page
		// comes back.
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`stream.source.close()`, nil)))
		release, held := holdStreams(t, srv.URL())
		require.NoError(t, chromedp.Run(ctx, chromedp.Reload()))
		require.NoError(t, within(ctx, 5*time.Second, chromedp.WaitVisible(`#stream.retry`)))
		assert.Contains(t, text(ctx, t, `#stream`), "reconnecting in")
		// Refused again: the page keeps trying, further apart.
		require.NoError(t, within(ctx, 5*time.Second, chromedp.Poll(`document.querySelector('#stream').title.includes('try 2')`, nil)))
		release(1)
		require.Equal(t, 63, held())
		start := time.Now()
		require.NoError(t, within(ctx, 6*time.Second, chromedp.WaitVisible(`#stream.on`)), "the page did not reconnect")
		t.Logf("reconnected %v after a stream was let go", time.Since(start))
		release(63)
		require.NoError(t, within(ctx, 2*time.Second, countIs(`#conversations li`, 100)))
		send("Back online", "", "2348012345678")
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(`#conversations li[data-to="2348012345678"]`)))
	})

	t.Run("a phone-sized window shows the list or the conversation", func(t *testing.T) {
		row := `#conversations li[data-to="2348055555555"]`
		require.NoError(t, chromedp.Run(ctx,
			chromedp.EmulateViewport(390, 800),
			click(`#tabs button[data-tab="inbox"]`),
			chromedp.WaitVisible(row),
			chromedp.WaitNotVisible(`#thread`),
			click(row),
			chromedp.WaitVisible(`#messages li.msg`),
			chromedp.WaitNotVisible(row),
			click(`#messages li.msg button.details-button`),
			chromedp.WaitVisible(`#details .campaign`),
			click(`#details-close`),
			click(`#back`),
			chromedp.WaitVisible(row),
			chromedp.EmulateViewport(1280, 820),
		))
	})

	if path := os.Getenv("INBOX_SCREENSHOT"); path != "" {
		screenshot(t, ctx, srv, client, ws, ts.URL, path)
	}
}

// messageID returns the id of the message to a number, i from the newest.
func messageID(t *testing.T, srv *mockserver.Server, to string, i int) string {
	t.Helper()
	msgs := srv.Messages(mockserver.Filter{To: to})
	require.Greater(t, len(msgs), i)
	return msgs[i].ID
}

func attr(ctx context.Context, t *testing.T, selector, name string) string {
	t.Helper()
	var s string
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`(document.querySelector(`+strconv.Quote(selector)+`) || {getAttribute: () => ''}).getAttribute(`+strconv.Quote(name)+`) || ''`, &s)))
	return s
}

func visible(ctx context.Context, t *testing.T, selector string) bool {
	t.Helper()
	var v bool
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`(() => { const e = document.querySelector(`+strconv.Quote(selector)+`); return Boolean(e && e.offsetParent !== null) })()`, &v)))
	return v
}

// screenshot saves the page at a desktop size with a realistic inbox open.
func screenshot(t *testing.T, ctx context.Context, srv *mockserver.Server, client *sms.Client, ws mockserver.Workspace, url, path string) {
	t.Helper()
	srv.ClearMessages()
	send := func(text, reference string, to ...string) string {
		res, err := client.SMS.Send(t.Context(), &sms.SendParams{To: to, From: ws.SenderID, Message: text, Reference: reference})
		require.NoError(t, err)
		return res.Campaign.ID
	}
	otp := func() {
		_, err := client.OTP.Send(t.Context(), &sms.SendOTPParams{To: "2348025671695", From: ws.SenderID, Message: "Your Acme code is < 1234 >. It expires in 10 minutes."})
		require.NoError(t, err)
	}
	order := send("Hi Ada, your Acme order #1042 has shipped and arrives tomorrow.", "", "2348025671695")
	require.NoError(t, srv.Deliver(order, nil))
	sale := send("Flash sale: 30% off all shoes this weekend only. Reply STOP to opt out.", "flash-sale-0611:1",
		"2348031234567", "2348061234567", "2348025671695", "2349051234567")
	require.NoError(t, srv.Deliver(sale, &mockserver.DeliverCounts{Delivered: 2, Failed: 1}))
	send("Your Acme balance is ₦12,500.00. Thank you for banking with us.", "", "2347012345678")
	otp()
	otp()
	var png []byte
	require.NoError(t, chromedp.Run(ctx,
		chromedp.EmulateViewport(1280, 820),
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible(`#stream.on`),
		click(`#conversations li[data-to="2348025671695"]`),
		countIs(`#messages li.msg.otp`, 2),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.CaptureScreenshot(&png)))
	require.NoError(t, os.WriteFile(path, png, 0o644))
}
