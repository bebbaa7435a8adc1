package mockserver_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzInboxQueries feeds arbitrary query strings to GET /_mock/messages and
// /_mock/conversations over a store of a few sends (two workspaces, both modes, an OTP, a
// personalised campaign) and checks that the answer is a documented one: 200 or 400 with the
// contract's shape (never a 5xx), and for 200, that the two lists agree: the messages newest
// first, each number's conversation where its newest message is, with as many messages as
// the list holds for it; and that the index's answer (unfiltered, by workspace or campaign)
// is the scan's (the same query with a since= before every message).
func FuzzInboxQueries(f *testing.F) {
	e := newInProcessEnv(f)
	other := e.newWorkspace()
	e.send(sms([]string{num(1), num(2), num(3)}, "message", "Hello there"))
	e.send(sms(num(2), "message", "second to two"), e.test())
	id := e.campaign(sms([]any{M{"phone": num(4), "name": "Ada"}, M{"phone": num(1), "name": "Bo"}}, "message", "Hi {{name}}!")).str("campaign.id")
	e.send(sms(num(1), "message", "other workspace"), withKey(other.LiveKey, other.LiveSecret))
	e.otp(otpBody(num(5)))
	for _, q := range []string{
		"", "limit=1", "page=2&limit=2", "to=0800000000" + "1", "to=%2B2348000000002", "contains=HI", "contains=ada",
		"kind=otp", "kind=sms&mode=test", "from=mocksms", "campaignId=" + id, "workspaceId=" + other.WorkspaceID,
		"workspaceId=" + e.ws.WorkspaceID + "&to=2348000000001", "since=2262-04-12T00:00:00Z", "since=2026-03-04T05:06:05Z",
		"limit=100&page=9223372036854775807", "to=", "campaignId=" + id + "&workspaceId=" + other.WorkspaceID,
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil || q.Has("wait") {
			return // a wait waits; a query the server cannot parse is dropped by net/url alike
		}
		te := *e
		te.t = t
		get := func(path string, q url.Values) *resp {
			r, err := te.try(http.MethodGet, path+"?"+q.Encode(), nil)
			require.NoError(t, err)
			require.Contains(t, []int{http.StatusOK, http.StatusBadRequest}, r.Status, "%s?%s: %s", path, q.Encode(), r.Raw)
			return r
		}
		msgs, convs := get("/_mock/messages", q), get("/_mock/conversations", q)
		require.Equal(t, msgs.Status, convs.Status, "the same filters: %s", raw)
		if msgs.Status != http.StatusOK || q.Has("page") || q.Has("limit") {
			return
		}
		// Whole lists (the store holds fewer than 100), compared with each other.
		q.Set("limit", "100")
		msgs, convs = get("/_mock/messages", q), get("/_mock/conversations", q)
		require.Equal(t, http.StatusOK, msgs.Status)
		list := msgs.list("data")
		require.Len(t, list, msgs.int("pagination.total"))
		var tos []string
		count, latest := map[string]int{}, map[string]string{}
		prev := ""
		for i, m := range list {
			mid, to := m.(map[string]any)["id"].(string), m.(map[string]any)["to"].(string)
			if i > 0 {
				assert.True(t, newer(prev, mid), "newest first: %s before %s", prev, mid)
			}
			prev = mid
			if count[to] == 0 {
				tos = append(tos, to)
				latest[to] = mid
			}
			count[to]++
		}
		cl := convs.list("data")
		require.Len(t, cl, len(tos), "a conversation per number: %s", raw)
		require.Equal(t, len(tos), convs.int("pagination.total"))
		for i, c := range cl {
			c := c.(map[string]any)
			assert.Equal(t, tos[i], c["to"], "conversation %d", i)
			assert.EqualValues(t, count[tos[i]], jsonInt(t, c["count"]), "count of %s", tos[i])
			assert.Equal(t, latest[tos[i]], c["latest"].(map[string]any)["id"], "latest of %s", tos[i])
		}
		if !q.Has("since") {
			q.Set("since", "2000-01-01T00:00:00Z") // before every message: a scan, the same answer
			scan, scanConvs := get("/_mock/messages", q), get("/_mock/conversations", q)
			assert.Equal(t, msgs.Body["data"], scan.Body["data"], "index and scan: %s", raw)
			assert.Equal(t, convs.Body["data"], scanConvs.Body["data"], "index and scan: %s", raw)
		}
	})
}

// newer reports whether message id a ("<id>-<index>") comes before b, newest first: a higher
// id, or the same id and a higher index.
func newer(a, b string) bool {
	ah, ai, _ := strings.Cut(a, "-")
	bh, bi, _ := strings.Cut(b, "-")
	if ah != bh {
		return ah > bh
	}
	return len(ai) > len(bi) || len(ai) == len(bi) && ai > bi
}

// jsonInt is a JSON number decoded with UseNumber, as an integer.
func jsonInt(t *testing.T, v any) int64 {
	n, ok := v.(json.Number)
	require.True(t, ok, "%v is not a number", v)
	i, err := n.Int64()
	require.NoError(t, err)
	return i
}
