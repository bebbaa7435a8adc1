package inbox_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

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
func browser(t *testing.T, width, height int) context.Context {
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
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Run(ctx), "starting chromium")
	return ctx
}

// within runs actions with a deadline of d.
func within(ctx context.Context, d time.Duration, actions ...chromedp.Action) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return chromedp.Run(ctx, actions...)
}

func count(ctx context.Context, t *testing.T, selector string) int {
	t.Helper()
	var n int
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll(`+strconv.Quote(selector)+`).length`, &n)))
	return n
}

// click clicks the element selector finds, in one step in the page: the page redraws lists
// on every event, so a node looked up first may be gone by the time a separate click comes.
func click(selector string) chromedp.Action {
	return chromedp.Poll(`(() => { const e = document.querySelector(`+strconv.Quote(selector)+`); if (!e || e.disabled) return false; e.click(); return true })()`, nil)
}

// textIs waits until the element selector finds has the text want.
func textIs(selector, want string) chromedp.Action {
	return chromedp.Poll(`(document.querySelector(`+strconv.Quote(selector)+`) || {}).textContent === `+strconv.Quote(want), nil)
}

func TestPageInBrowser(t *testing.T) {
	ctx := browser(t, 1280, 820)
	srv := mockserver.NewTest(t)
	ws := srv.Default()
	client, err := sms.NewClient(ws.LiveKey, ws.LiveSecret, sms.WithBaseURL(srv.URL()))
	require.NoError(t, err)
	send := func(text string, to ...string) string {
		t.Helper()
		res, err := client.SMS.Send(t.Context(), &sms.SendParams{To: to, From: ws.SenderID, Message: text})
		require.NoError(t, err)
		return res.Campaign.ID
	}

	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(srv.URL()+"/"),
		chromedp.WaitVisible(`#live.on`), // subscribed to /_mock/events
	))

	t.Run("a message appears in its conversation without reload", func(t *testing.T) {
		send("Your order 42 has shipped.", "08025671695")
		row := `#conversations li[data-to="2348025671695"]`
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(row)), "the number did not appear within 2s")
		require.NoError(t, within(ctx, 2*time.Second, click(row), chromedp.WaitVisible(`#messages li.msg`)))

		send("Your code is 482913", "+2348025671695")
		start := time.Now()
		require.NoError(t, within(ctx, 2*time.Second, chromedp.Poll(`document.querySelectorAll('#messages li.msg').length === 2`, nil)),
			"the second message did not appear within 2s")
		t.Logf("the message appeared after %v", time.Since(start))
		var last, title string
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Text(`#messages li.msg:last-child .text`, &last),
			chromedp.Text(`#thread-title`, &title)))
		assert.Equal(t, "Your code is 482913", last)
		assert.Contains(t, title, "+2348025671695")
		assert.Equal(t, 0, count(ctx, t, row+` .unread`), "an open conversation has nothing unread")
	})

	t.Run("search narrows the list", func(t *testing.T) {
		send("Hello there", "2348011111111")
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(`#conversations li[data-to="2348011111111"]`)))
		assert.Equal(t, 2, count(ctx, t, `#conversations li`))
		require.NoError(t, chromedp.Run(ctx, chromedp.SendKeys(`#search`, "0801111")))
		assert.Equal(t, 1, count(ctx, t, `#conversations li`))
		assert.Equal(t, 1, count(ctx, t, `#conversations li[data-to="2348011111111"]`))
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector("#search").value = ""`, nil), chromedp.SendKeys(`#search`, "ORDER")))
		assert.Equal(t, 0, count(ctx, t, `#conversations li`), "only the newest text is searched, and it has no 'order'")
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector("#search").value = ""`, nil), chromedp.SendKeys(`#search`, "code")))
		assert.Equal(t, 1, count(ctx, t, `#conversations li[data-to="2348025671695"]`))
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector("#search").value = ""`, nil), chromedp.SendKeys(`#search`, " ")))
		assert.Equal(t, 2, count(ctx, t, `#conversations li`))
	})

	t.Run("deliver a campaign and see its status change", func(t *testing.T) {
		id := send("Sale today", "2348022222222", "2348033333333")
		row := `#campaigns tr[data-id="` + id + `"]`
		require.NoError(t, chromedp.Run(ctx, click(`#tabs button[data-tab="campaigns"]`)))
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(row)))
		require.NoError(t, within(ctx, 2*time.Second, textIs(row+` td.delivery`, "sent")))
		require.NoError(t, within(ctx, 2*time.Second, click(row+` button.deliver`)))
		require.NoError(t, within(ctx, 2*time.Second, textIs(row+` td.delivery`, "delivered")))
		got := srv.Messages(mockserver.Filter{CampaignID: id})
		require.Len(t, got, 2)
		for _, m := range got {
			assert.Equal(t, "delivered", m.Status)
		}
	})

	t.Run("approve a sender ID", func(t *testing.T) {
		sid, err := client.SenderIDs.Request(t.Context(), &sms.RequestSenderIDParams{SenderID: "ACME", Usecase: "Alerts", Company: "Acme Ltd"})
		require.NoError(t, err)
		row := `#senders tr[data-title="ACME"]`
		require.NoError(t, chromedp.Run(ctx, click(`#tabs button[data-tab="senders"]`)))
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(row)))
		require.NoError(t, within(ctx, 2*time.Second, textIs(row+` td.status`, "pending")))
		require.NoError(t, within(ctx, 2*time.Second, click(row+` button.approve`)))
		require.NoError(t, within(ctx, 2*time.Second, textIs(row+` td.status`, "active")))
		list, err := client.SenderIDs.List(t.Context(), nil)
		require.NoError(t, err)
		for _, s := range list {
			if s.ID == sid.ID {
				assert.Equal(t, sms.StatusActive, s.Status)
			}
		}
	})

	t.Run("a phone-sized window shows the list or the conversation", func(t *testing.T) {
		row := `#conversations li[data-to="2348025671695"]`
		require.NoError(t, chromedp.Run(ctx,
			chromedp.EmulateViewport(390, 800),
			click(`#tabs button[data-tab="inbox"]`),
			chromedp.WaitVisible(`#back`),
			click(`#back`),
			chromedp.WaitVisible(row),
			chromedp.WaitNotVisible(`#thread`),
			click(row),
			chromedp.WaitVisible(`#messages li.msg`),
			chromedp.WaitNotVisible(row),
			click(`#back`),
			chromedp.WaitVisible(row),
			chromedp.EmulateViewport(1280, 820),
		))
	})

	if path := os.Getenv("INBOX_SCREENSHOT"); path != "" {
		_, err := client.OTP.Send(t.Context(), &sms.SendOTPParams{To: "2348025671695", From: ws.SenderID, MessageText: "Your Acme code is < 1234 >. It expires in 10 minutes."})
		require.NoError(t, err)
		var png []byte
		require.NoError(t, chromedp.Run(ctx,
			click(`#tabs button[data-tab="inbox"]`),
			chromedp.Evaluate(`document.querySelector("#search").value = ""`, nil),
			click(`#conversations li[data-to="2348025671695"]`),
			chromedp.Sleep(300*time.Millisecond),
			chromedp.CaptureScreenshot(&png)))
		require.NoError(t, os.WriteFile(path, png, 0o644))
	}
}
