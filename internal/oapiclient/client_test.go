package oapiclient_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/internal/apitest"
	"github.com/seedsms/sms-go/internal/oapiclient"
	"github.com/seedsms/sms-go/mockserver"
)

// The client generated from api/openapi.yaml talks to the mock server: every /v1 operation is
// called and its answer must decode into the generated types, as it would for anyone who
// generates a client from the document. Every exchange is also validated against the document.

func ptr[T any](v T) *T { return &v }

// newClient returns a generated client for the mock, in-process, whose requests carry the
// headers that auth sets. Responses are validated against the document, and requests too when
// checkRequests is true (false for requests that are wrong on purpose).
func newClient(t *testing.T, srv *mockserver.Server, checkRequests bool, auth func(*http.Request)) *oapiclient.ClientWithResponses {
	t.Helper()
	hc := &http.Client{Transport: apitest.Transport(t, srv.Transport(), checkRequests)}
	c, err := oapiclient.NewClientWithResponses("http://127.0.0.1:4010",
		oapiclient.WithHTTPClient(hc),
		oapiclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			auth(r)
			return nil
		}))
	require.NoError(t, err)
	return c
}

func apiKey(public, secret string) func(*http.Request) {
	return func(r *http.Request) {
		r.Header.Set("X-API-Key", public)
		r.Header.Set("X-API-Secret", secret)
	}
}

func bearer(token string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
}

// operationIDs lists the operations of the document.
func operationIDs(t *testing.T) []string {
	t.Helper()
	var ids []string
	for _, item := range apitest.NewValidator(t).Document().Paths.Map() {
		for _, op := range item.Operations() {
			ids = append(ids, op.OperationID)
		}
	}
	slices.Sort(ids)
	return ids
}

func TestEveryOperationDecodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newServer(t)
	ws := srv.Default()
	dev := newClient(t, srv, true, apiKey(ws.LiveKey, ws.LiveSecret))
	dash := newClient(t, srv, true, bearer(ws.DashboardToken))

	var (
		called     []string
		keyID      string
		campaignID string
		pinID      string
	)
	steps := []struct {
		op  string
		run func(t *testing.T)
	}{
		{"createKey", func(t *testing.T) {
			res, err := dash.CreateKeyWithResponse(ctx, oapiclient.CreateKeyJSONRequestBody{
				Name:          "Backend",
				Scopes:        oapiclient.ScopesInput{Sms: ptr(true), Balance: ptr(true)},
				Prefix:        ptr(oapiclient.CreateKeyRequestPrefixPkTest),
				ExpiresInDays: ptr(30),
			})
			require.NoError(t, err)
			require.Equal(t, http.StatusCreated, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON201)
			k := res.JSON201.Data
			assert.Equal(t, "Backend", k.Name)
			assert.Equal(t, oapiclient.KeyWithSecretPrefixPkTest, k.Prefix)
			assert.True(t, strings.HasPrefix(k.PublicKey, "pk_test_"))
			assert.True(t, strings.HasPrefix(k.Secret, "sk_test_"))
			assert.Equal(t, oapiclient.Scopes{Sms: true, Balance: true}, k.Scopes)
			require.NotNil(t, k.ExpiresAt)
			assert.Equal(t, k.CreatedAt.AddDate(0, 0, 30), *k.ExpiresAt)
			assert.Nil(t, k.RevokedAt)
			keyID = k.UnderscoreId
		}},
		{"listKeys", func(t *testing.T) {
			res, err := dash.ListKeysWithResponse(ctx)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON200)
			assert.Equal(t, 3, res.JSON200.Count, "the default live and test keys and the new one")
			require.Len(t, res.JSON200.Data, 3)
			assert.Equal(t, keyID, res.JSON200.Data[0].UnderscoreId, "newest first")
		}},
		{"revokeKey", func(t *testing.T) {
			res, err := dash.RevokeKeyWithResponse(ctx, keyID)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON200)
			assert.Equal(t, keyID, res.JSON200.Data.UnderscoreId)
			assert.NotNil(t, res.JSON200.Data.RevokedAt)
		}},
		{"requestSenderId", func(t *testing.T) {
			res, err := dev.RequestSenderIdWithResponse(ctx, oapiclient.RequestSenderIdJSONRequestBody{
				SenderId: "MYBRAND", Usecase: "Order notifications.", Company: "My Brand Ltd",
			})
			require.NoError(t, err)
			require.Equal(t, http.StatusCreated, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON201)
			assert.Equal(t, "MYBRAND", res.JSON201.Data.Title)
			assert.Equal(t, oapiclient.Pending, res.JSON201.Data.Status)
			assert.Equal(t, "Nigeria", res.JSON201.Data.Country)
		}},
		{"listSenderIds", func(t *testing.T) {
			res, err := dev.ListSenderIdsWithResponse(ctx, &oapiclient.ListSenderIdsParams{Status: ptr(oapiclient.Active)})
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON200)
			require.Len(t, res.JSON200.Data, 1)
			assert.Equal(t, mockserver.DefaultSenderID, res.JSON200.Data[0].Title)
			assert.Equal(t, 1, res.JSON200.Count)
		}},
		{"sendSms", func(t *testing.T) {
			var to oapiclient.SendRequest_To
			require.NoError(t, to.FromSendRequestTo1([]string{"08025671695", "+2348031234567"}))
			res, err := dev.SendSmsWithResponse(ctx, oapiclient.SendSmsJSONRequestBody{
				To: to, From: mockserver.DefaultSenderID, Message: "Your order has shipped.",
				Reference: ptr("order-1042"),
			})
			require.NoError(t, err)
			require.Equal(t, http.StatusAccepted, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON202)
			c := res.JSON202.Campaign
			assert.Equal(t, oapiclient.CampaignStatusSent, c.Status)
			assert.Equal(t, 2, c.Recipients)
			assert.Equal(t, 1, c.SmsParts)
			assert.Equal(t, 6.40, c.Amount)
			assert.Equal(t, oapiclient.NGN, c.Currency)
			require.NotNil(t, c.MessageId)
			campaignID = c.Id
		}},
		{"createCampaign", func(t *testing.T) {
			var named, plain oapiclient.CampaignRecipient
			require.NoError(t, named.FromCampaignRecipient1(oapiclient.CampaignRecipient1{Phone: "2348025671695", Name: ptr("Ada")}))
			require.NoError(t, plain.FromPhoneInput("08031234568"))
			res, err := dev.CreateCampaignWithResponse(ctx, oapiclient.CreateCampaignJSONRequestBody{
				To: []oapiclient.CampaignRecipient{named, plain}, From: mockserver.DefaultSenderID,
				Message: "Hello {{name}}, our sale starts today.", Channel: ptr(oapiclient.ChannelDnd),
			})
			require.NoError(t, err)
			require.Equal(t, http.StatusAccepted, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON202)
			assert.Equal(t, 2, res.JSON202.Campaign.Recipients)
			assert.Equal(t, 9.00, res.JSON202.Campaign.Amount, "two parts at 4.50 on the dnd channel")
		}},
		{"listCampaigns", func(t *testing.T) {
			res, err := dev.ListCampaignsWithResponse(ctx, &oapiclient.ListCampaignsParams{Page: ptr(1), Limit: ptr(20)})
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON200)
			require.Len(t, res.JSON200.Data, 2)
			assert.Equal(t, oapiclient.Pagination{Page: 1, Limit: 20, Total: 2}, res.JSON200.Pagination)
			older := res.JSON200.Data[1]
			assert.Equal(t, campaignID, older.UnderscoreId)
			require.NotNil(t, older.Channel, "the full profile sends the project's members too")
			assert.Equal(t, oapiclient.CampaignListItemChannelGeneric, *older.Channel)
			require.NotNil(t, older.Reference)
			assert.Equal(t, "order-1042", *older.Reference)
			assert.Nil(t, res.JSON200.Data[0].Reference)
		}},
		{"getCampaignStatus", func(t *testing.T) {
			require.NoError(t, srv.Deliver(campaignID, &mockserver.DeliverCounts{Delivered: 1, Failed: 1}))
			res, err := dev.GetCampaignStatusWithResponse(ctx, campaignID, &oapiclient.GetCampaignStatusParams{Limit: ptr(1)})
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON200)
			d := res.JSON200.Data
			assert.Equal(t, campaignID, d.CampaignId)
			require.NotNil(t, d.MessageId)
			assert.Equal(t, oapiclient.DeliveryStatusStatusPartiallyDelivered, d.Status)
			assert.Equal(t, 1, d.Counts.Delivered)
			assert.Equal(t, 1, d.Counts.Failed)
			require.Len(t, d.Recipients, 1, "one page of one")
			assert.Equal(t, "2348025671695", d.Recipients[0].To)
			assert.Equal(t, oapiclient.RecipientStatusDelivered, d.Recipients[0].Status)
			assert.Equal(t, 2, res.JSON200.Pagination.Total)
		}},
		{"sendOtp", func(t *testing.T) {
			res, err := dev.SendOtpWithResponse(ctx, oapiclient.SendOtpJSONRequestBody{
				To: "08025671695", From: mockserver.DefaultSenderID,
				MessageText: ptr("Your code is < 1234 >."), PinLength: ptr(6),
			})
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON200)
			o := res.JSON200.Data
			assert.Equal(t, "2348025671695", o.PhoneNumber)
			assert.Equal(t, oapiclient.N200, o.Status)
			require.NotNil(t, o.Amount, "the mock sends the OTP's cost")
			assert.Equal(t, 3.20, *o.Amount)
			pinID = o.PinId
		}},
		{"verifyOtp", func(t *testing.T) {
			gotID, pin, err := srv.LatestOTP("08025671695")
			require.NoError(t, err)
			require.Equal(t, pinID, gotID)
			res, err := dev.VerifyOtpWithResponse(ctx, oapiclient.VerifyOtpJSONRequestBody{PinId: pinID, Pin: pin})
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON200)
			assert.True(t, res.JSON200.Data.Verified)
			assert.Equal(t, "2348025671695", res.JSON200.Data.Msisdn)
		}},
		{"getBalance", func(t *testing.T) {
			// A balance a 32-bit float cannot hold: the document's format: double keeps it.
			require.NoError(t, srv.SetBalance(ws.WorkspaceID, mockserver.ModeLive, 123_455_189))
			res, err := dev.GetBalanceWithResponse(ctx)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, res.StatusCode(), "%s", res.Body)
			require.NotNil(t, res.JSON200)
			assert.Equal(t, 1234551.89, res.JSON200.Data.Balance)
			assert.Equal(t, 0.0, res.JSON200.Data.Cashback)
			assert.Equal(t, oapiclient.NGN, res.JSON200.Data.Currency)
		}},
	}
	for _, step := range steps {
		// The steps build on each other: each runs only if the ones before passed.
		require.True(t, t.Run(step.op, step.run), "%s failed; later steps need it", step.op)
		called = append(called, step.op)
	}
	slices.Sort(called)
	assert.Equal(t, operationIDs(t), called, "every operation of the document is called")
}

// TestErrorsDecode checks that error answers decode into the generated error types.
func TestErrorsDecode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newServer(t)
	ws := srv.Default()
	dev := newClient(t, srv, false, apiKey(ws.LiveKey, ws.LiveSecret))
	wrong := newClient(t, srv, true, apiKey(ws.LiveKey, "sk_live_"+strings.Repeat("x", 40)))
	dash := newClient(t, srv, true, bearer(ws.DashboardToken))
	require.NoError(t, srv.SetBalance(ws.WorkspaceID, mockserver.ModeLive, 0))

	type answer struct {
		status int
		err    *oapiclient.Error
	}
	cases := []struct {
		name   string
		call   func() (answer, error)
		status int
		code   oapiclient.ErrorCode
		field  string
	}{
		{"400 page out of range", func() (answer, error) {
			r, err := dev.ListCampaignsWithResponse(ctx, &oapiclient.ListCampaignsParams{Limit: ptr(101)})
			if err != nil {
				return answer{}, err
			}
			return answer{r.StatusCode(), r.JSON400}, nil
		}, http.StatusBadRequest, oapiclient.ErrorCodeBadRequest, "limit"},
		{"401 wrong secret", func() (answer, error) {
			r, err := wrong.GetBalanceWithResponse(ctx)
			if err != nil {
				return answer{}, err
			}
			return answer{r.StatusCode(), r.JSON401}, nil
		}, http.StatusUnauthorized, oapiclient.ErrorCodeUnauthorized, ""},
		{"402 empty wallet", func() (answer, error) {
			var to oapiclient.SendRequest_To
			if err := to.FromPhoneInput("08025671695"); err != nil {
				return answer{}, err
			}
			r, err := dev.SendSmsWithResponse(ctx, oapiclient.SendSmsJSONRequestBody{To: to, From: mockserver.DefaultSenderID, Message: "Hi"})
			if err != nil {
				return answer{}, err
			}
			return answer{r.StatusCode(), r.JSON402}, nil
		}, http.StatusPaymentRequired, oapiclient.ErrorCodeInsufficientBalance, ""},
		{"404 unknown key", func() (answer, error) {
			r, err := dash.RevokeKeyWithResponse(ctx, "65a1b2c3d4e5f60718293a4b")
			if err != nil {
				return answer{}, err
			}
			return answer{r.StatusCode(), r.JSON404}, nil
		}, http.StatusNotFound, oapiclient.ErrorCodeNotFound, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.call()
			require.NoError(t, err)
			require.Equal(t, tc.status, got.status)
			require.NotNil(t, got.err, "the error body decodes")
			assert.Equal(t, tc.code, got.err.Error.Code)
			assert.NotEmpty(t, got.err.Error.Message)
			assert.Regexp(t, `^req-[0-9a-f]{24}$`, got.err.RequestId)
			if tc.field != "" {
				require.NotNil(t, got.err.Error.Field)
				assert.Equal(t, tc.field, *got.err.Error.Field)
			}
		})
	}
}

// newServer returns a mock with opts, failing the test if New refuses them.
func newServer(t testing.TB, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	srv, err := mockserver.New(opts...)
	require.NoError(t, err)
	return srv
}
