package sms_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/mockserver"
)

const (
	testKey    = "pk_test_abc123"
	testSecret = "sk_test_SECRETdef456"
	testJWT    = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.SIGNATUREsig"
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
	d, err := sms.NewDashboardClient(testJWT, sms.WithBaseURL("https://api.example.com"))
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
		_, err := sms.NewClient(testKey, testSecret, opts...)
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
	_, err := sms.NewClient(testKey, testSecret)
	require.ErrorContains(t, err, "no base URL")
	_, err = sms.NewDashboardClient(testJWT)
	require.ErrorContains(t, err, "no base URL")

	srv := mockserver.NewTest(t)
	t.Setenv(sms.BaseURLEnv, srv.URL())
	ws := srv.Default()
	c, err := sms.NewClient(ws.TestKey, ws.TestSecret)
	require.NoError(t, err)
	_, err = c.Balance.Get(context.Background())
	require.NoError(t, err)

	c, err = sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL("http://127.0.0.1:1"), sms.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Balance.Get(context.Background())
	require.Error(t, err, "WithBaseURL wins over the environment")
}

func TestOptionErrors(t *testing.T) {
	t.Parallel()
	for _, o := range []sms.Option{sms.WithMaxRetries(-1), sms.WithRetryWait(-time.Second, time.Second), sms.WithRetryWait(2*time.Second, time.Second)} {
		_, err := sms.NewClient(testKey, testSecret, sms.WithBaseURL("https://api.example.com"), o)
		assert.Error(t, err)
		_, err = sms.NewDashboardClient(testJWT, sms.WithBaseURL("https://api.example.com"), o)
		assert.Error(t, err)
	}
}

func TestBaseURLPathPrefix(t *testing.T) {
	t.Parallel()
	srv := mockserver.New()
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
	_, err := newClient(t, srv).Balance.Get(ctx)
	require.NoError(t, err)
	_, err = newClient(t, srv, sms.WithUserAgent("shop/2.0")).SMS.Send(ctx, &sms.SendParams{To: []string{"2348025671695"}, From: "MOCKSMS", Message: "hi"})
	require.NoError(t, err)
	_, err = newDashboardClient(t, srv).Keys.List(ctx)
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	get, post, dash := http.Header(reqs[0].Headers), http.Header(reqs[1].Headers), http.Header(reqs[2].Headers)
	assert.Equal(t, srv.Default().TestKey, get.Get("X-API-Key"))
	assert.Equal(t, "[REDACTED]", get.Get("X-API-Secret"), "the secret was sent (and redacted by the mock)")
	assert.Equal(t, "application/json", get.Get("Accept"))
	assert.Equal(t, "sms-go/"+sms.Version, get.Get("User-Agent"))
	assert.Empty(t, get.Get("Content-Type"), "no body, no Content-Type")
	assert.Empty(t, get.Get("Authorization"))
	assert.Empty(t, reqs[0].Query, "credentials never go in the URL")

	assert.Equal(t, "application/json", post.Get("Content-Type"))
	assert.Equal(t, "shop/2.0", post.Get("User-Agent"))

	assert.Equal(t, "[REDACTED]", dash.Get("Authorization"))
	assert.Empty(t, dash.Get("X-API-Key"))
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
	_, apiErr := newScopedClient(t, srv, sms.ScopeSMS).Balance.Get(ctx)
	require.Error(t, apiErr)
	_, badErr := sms.NewClient(ws.TestKey, ws.TestSecret+"!")
	require.Error(t, badErr)
	_, valErr := client.SMS.Send(ctx, &sms.SendParams{})
	require.Error(t, valErr)
	keys, err := dash.Keys.List(ctx)
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

func TestClientIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	client := newClient(t, srv)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			if i%2 == 0 {
				_, err := client.Balance.Get(context.Background())
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
	_, err := c.Balance.Get(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, errors.Is(err, sms.ErrOutcomeUnknown))
	assert.Equal(t, int32(0), ct.n.Load(), "nothing sent with a cancelled context")
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
	for _, body := range []string{`not json`, `{"data":{"balance":"3.20"}}`, `{"data":{"balance":1e30}}`, `{"data":{"balance":true}}`} {
		c := newClientFor(t, &answer{status: 200, header: http.Header{}, body: []byte(body)})
		_, err := c.Balance.Get(context.Background())
		require.Error(t, err, body)
		assert.Contains(t, err.Error(), "decoding the 200 response", body)
	}
}
