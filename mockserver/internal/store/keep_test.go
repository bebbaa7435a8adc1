package store

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestSendKeepsCopies holds Send to its word that a campaign keeps copies of the request's
// strings: the decoder hands it views of the request's body, and a view kept would keep the
// whole body (up to 1 MiB) for as long as the campaign is stored.
func TestSendKeepsCopies(t *testing.T) {
	t.Parallel()
	st, c := newTestStore(t, nil)
	body := strings.Repeat(" ", 64<<10) + DefaultSenderID + "Your code is ready." + "order-17"
	from, rest := body[64<<10:][:len(DefaultSenderID)], body[64<<10+len(DefaultSenderID):]
	message, ref := rest[:len("Your code is ready.")], rest[len("Your code is ready."):]
	in := func(s string) bool {
		p, start := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(body)))
		return len(s) > 0 && p >= start && p < start+uintptr(len(body))
	}
	require.True(t, in(from) && in(message) && in(ref), "the test's strings are views of its body")

	for range 2 { // the second campaign shares the first's text
		_, err := st.Send(c, SendParams{From: from, Message: message, Reference: ref, Targets: []Target{{Phone: 2348025671695}}}, testNow)
		require.NoError(t, err)
	}
	page, _ := st.Campaigns(c, 1, 10, testNow.UnixNano())
	require.Len(t, page, 2)
	for _, cp := range page {
		require.Equal(t, DefaultSenderID, cp.SenderID)
		require.Equal(t, "Your code is ready.", cp.Text())
		require.Equal(t, "order-17", cp.Reference)
		require.False(t, in(cp.SenderID) || in(cp.Text()) || in(cp.Reference), "a campaign keeps a view of the request's body")
	}
	require.Same(t, unsafe.StringData(page[0].Text()), unsafe.StringData(page[1].Text()), "one text stored for two campaigns that send it")
}
