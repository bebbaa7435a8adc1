package sms_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

func TestNewClientCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key, secret string
		ok                bool
	}{
		{"live pair", "pk_live_abc", "sk_live_def", true},
		{"test pair", "pk_test_abc", "sk_test_def", true},
		{"live key, test secret", "pk_live_abc", "sk_test_def", false},
		{"test key, live secret", "pk_test_abc", "sk_live_def", false},
		{"no key", "", "sk_live_def", false},
		{"no secret", "pk_live_abc", "", false},
		{"unknown prefix", "pk_prod_abc", "sk_prod_def", false},
		{"prefix only", "pk_live_", "sk_live_def", false},
		{"secret prefix only", "pk_live_abc", "sk_live_", false},
		{"swapped", "sk_live_def", "pk_live_abc", false},
		{"header injection", "pk_live_abc\r\nX-Evil: 1", "sk_live_def", false},
		{"space in secret", "pk_live_abc", "sk_live_de f", false},
		// The pages never state the alphabet after the prefix: any printable text is taken.
		{"underscore, hyphen and padding", "pk_live_a_b-c=", "sk_live_d_e-f==", true},
		{"base64 secret", "pk_test_Zm9v+YmFy/", "sk_test_YmF6+cXV4/Q==", true},
		{"tab in key", "pk_live_ab\tc", "sk_live_def", false},
		{"trailing newline in secret", "pk_live_abc", "sk_live_def\n", false},
		{"NUL in secret", "pk_live_abc", "sk_live_d\x00ef", false},
		{"no-break space", "pk_live_ab\u00a0c", "sk_live_def", false},
		{"invalid UTF-8", "pk_live_ab\xffc", "sk_live_def", false},
		{"DEL", "pk_live_abc", "sk_live_de\x7ff", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := sms.NewClient(tt.key, tt.secret, sms.WithBaseURL("https://api.example.com"))
			if tt.ok {
				require.NoError(t, err)
				assert.NotNil(t, c.SMS)
				return
			}
			require.Error(t, err)
			assert.Nil(t, c)
			if len(tt.secret) > len("sk_live_") {
				assert.NotContains(t, err.Error(), tt.secret, "errors never repeat the secret")
			}
		})
	}
}

func TestNewDashboardClientToken(t *testing.T) {
	t.Parallel()
	for _, tok := range []string{"", "abc", "a.b", "a.b.c.d", "a..c", "a.b.c d", "a.b.c\n", "Bearer a.b.c"} {
		_, err := sms.NewDashboardClient(tok, sms.WithBaseURL("https://api.example.com"))
		require.Error(t, err, "%q", tok)
		if tok != "" {
			assert.NotContains(t, err.Error(), tok)
		}
	}
	d, err := sms.NewDashboardClient(fakeJWT, sms.WithBaseURL("https://api.example.com"))
	require.NoError(t, err)
	assert.NotNil(t, d.Keys)
}

func TestBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		opts []sms.Option
		ok   bool
	}{
		{"https://api.example.com", nil, true},
		{"https://api.example.com/", nil, true},
		{"https://api.example.com/prefix", nil, true},
		{"http://127.0.0.1:4010", nil, true},
		{"http://127.5.6.7", nil, true},
		{"http://[::1]:4010", nil, true},
		{"http://localhost:4010", nil, true},
		{"http://LOCALHOST", nil, true},
		{"http://api.example.com", nil, false},
		{"http://10.0.0.1", nil, false},
		{"http://api.example.com", []sms.Option{sms.WithInsecureHTTP()}, true},
		{"ftp://api.example.com", nil, false},
		{"api.example.com", nil, false},
		{"https://", nil, false},
		{"https://user:pass@api.example.com", nil, false},
		{"https://api.example.com?x=1", nil, false},
		{"https://api.example.com#frag", nil, false},
		{"https://api.example.com/%zz", nil, false},
	}
	for _, tt := range tests {
		opts := append([]sms.Option{sms.WithBaseURL(tt.url)}, tt.opts...)
		_, err := sms.NewClient(fakeKey, fakeSecret, opts...)
		if tt.ok {
			assert.NoError(t, err, tt.url)
			continue
		}
		if assert.Error(t, err, tt.url) {
			assert.NotContains(t, err.Error(), "pass", "the URL is not repeated")
		}
	}
}

func TestBaseURLFromEnvironment(t *testing.T) {
	t.Setenv(sms.BaseURLEnv, "")
	_, err := sms.NewClient(fakeKey, fakeSecret)
	require.ErrorContains(t, err, "no base URL")
	_, err = sms.NewDashboardClient(fakeJWT)
	require.ErrorContains(t, err, "no base URL")

	srv := mockserver.NewTest(t)
	t.Setenv(sms.BaseURLEnv, srv.URL())
	ws := srv.Default()
	c, err := sms.NewClient(ws.TestKey, ws.TestSecret)
	require.NoError(t, err)
	_, err = c.Balance.Get(context.Background(), nil)
	require.NoError(t, err)

	c, err = sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL("http://127.0.0.1:1"), sms.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Balance.Get(context.Background(), nil)
	require.Error(t, err, "WithBaseURL wins over the environment")
}

func TestBaseURLPathPrefix(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	var paths []string
	var mu sync.Mutex
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		http.StripPrefix("/gateway/sms", srv.Handler()).ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	ws := srv.Default()
	c, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(front.URL+"/gateway/sms/"), sms.WithHTTPClient(front.Client()))
	require.NoError(t, err)

	_, err = c.Campaigns.List(context.Background(), &sms.ListCampaignsParams{Page: 2, Limit: 5})
	require.NoError(t, err)
	mu.Lock()
	assert.Equal(t, []string{"/gateway/sms/v1/sms/campaigns"}, paths)
	mu.Unlock()
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "limit=5&page=2", reqs[0].Query)
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	ctx := context.Background()
	_, err := newClient(t, srv).Balance.Get(ctx, nil)
	require.NoError(t, err)
	_, err = newClient(t, srv, sms.WithUserAgent("shop/2.0")).SMS.Send(ctx, &sms.SendParams{To: []string{"2348025671695"}, From: "MOCKSMS", Message: "hi"})
	require.NoError(t, err)
	_, err = newDashboardClient(t, srv).Keys.List(ctx, nil)
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	get, post, dash := http.Header(reqs[0].Headers), http.Header(reqs[1].Headers), http.Header(reqs[2].Headers)
	assert.Equal(t, srv.Default().TestKey, get.Get("X-API-Key"))
	assert.Equal(t, "[REDACTED]", get.Get("X-API-Secret"), "the secret was sent (and redacted by the mock)")
	assert.Equal(t, "application/json", get.Get("Accept"))
	assert.Equal(t, "sms-go/"+sms.Version(), get.Get("User-Agent"))
	assert.Regexp(t, `^[0-9]+\.[0-9]+\.[0-9]+$`, sms.Version(), "a release without its v")
	assert.Empty(t, get.Get("Content-Type"), "no body, no Content-Type")
	assert.Empty(t, get.Get("Authorization"))
	assert.Empty(t, reqs[0].Query, "credentials never go in the URL")

	assert.Equal(t, "application/json", post.Get("Content-Type"))
	assert.Equal(t, "shop/2.0", post.Get("User-Agent"))

	assert.Equal(t, "[REDACTED]", dash.Get("Authorization"))
	assert.Empty(t, dash.Get("X-API-Key"))
}

func TestClientIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			if i%2 == 0 {
				_, err := client.Balance.Get(context.Background(), nil)
				errs <- err
				return
			}
			_, err := client.SMS.Send(context.Background(), &sms.SendParams{To: []string{"2348025671695"}, From: "MOCKSMS", Message: "hi"})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	assert.Equal(t, int64(mockserver.DefaultBalance-10*320), balance(t, srv))
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	c, _, ct := offlineClients(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Balance.Get(ctx, nil)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, errors.Is(err, sms.ErrOutcomeUnknown))
	assert.Equal(t, int32(0), ct.N.Load(), "nothing sent with a cancelled context")
}

// The error of a send whose outcome is unknown says how it may be repeated, according to
// what the client was told about reference deduplication; other calls say nothing more.
func TestOutcomeUnknownTellsHowToRepeat(t *testing.T) {
	t.Parallel()
	lost := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, io.ErrUnexpectedEOF })
	for _, dedup := range []bool{false, true} {
		opts := []sms.Option{sms.WithMaxRetries(1), sms.WithRetryWait(0, 0)}
		if dedup {
			opts = append(opts, sms.WithReferenceDeduplication())
		}
		c := newClientFor(t, lost, opts...)
		_, err := c.SMS.Send(context.Background(), &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "hi", Reference: "order-9"})
		require.ErrorIs(t, err, sms.ErrOutcomeUnknown)
		assert.Contains(t, err.Error(), `the same Reference "order-9"`)
		if dedup {
			assert.Contains(t, err.Error(), "the server deduplicates references")
		} else {
			assert.Contains(t, err.Error(), "it was not retried")
			assert.Contains(t, err.Error(), "only if it does (see WithReferenceDeduplication)")
		}
		_, err = c.OTP.Send(context.Background(), &sms.SendOTPParams{To: "08025671695", From: "ACME"})
		require.ErrorIs(t, err, sms.ErrOutcomeUnknown)
		assert.NotContains(t, err.Error(), "Reference")
	}
}

func TestSuccessBodyIsDecodedStrictlyEnough(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`not json`, `{"data":{"balance":"3.20 NGN"}}`, `{"data":{"balance":1e30}}`, `{"data":{"balance":true}}`} {
		c := newClientFor(t, &answer{status: 200, header: http.Header{}, body: []byte(body)})
		_, err := c.Balance.Get(context.Background(), nil)
		require.Error(t, err, body)
		assert.Contains(t, err.Error(), "decoding the 200 response", body)
	}
}

// without returns the JSON document body without the member at path ("data.pinId",
// "data[0]._id", "pagination"); an empty path returns {}.
func without(t *testing.T, body, path string) []byte {
	t.Helper()
	if path == "" {
		return []byte(`{}`)
	}
	var doc any
	require.NoError(t, json.Unmarshal([]byte(body), &doc))
	parts := strings.Split(strings.ReplaceAll(path, "[0]", ".0"), ".")
	node := doc
	for _, p := range parts[:len(parts)-1] {
		if p == "0" {
			node = node.([]any)[0]
		} else {
			node = node.(map[string]any)[p]
		}
	}
	obj := node.(map[string]any)
	_, ok := obj[parts[len(parts)-1]]
	require.True(t, ok, "%s is in the body", path)
	delete(obj, parts[len(parts)-1])
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

// A success body missing a member the result is built from is a decoding error naming it,
// for every method, never a result with empty ids; a body missing any other member decodes
// (the tolerant reader).
func TestSuccessBodyMissingMembers(t *testing.T) {
	t.Parallel()
	const (
		campaign  = `{"_id":"c1","senderId":"ACME","recipientCount":1,"amount":3.20,"status":"sent","currency":"NGN","channel":"generic","smsParts":1,"messageId":"m1","reference":null,"createdAt":"2026-01-01T00:00:00Z"}`
		sent      = `{"message":"SMS request accepted.","campaign":{"id":"c1","status":"sent","message_id":"m1","recipients":1,"amount":3.20,"currency":"NGN","sms_parts":1},"requestId":"r"}`
		page      = `"pagination":{"page":1,"limit":20,"total":1},"requestId":"r"`
		senderID  = `{"_id":"s1","title":"ACME","status":"pending","country":"Nigeria","usecase":"alerts","company":"Acme","createdAt":"2026-01-01T00:00:00Z"}`
		keyFields = `"_id":"k1","name":"ci","prefix":"pk_test","publicKey":"pk_test_abc","scopes":{"sms":true},"createdAt":"2026-01-01T00:00:00Z","expiresAt":null,"lastUsedAt":null`
	)
	ctx := context.Background()
	first := func(seq func(func(sms.Campaign, error) bool)) error {
		for _, err := range seq {
			return err
		}
		return nil
	}
	type callFunc func(*sms.Client, *sms.DashboardClient) error
	tests := []struct {
		name     string
		status   int
		body     string
		call     callFunc
		members  []string // each removed in turn; "" stands for the body {}
		optional []string // each removed in turn, the body still decodes
	}{
		{"SMS.Send", 202, sent, func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: "ACME", Message: "hi"})
			return err
		}, []string{"", "campaign.id", "campaign.status"}, []string{"message", "campaign.message_id", "campaign.recipients", "campaign.amount", "campaign.currency", "campaign.sms_parts", "requestId"}},
		{"Campaigns.Create", 202, sent, func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.Create(ctx, &sms.CreateCampaignParams{To: []sms.Recipient{{Phone: "08025671695"}}, From: "ACME", Message: "hi"})
			return err
		}, []string{"", "campaign.id", "campaign.status"}, nil},
		{"Campaigns.List", 200, `{"data":[` + campaign + `],` + page + `}`, func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.Campaigns.List(ctx, nil)
			return err
		}, []string{"", "data", "data[0]._id", "data[0].status"}, []string{"data[0].smsParts", "data[0].createdAt", "data[0].currency", "requestId", "pagination"}},
		{"Campaigns.All", 200, `{"data":[` + campaign + `],` + page + `}`, func(c *sms.Client, _ *sms.DashboardClient) error {
			return first(c.Campaigns.All(ctx, nil))
		}, []string{"", "data", "data[0]._id", "data[0].status"}, []string{"pagination"}},
		{"Campaigns.Delivery", 200, `{"data":{"campaignId":"c1","messageId":"m1","status":"sent","counts":{"sent":1,"delivered":0,"failed":0,"dnd":0},"recipients":[{"to":"2348025671695","status":"sent","updatedAt":"2026-01-01T00:00:00Z"}]},` + page + `}`,
			func(c *sms.Client, _ *sms.DashboardClient) error {
				_, err := c.Campaigns.Delivery(ctx, "c1", nil)
				return err
			}, []string{"", "data.status", "data.recipients[0].to", "data.recipients[0].status"}, []string{"data.campaignId", "data.messageId", "data.counts", "data.recipients[0].updatedAt", "pagination"}},
		{"OTP.Send", 200, `{"data":{"smsStatus":"Message Sent","phone_number":"2348025671695","pinId":"p1","status":"200","amount":3.20,"currency":"NGN"},"requestId":"r"}`,
			func(c *sms.Client, _ *sms.DashboardClient) error {
				_, err := c.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: "ACME", Message: "< 1234 >"})
				return err
			}, []string{"", "data.pinId"}, []string{"data.amount", "data.currency", "data.phone_number", "data.smsStatus", "requestId"}},
		{"OTP.Verify", 200, `{"data":{"pinId":"p1","verified":false,"msisdn":"2348025671695","attemptsRemaining":4},"requestId":"r"}`,
			func(c *sms.Client, _ *sms.DashboardClient) error {
				_, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "p1", Pin: "123456"})
				return err
			}, []string{"", "data.verified"}, []string{"data.pinId", "data.msisdn", "data.attemptsRemaining", "requestId"}},
		{"Balance.Get", 200, `{"data":{"balance":10000.00,"cashback":0.00,"currency":"NGN"},"requestId":"r"}`,
			func(c *sms.Client, _ *sms.DashboardClient) error {
				_, err := c.Balance.Get(ctx, nil)
				return err
			}, []string{"", "data.balance"}, []string{"data.currency", "data.cashback", "requestId"}},
		{"SenderIDs.Request", 201, `{"message":"ok","data":` + senderID + `,"requestId":"r"}`, func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{SenderID: "ACME", UseCase: "alerts", Company: "Acme"})
			return err
		}, []string{"", "data.title", "data.status"}, []string{"data._id", "data.createdAt", "data.country", "message"}},
		{"SenderIDs.List", 200, `{"data":[` + senderID + `],"count":1,"requestId":"r"}`, func(c *sms.Client, _ *sms.DashboardClient) error {
			_, err := c.SenderIDs.List(ctx, nil)
			return err
		}, []string{"", "data", "data[0].title", "data[0].status"}, []string{"data[0]._id", "data[0].createdAt", "count", "requestId"}},
		{"Keys.Create", 201, `{"data":{` + keyFields + `,"revokedAt":null,"secret":"sk_test_def"},"requestId":"r"}`, func(_ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.Create(ctx, &sms.CreateKeyParams{Name: "ci", Scopes: sms.Scopes{sms.ScopeSMS}})
			return err
		}, []string{"", "data._id", "data.publicKey", "data.secret"}, []string{"data.createdAt", "data.expiresAt", "data.name", "requestId"}},
		{"Keys.List", 200, `{"data":[{` + keyFields + `,"revokedAt":null}],"count":1,"requestId":"r"}`, func(_ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.List(ctx, nil)
			return err
		}, []string{"", "data", "data[0]._id", "data[0].publicKey"}, []string{"data[0].createdAt", "data[0].lastUsedAt", "count"}},
		{"Keys.Revoke", 200, `{"data":{` + keyFields + `,"revokedAt":"2026-01-02T00:00:00Z"},"requestId":"r"}`, func(_ *sms.Client, d *sms.DashboardClient) error {
			_, err := d.Keys.Revoke(ctx, "k1", nil)
			return err
		}, []string{"", "data._id", "data.revokedAt"}, []string{"data.createdAt", "data.publicKey"}},
	}
	clients := func(t *testing.T, status int, body []byte) (*sms.Client, *sms.DashboardClient) {
		return newClientsFor(t, &answer{status: status, body: body}, sms.WithMaxRetries(0))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, tt.call(clients(t, tt.status, []byte(tt.body))), "the whole body decodes")
			for _, m := range tt.members {
				err := tt.call(clients(t, tt.status, without(t, tt.body, m)))
				want := m
				if m == "" {
					want = tt.members[1] // the first member checked
				}
				require.Error(t, err, "without %q", m)
				assert.Contains(t, err.Error(), `the member "`+want+`" is missing`, "without %q", m)
			}
			for _, m := range tt.optional {
				assert.NoError(t, tt.call(clients(t, tt.status, without(t, tt.body, m))), "without %q", m)
			}
		})
	}
}

// idleCounter answers like answer and counts CloseIdleConnections calls.
type idleCounter struct {
	answer
	closed atomic.Int32
}

func (i *idleCounter) CloseIdleConnections() { i.closed.Add(1) }

func TestCloseIdleConnections(t *testing.T) {
	t.Parallel()
	t.Run("given transport", func(t *testing.T) {
		t.Parallel()
		tr := &idleCounter{answer: answer{status: 200, body: []byte(`{"data":[],"count":0,"requestId":"r"}`)}}
		c, d := newClientsFor(t, tr)
		_, err := c.SenderIDs.List(context.Background(), nil)
		require.NoError(t, err)
		require.Zero(t, tr.closed.Load())
		c.CloseIdleConnections()
		assert.Equal(t, int32(1), tr.closed.Load())
		_, err = d.Keys.List(context.Background(), nil)
		require.NoError(t, err)
		d.CloseIdleConnections()
		assert.Equal(t, int32(2), tr.closed.Load())
		var nilClient *sms.Client
		nilClient.CloseIdleConnections() // no panic
	})
	t.Run("default transport", func(t *testing.T) {
		t.Parallel()
		states := make(chan http.ConnState, 8) // the server's connections going idle or closed
		ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"data":{"balance":1.00,"cashback":0.00,"currency":"NGN"},"requestId":"r"}`)
		}))
		ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateIdle || s == http.StateClosed {
				states <- s
			}
		}
		next := func(why string) http.ConnState {
			t.Helper()
			select {
			case s := <-states:
				return s
			case <-time.After(5 * time.Second):
				t.Fatalf("no connection state after 5s: %s", why)
				return 0
			}
		}
		ts.Start()
		t.Cleanup(ts.Close)
		c, err := sms.NewClient(fakeKey, fakeSecret, sms.WithBaseURL(ts.URL)) // the SDK's own pooled transport
		require.NoError(t, err)
		_, err = c.Balance.Get(context.Background(), nil)
		require.NoError(t, err)
		require.Equal(t, http.StateIdle, next("the connection is kept idle"))
		require.Empty(t, states, "nothing else happened to the connection")
		c.CloseIdleConnections()
		assert.Equal(t, http.StateClosed, next("the idle connection is closed"))
	})
}

func TestNothingPrintsSecrets(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	ws := srv.Default()
	ctx := context.Background()
	client := newClient(t, srv)
	dash := newDashboardClient(t, srv)

	key, err := dash.Keys.Create(ctx, &sms.CreateKeyParams{Name: "printed", Scopes: sms.Scopes{sms.ScopeSMS}})
	require.NoError(t, err)
	require.NotEmpty(t, key.Secret)
	_, apiErr := newScopedClient(t, srv, sms.ScopeSMS).Balance.Get(ctx, nil)
	require.Error(t, apiErr)
	_, badErr := sms.NewClient(ws.TestKey, ws.TestSecret+"!")
	require.Error(t, badErr)
	_, valErr := client.SMS.Send(ctx, &sms.SendParams{})
	require.Error(t, valErr)
	keys, err := dash.Keys.List(ctx, nil)
	require.NoError(t, err)

	values := []any{client, *client, client.SMS, *client.OTP, dash, *dash, dash.Keys, key, *key, []sms.Key{*key}, keys, apiErr, badErr, valErr}
	secrets := []string{ws.TestSecret, ws.DashboardToken, key.Secret}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		for _, v := range values {
			out := fmt.Sprintf(verb, v)
			for _, s := range secrets {
				assert.NotContains(t, out, s, "%s of %T", verb, v)
			}
		}
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("values", "client", client, "dash", dash, "key", key, "keys", keys,
		"verify", &sms.VerifyOTPParams{PinID: "p", Pin: "SECRETPIN"})
	for _, s := range append(secrets, "SECRETPIN") {
		assert.NotContains(t, logged.String(), s, "slog")
	}
	assert.Contains(t, fmt.Sprint(key), key.PublicKey)
	assert.Contains(t, fmt.Sprint(key), "[REDACTED]")
	assert.Contains(t, fmt.Sprint(client), srv.URL())
}

// TestSecretsNeverLeak runs a whole session — keys, sends, OTPs, every kind of error, a
// dropped connection — with debug logging on in the SDK and the mock, then searches every log
// line, every error string and %v/%+v/%#v of the clients, params, results and errors, and
// /_mock/requests for API secrets, JWTs and OTP pins, and the log lines for full phone
// numbers.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := mockserver.NewTest(t, mockserver.WithLogger(logger))
	ws := srv.Default()
	ctx := context.Background()
	logged := sms.WithLogger(logger)

	var printed bytes.Buffer // everything a user might print
	show := func(vs ...any) {
		for _, v := range vs {
			fmt.Fprintf(&printed, "%v\n%+v\n%#v\n%s\n", v, v, v, v)
			if err, ok := v.(error); ok && err != nil {
				printed.WriteString(err.Error() + "\n")
			}
		}
	}

	dash := newDashboardClient(t, srv, logged)
	keyParams := &sms.CreateKeyParams{Name: "ci", Scopes: sms.Scopes{sms.ScopeSMS, sms.ScopeOTP}, Prefix: sms.KeyPrefixTest}
	key, err := dash.Keys.Create(ctx, keyParams)
	require.NoError(t, err)
	keys, err := dash.Keys.List(ctx, nil)
	require.NoError(t, err)
	show(dash, *dash, keyParams, key, *key, keys)

	client := newClientOf(t, srv, key.PublicKey, key.Secret, logged)
	live := newClientOf(t, srv, ws.LiveKey, ws.LiveSecret, logged)
	show(client, *client, live)

	phones := []string{"08025671695", "+2348025671696", "447700900123"}
	full := []string{"2348025671695", "08025671695", "2348025671696", "447700900123"}
	sendParams := &sms.SendParams{To: phones, From: "MOCKSMS", Message: "hello"}
	res, err := client.SMS.Send(ctx, sendParams)
	require.NoError(t, err)
	show(sendParams, res)

	var pins []string
	otpParams := &sms.SendOTPParams{To: phones[0], From: "MOCKSMS", Message: "Code: < 1234 >"}
	otp, err := client.OTP.Send(ctx, otpParams)
	require.NoError(t, err)
	_, pin, err := srv.LatestOTP(phones[0])
	require.NoError(t, err)
	pins = append(pins, pin)
	wrong := &sms.VerifyOTPParams{PinID: otp.PinID, Pin: flip(pin)}
	pins = append(pins, wrong.Pin)
	v, err := client.OTP.Verify(ctx, wrong)
	require.NoError(t, err)
	right := &sms.VerifyOTPParams{PinID: otp.PinID, Pin: pin}
	v2, err := client.OTP.Verify(ctx, right)
	require.NoError(t, err)
	require.True(t, v2.Verified)
	_, reused := client.OTP.Verify(ctx, right) // 400: already verified
	show(otpParams, otp, wrong, right, v, v2, reused)

	// Errors of every kind, each printed.
	badSecret := "sk_test_" + strings.Repeat("Z", 40)
	impostor := newClientOf(t, srv, key.PublicKey, badSecret, logged)
	_, e401 := impostor.Balance.Get(ctx, nil)
	_, e403 := client.Balance.Get(ctx, nil)
	_, e404 := client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: "00000000-0000-0000-0000-000000000000", Pin: "123456"})
	require.NoError(t, srv.SetBalance(ws.WorkspaceID, mockserver.ModeTest, 0))
	_, e402 := client.SMS.Send(ctx, sendParams)
	_, eLocal := client.SMS.Send(ctx, &sms.SendParams{To: []string{"12"}, From: "MOCKSMS", Message: "x"})
	badJWT := ws.DashboardToken[:len(ws.DashboardToken)-4] + "AAAA"
	badDash, err := sms.NewDashboardClient(badJWT, mockOpts(t, srv, logged)...)
	require.NoError(t, err)
	_, eJWT := badDash.Keys.List(ctx, nil)
	require.NoError(t, srv.SetBalance(ws.WorkspaceID, mockserver.ModeTest, 1_000_000))
	otp2, err := client.OTP.Send(ctx, otpParams)
	require.NoError(t, err)
	_, pin2, err := srv.LatestOTP(phones[0])
	require.NoError(t, err)
	pins = append(pins, pin2)
	srv.AddFaults(mockserver.FaultRule{Path: "/v1/otp/verify", Drop: true, Times: 1})
	dropped := &sms.VerifyOTPParams{PinID: otp2.PinID, Pin: pin2}
	_, eDrop := client.OTP.Verify(ctx, dropped)
	_, eCred := sms.NewClient(key.PublicKey, "sk_live_"+key.Secret[len("sk_test_"):], mockOpts(t, srv, logged)...)
	for _, e := range []error{e401, e403, e404, e402, eLocal, eJWT, eDrop, eCred} {
		require.Error(t, e)
	}
	assert.ErrorIs(t, eDrop, sms.ErrOutcomeUnknown)
	show(e401, e403, e404, e402, eLocal, eJWT, eDrop, eCred, impostor, badDash, dropped)

	// What the mock recorded, in Go and over HTTP.
	recorded, err := json.Marshal(srv.Requests())
	require.NoError(t, err)
	resp, err := http.Get(srv.URL() + "/_mock/requests")
	require.NoError(t, err)
	overHTTP, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)

	secrets := map[string]string{
		"live secret": ws.LiveSecret, "test secret": ws.TestSecret, "created key's secret": key.Secret,
		"wrong secret": badSecret, "dashboard JWT": ws.DashboardToken, "tampered JWT": badJWT,
		"JWT signature": ws.DashboardToken[strings.LastIndexByte(ws.DashboardToken, '.')+1:],
	}
	for i, p := range pins {
		secrets[fmt.Sprintf("pin %d", i)] = p
	}
	logText := logs.String()
	require.NotEmpty(t, logText, "debug logging produced nothing to check")
	require.Contains(t, logText, "/v1/otp/verify", "the SDK logged its requests")
	places := map[string]string{"log lines": logText, "printed values": printed.String(),
		"/_mock/requests": string(recorded), "GET /_mock/requests": string(overHTTP)}
	for where, text := range places {
		for what, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("the %s appears in %s", what, where)
			}
		}
	}
	for _, line := range strings.Split(logText, "\n") {
		for _, number := range full {
			if strings.Contains(line, number) {
				t.Errorf("a full phone number in a log line: %s", line)
			}
		}
	}
}

// flip returns a pin of the same length that differs from pin.
func flip(pin string) string {
	b := []byte(pin)
	if b[0] == '0' {
		b[0] = '1'
	} else {
		b[0] = '0'
	}
	return string(b)
}
