package inbox_test

import (
	"context"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

// TestPageLinksInBrowser: /?to=NUMBER (any accepted form) opens that number's conversation,
// in the workspace the link names; a message's link opens it with its details; the page's
// "Copy link" controls hold those links, and following them opens what was shown.
func TestPageLinksInBrowser(t *testing.T) {
	srv := mockserver.NewTest(t)
	browserCtx := startBrowser(t, 1280, 820)
	var exceptions []string
	var exMu sync.Mutex
	t.Cleanup(func() {
		exMu.Lock()
		defer exMu.Unlock()
		assert.Empty(t, exceptions, "the page's script threw")
	})
	// tab opens a new tab for each link followed, as a teammate opening it would.
	tab := func(t *testing.T) context.Context {
		ctx, cancel := chromedp.NewContext(browserCtx)
		t.Cleanup(cancel)
		chromedp.ListenTarget(ctx, func(ev any) {
			if e, ok := ev.(*runtime.EventExceptionThrown); ok {
				exMu.Lock()
				exceptions = append(exceptions, e.ExceptionDetails.Error())
				exMu.Unlock()
			}
		})
		require.NoError(t, chromedp.Run(ctx), "opening a tab") // on ctx itself: a derived deadline would close the tab with it
		return ctx
	}

	other, err := srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.NoError(t, err)
	for _, ws := range []mockserver.Workspace{srv.Default(), other} {
		client, err := sms.NewClient(ws.LiveKey, ws.LiveSecret, sms.WithBaseURL(srv.URL()))
		require.NoError(t, err)
		for _, text := range []string{"First from " + ws.WorkspaceID, "Second from " + ws.WorkspaceID} {
			_, err = client.SMS.Send(t.Context(), &sms.SendParams{To: []string{"0803 123 4567"}, From: ws.SenderID, Message: text})
			require.NoError(t, err)
		}
		_, err = client.SMS.Send(t.Context(), &sms.SendParams{To: []string{"08099999999"}, From: ws.SenderID, Message: "elsewhere"})
		require.NoError(t, err)
	}
	first := srv.Messages(mockserver.Filter{WorkspaceID: other.WorkspaceID, Contains: "First from"})
	require.Len(t, first, 1)

	t.Run("a number in any form opens its conversation in the default workspace", func(t *testing.T) {
		for _, form := range []string{"0803 123 4567", "+234 (803) 123-4567", "2348031234567"} {
			ctx := tab(t)
			require.NoError(t, within(ctx, 5*time.Second,
				chromedp.Navigate(srv.URL()+"/?to="+url.QueryEscape(form)),
				countIs(`#messages li.msg`, 2),
				textHas(`#thread-title`, "+2348031234567")), form)
			assert.Contains(t, text(ctx, t, `#messages`), "Second from "+srv.Default().WorkspaceID, form)
			assert.NotContains(t, text(ctx, t, `#messages`), other.WorkspaceID, form)
		}
	})

	var convLink string
	t.Run("the conversation's Copy link names its workspace and number, and opens it", func(t *testing.T) {
		ctx := tab(t)
		require.NoError(t, within(ctx, 5*time.Second,
			chromedp.Navigate(srv.URL()+"/?workspace="+other.WorkspaceID+"&to=08031234567"),
			countIs(`#messages li.msg`, 2),
			textHas(`#messages`, "Second from "+other.WorkspaceID)))
		convLink = attr(ctx, t, `#thread-link`, "href")
		assert.Equal(t, "/?workspace="+other.WorkspaceID+"&to=2348031234567", convLink)
		var copied string
		require.NoError(t, within(ctx, 2*time.Second,
			browser.GrantPermissions([]browser.PermissionType{browser.PermissionTypeClipboardReadWrite, browser.PermissionTypeClipboardSanitizedWrite}).WithOrigin(srv.URL()),
			emulation.SetFocusEmulationEnabled(true),
			chromedp.Click(`#thread-link`, chromedp.ByQuery), // a click of the user's: copying needs one
			textIs(`#thread-link`, "Copied"),
			chromedp.Evaluate(`navigator.clipboard.readText()`, &copied, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })))
		assert.Equal(t, srv.URL()+convLink, copied, "the link copied is the one shown, absolute")

		// Followed in another tab, the link opens the same conversation.
		ctx = tab(t)
		require.NoError(t, within(ctx, 5*time.Second,
			chromedp.Navigate(srv.URL()+convLink),
			countIs(`#messages li.msg`, 2),
			textHas(`#messages`, "First from "+other.WorkspaceID)))
		var selected string
		require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('#workspace').value`, &selected)))
		assert.Equal(t, other.WorkspaceID, selected)
	})

	t.Run("a message's link opens it with its details", func(t *testing.T) {
		ctx := tab(t)
		require.NoError(t, within(ctx, 5*time.Second, chromedp.Navigate(srv.URL()+convLink)))
		sel := `#messages li.msg[data-id="` + first[0].ID + `"] a.copy-link`
		require.NoError(t, within(ctx, 2*time.Second, chromedp.WaitVisible(sel)))
		link := attr(ctx, t, sel, "href")
		assert.Equal(t, "/?message="+url.QueryEscape(first[0].ID), link)
		ctx = tab(t)
		require.NoError(t, within(ctx, 5*time.Second,
			chromedp.Navigate(srv.URL()+link),
			chromedp.WaitVisible(`#details`),
			textHas(`#details-body`, "First from "+other.WorkspaceID),
			countIs(`#messages li.msg`, 2)))
		require.NoError(t, within(ctx, 2*time.Second, click(`#details-close`), chromedp.WaitNotVisible(`#details`)))
		assert.Equal(t, convLink, attr(ctx, t, `#thread-link`, "href"), "its conversation is open behind it")
	})

	t.Run("all workspaces at once, each message naming its workspace", func(t *testing.T) {
		ctx := tab(t)
		label := "#2 · Nigeria · " + other.WorkspaceID
		require.NoError(t, within(ctx, 5*time.Second,
			chromedp.Navigate(srv.URL()+"/?workspace=all&to=08031234567"),
			countIs(`#messages li.msg`, 4),
			textHas(`#messages`, "First from "+srv.Default().WorkspaceID),
			textHas(`#messages`, "First from "+other.WorkspaceID)))
		assert.Contains(t, text(ctx, t, `#messages li.msg[data-id="`+first[0].ID+`"] .workspace`), label)
		assert.Equal(t, label, text(ctx, t, `#workspace option[value="`+other.WorkspaceID+`"]`), "a readable label")
		assert.Equal(t, "#1 · Nigeria · "+srv.Default().WorkspaceID+" (default)", text(ctx, t, `#workspace option[value="`+srv.Default().WorkspaceID+`"]`))

		// A search finds the messages of every workspace.
		require.NoError(t, within(ctx, 5*time.Second,
			typeSearch("elsewhere"),
			countIs(`#conversations li[data-to="2348099999999"]`, 1)))
		require.NoError(t, within(ctx, 5*time.Second,
			click(`#conversations li[data-to="2348099999999"]`),
			countIs(`#messages li.msg`, 2)))
	})

	t.Run("a link to nothing says so", func(t *testing.T) {
		require.NoError(t, within(tab(t), 5*time.Second,
			chromedp.Navigate(srv.URL()+"/?to=12ab"),
			textHas(`#notices`, "is not a phone number")))
		require.NoError(t, within(tab(t), 5*time.Second,
			chromedp.Navigate(srv.URL()+"/?message=65a1b2c3d4e5f60718293a4b-0"),
			textHas(`#notices`, "cannot be shown")))
	})

	t.Run("a link's text is quoted with its control characters written out", func(t *testing.T) {
		ctx := tab(t)
		require.NoError(t, within(ctx, 5*time.Second,
			chromedp.Navigate(srv.URL()+"/?to="+url.QueryEscape("12\u202eab")),
			textHas(`#notices`, "is not a phone number")))
		notice := text(ctx, t, `#notices`)
		assert.Contains(t, notice, `“12\u{202E}ab”`)
		assert.NotContains(t, notice, "\u202e")
	})

	t.Run("a number with no message in the workspace linked, but some in others, says so", func(t *testing.T) {
		client, err := sms.NewClient(other.LiveKey, other.LiveSecret, sms.WithBaseURL(srv.URL()))
		require.NoError(t, err)
		_, err = client.SMS.Send(t.Context(), &sms.SendParams{To: []string{"08077777777"}, From: other.SenderID, Message: "only here"})
		require.NoError(t, err)
		require.NoError(t, within(tab(t), 5*time.Second,
			chromedp.Navigate(srv.URL()+"/?workspace="+srv.Default().WorkspaceID+"&to=08077777777"),
			textHas(`#notices`, "other workspaces have 1 message to it")))
	})
}
