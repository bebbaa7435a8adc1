package inbox_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// streamCounter is the mock behind a wrapper that counts the event streams open at once, and
// the most there were.
type streamCounter struct {
	inner      http.Handler
	open, most atomic.Int64
}

func (s *streamCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/_mock/events" {
		n := s.open.Add(1)
		defer s.open.Add(-1)
		for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
		}
	}
	s.inner.ServeHTTP(w, r)
}

// TestPageInTenTabs: the page open in ten tabs of one browser (which keeps six connections
// to a host) loads, reads and follows the mock in every one: the tabs share one event stream,
// held by one tab and passed on to the others; when that tab closes another takes it over;
// a tab navigated again and again (as "Copy link" pasted does) keeps working; a read that
// gets no answer says the mock cannot be reached.
func TestPageInTenTabs(t *testing.T) {
	srv := mockserver.NewTest(t)
	sc := &streamCounter{inner: srv.Handler()}
	ts := httptest.NewServer(sc)
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	first := startBrowser(t, 1024, 700) // the browser's first tab, left blank: closing it ends the browser

	var tabs []context.Context
	for range 10 {
		ctx, cancel := chromedp.NewContext(first)
		t.Cleanup(cancel)
		require.NoError(t, chromedp.Run(ctx)) // the tab lives as long as ctx, not a deadline of within
		tabs = append(tabs, ctx)
	}
	for i, ctx := range tabs {
		require.NoError(t, within(ctx, 5*time.Second, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(`#no-conversations.no-messages`)),
			"tab %d loads and reads", i+1)
	}
	for i, ctx := range tabs {
		var s string
		require.NoError(t, within(ctx, 5*time.Second, chromedp.WaitVisible(`#stream.on`), chromedp.Text(`#stream`, &s)), "tab %d follows the mock", i+1)
		if i == 0 {
			assert.Equal(t, "connected", s)
		} else {
			assert.Equal(t, "connected (shared)", s, "tab %d", i+1)
		}
	}
	assert.Equal(t, int64(1), sc.most.Load(), "the tabs share one stream")

	ws := srv.Default()
	client, err := sms.NewClient(ws.LiveKey, ws.LiveSecret, sms.WithBaseURL(srv.URL()))
	require.NoError(t, err)
	send := func(to string) {
		t.Helper()
		_, err := client.SMS.Send(t.Context(), &sms.SendParams{To: []string{to}, From: ws.SenderID, Message: "Your order has shipped."})
		require.NoError(t, err)
	}
	send("08025671695")
	for i, ctx := range tabs {
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(`#conversations li[data-to="2348025671695"]`)),
			"tab %d shows the new message", i+1)
	}

	// The tab holding the stream closes: another takes it over, and every tab still follows.
	require.NoError(t, chromedp.Cancel(tabs[0]))
	tabs = tabs[1:]
	send("08031234567")
	for i, ctx := range tabs {
		require.NoError(t, within(ctx, 5*time.Second, chromedp.WaitVisible(`#conversations li[data-to="2348031234567"]`)),
			"tab %d shows the message sent after the first tab closed", i+2)
	}
	var holders int
	for _, ctx := range tabs {
		var s string
		require.NoError(t, within(ctx, time.Second, chromedp.Text(`#stream`, &s)))
		if s == "connected" {
			holders++
		}
	}
	assert.Equal(t, 1, holders, "one tab holds the stream")

	// One tab navigated to conversation links again and again keeps reading and following.
	for k := range 7 {
		to := "23480312345" + strconv.Itoa(60+k)
		send(to)
		require.NoError(t, within(tabs[0], 5*time.Second, chromedp.Navigate(ts.URL+"/?to="+to),
			chromedp.WaitVisible(`#conversations li[data-to="`+to+`"]`)), "navigation %d", k+1)
	}
	send("08051234567")
	for i, ctx := range tabs {
		require.NoError(t, within(ctx, 5*time.Second, chromedp.WaitVisible(`#conversations li[data-to="2348051234567"]`)),
			"tab %d follows after the navigations", i+2)
	}
	assert.LessOrEqual(t, sc.open.Load(), int64(2), "streams open at the end")

	// The mock gone, a read says so where the stream's state is.
	ts.CloseClientConnections()
	ts.Close()
	var s string
	require.NoError(t, within(tabs[0], 5*time.Second, typeSearch("zz"), chromedp.WaitVisible(`#stream.retry`), chromedp.Text(`#stream`, &s)))
	assert.Equal(t, "cannot reach the mock", s)
}
