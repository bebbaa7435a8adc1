package sms_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/internal/sdktest"
	"github.com/seedsms/sms-go/mockserver"
)

// TestExamplesUnderTheDocumentedProfile runs every Example of this package again against a
// mock that answers only what the live service's pages show (see internal/sdktest).
func TestExamplesUnderTheDocumentedProfile(t *testing.T) {
	t.Parallel()
	sdktest.RunExamplesUnderTheDocumentedProfile(t, 13)
}

// The examples' mock server, with the profile -mock-profile asks for: unstarted (newMock), or
// on a free loopback port (startMock).
var (
	newMock   = sdktest.ExampleMock
	startMock = sdktest.StartExampleMock
)

func ExampleNewClient() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()

	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	bal, err := client.Balance.Get(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(bal.Balance, bal.Currency)

	// Malformed credentials are refused before any request.
	_, err = sms.NewClient("pk_live_abc", "sk_test_def", sms.WithBaseURL(srv.URL()))
	fmt.Println(err)
	// Output:
	// 10000.00 NGN
	// sms: the API secret must start with sk_live_ to match the pk_live_ key
}

func ExampleSMSService_Send() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}

	res, err := client.SMS.Send(context.Background(), &sms.SendParams{
		To:        []string{"08025671695", "+2348030000001"},
		From:      ws.SenderID,
		Message:   "Your order #1042 has shipped.",
		Reference: "order-1042",
	})
	if err != nil {
		log.Fatal(err)
	}
	c := res.Campaign
	fmt.Println(c.Status, c.Recipients, "recipients,", *c.Parts, "part, cost", c.Amount, c.Currency)
	fmt.Println("request", res.Response.RequestID != "") // quote it to support
	// Output:
	// sent 2 recipients, 1 part, cost 6.40 NGN
	// request true
}

func ExampleCampaignsService_All() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	sale := map[string]string{} // campaign ID -> sale
	for _, name := range []string{"spring", "summer", "autumn"} {
		res, err := client.Campaigns.Create(ctx, &sms.CreateCampaignParams{
			To:      []sms.Recipient{{Phone: "08025671695", Name: "Ada"}, {Phone: "08030000001"}},
			From:    ws.SenderID,
			Message: "Hello {{name}}, our " + name + " sale starts today.",
		})
		if err != nil {
			log.Fatal(err)
		}
		sale[res.Campaign.ID] = name
	}

	// Newest first; pages are fetched as the loop needs them. A listed campaign surely has
	// its ID, sender ID, recipients, amount and status; other members (Reference, CreatedAt,
	// ...) only when the server sends them.
	for c, err := range client.Campaigns.All(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(sale[c.ID], c.Recipients, c.Amount)
	}
	// Output:
	// autumn 2 6.40
	// summer 2 6.40
	// spring 2 6.40
}

func ExampleOTPService_Verify() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	otp, err := client.OTP.Send(ctx, &sms.SendOTPParams{
		To:      "08025671695",
		From:    ws.SenderID,
		Message: "Your login code is < 1234 >. It expires in 10 minutes.",
	})
	if err != nil {
		log.Fatal(err)
	}

	// The user types the pin they received; the mock tells us what it sent.
	_, pin, err := srv.LatestOTP("08025671695")
	if err != nil {
		log.Fatal(err)
	}
	v, err := client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: otp.PinID, Pin: pin})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("verified:", v.Verified, "for", v.To)
	// Output: verified: true for 2348025671695
}

func ExamplePinStateOf() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	otp, err := client.OTP.Send(ctx, &sms.SendOTPParams{To: "08025671695", From: ws.SenderID, PinLength: 6})
	if err != nil {
		log.Fatal(err)
	}
	_, pin, err := srv.LatestOTP("08025671695")
	if err != nil {
		log.Fatal(err)
	}

	// A login handler branches on the state, not on the server's English.
	for _, typed := range []string{" 12", pin, pin} {
		v, err := client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: otp.PinID, Pin: typed, PinType: sms.PinTypeNumeric, PinLength: 6})
		switch state := sms.PinStateOf(v, err); state {
		case sms.PinStateVerified:
			fmt.Println("welcome")
		case sms.PinStateWrong, sms.PinStateMalformed:
			fmt.Println("wrong code, try again:", state)
		case sms.PinStateUnknown:
			log.Fatal(err)
		default:
			fmt.Println("send a new code:", state)
		}
	}
	// Output:
	// wrong code, try again: malformed
	// welcome
	// send a new code: already_verified
}

func ExampleContextWithTrace() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()),
		sms.WithReferenceDeduplication(), sms.WithRetryWait(10*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	// Each attempt of a call reports to the trace of its context: for metrics, logs, or a tool
	// that pauses its other requests on a 429.
	trace := &sms.Trace{Attempt: func(a sms.Attempt) {
		fmt.Println(a.Op, "attempt", a.Number, a.StatusCode, "may have been processed:", a.MaybeProcessed)
	}}
	ctx := sms.ContextWithTrace(context.Background(), trace)
	srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/send", Status: 503, Times: 1})
	if _, err := client.SMS.Send(ctx, &sms.SendParams{To: []string{"08025671695"}, From: ws.SenderID, Message: "Doors open at 9"}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// POST /v1/sms/send attempt 1 503 may have been processed: true
	// POST /v1/sms/send attempt 2 202 may have been processed: false
}

func ExampleWithReferenceDeduplication() {
	// A server that deduplicates references (the mock's full profile does by default, its
	// documented profile only when told): sends may be retried after a dropped connection or
	// a 5xx without being sent or charged twice.
	srv := startMock(mockserver.WithReferenceDeduplication(true))
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()), sms.WithReferenceDeduplication())
	if err != nil {
		log.Fatal(err)
	}
	srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/send", Drop: true, Times: 1})
	res, err := client.SMS.Send(context.Background(), &sms.SendParams{
		To: []string{"08025671695"}, From: ws.SenderID, Message: "Your order shipped", Reference: "order-77",
	})
	if err != nil {
		log.Fatal(err)
	}
	bal, err := client.Balance.Get(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	// The retry is answered from the dropped attempt, which this call sent and charged once:
	// not Replayed.
	fmt.Println(res.Campaign.Reference, res.Replayed, bal.Balance)
	// Output: order-77 false 9996.80
}

func ExampleScopeError() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()
	ctx := context.Background()

	// A key that may only send SMS.
	dash, err := sms.NewDashboardClient(ws.DashboardToken, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	key, err := dash.Keys.Create(ctx, &sms.CreateKeyParams{Name: "sender only", Scopes: sms.Scopes{sms.ScopeSMS}, Prefix: sms.KeyPrefixTest})
	if err != nil {
		log.Fatal(err)
	}
	client, err := sms.NewClient(key.PublicKey, key.Secret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}

	_, err = client.Balance.Get(ctx, nil)
	var scopeErr *sms.ScopeError
	if errors.As(err, &scopeErr) {
		fmt.Println("missing scope:", scopeErr.Scope)
		fmt.Println(scopeErr.Err.StatusCode, errors.Is(err, sms.ErrInsufficientScope))
	}
	// Output:
	// missing scope: balance
	// 403 true
}

func ExampleError() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.SetBalance(ws.WorkspaceID, mockserver.ModeTest, 0); err != nil {
		log.Fatal(err)
	}

	_, err = client.SMS.Send(context.Background(), &sms.SendParams{To: []string{"08025671695"}, From: ws.SenderID, Message: "Hi"})
	var apiErr *sms.Error
	switch {
	case errors.Is(err, sms.ErrInsufficientBalance) && errors.As(err, &apiErr):
		fmt.Println("top up:", apiErr.StatusCode, apiErr.Code)
	case err != nil:
		log.Fatal(err)
	}
	// Output: top up: 402 insufficient_balance
}

func ExampleValidationError() {
	client, err := sms.NewClient("pk_test_abc", "sk_test_def", sms.WithBaseURL("https://api.example.com"))
	if err != nil {
		log.Fatal(err)
	}
	// Checked locally: no request is sent.
	_, err = client.SMS.Send(context.Background(), &sms.SendParams{To: []string{"0802"}, From: "ACME", Message: "Hi"})
	var ve *sms.ValidationError
	if errors.As(err, &ve) {
		// Not sent: it matches ErrInvalidParams, never ErrBadRequest (a server's 400).
		fmt.Println(ve.Field, errors.Is(err, sms.ErrInvalidParams), errors.Is(err, sms.ErrBadRequest))
	}
	// Output: To[0] true false
}

func ExampleCountParts() {
	parts, enc := sms.CountParts("Hello, Ada! Your code is 123456.")
	fmt.Println(parts, enc)
	parts, enc = sms.CountParts("Привет")
	fmt.Println(parts, enc)
	// Output:
	// 1 GSM-7
	// 1 UCS-2
}

func ExampleSMSService_Send_idempotent() {
	srv := newMock(mockserver.WithReferenceDeduplication(true)) // a server that deduplicates references
	ws := srv.Default()
	c, _ := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL("http://127.0.0.1"),
		sms.WithHTTPClient(&http.Client{Transport: srv.Transport()}))
	p := &sms.SendParams{To: []string{"08025671695"}, From: "MOCKSMS", Message: "Your order shipped", Reference: "order-1001"}
	first, _ := c.SMS.Send(context.Background(), p)
	again, _ := c.SMS.Send(context.Background(), p) // same reference, same body: replayed
	b, _ := c.Balance.Get(context.Background(), nil)
	fmt.Println(first.Campaign.ID == again.Campaign.ID, first.Campaign.Amount, b.Balance)
	// Output: true 3.20 9996.80
}

func ExampleSendFailedError() {
	// A server that accepts the request but says the SMS failed.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":{"smsStatus":"Message Failed","pinId":"p1","status":"400"}}`)
	}))
	defer srv.Close()
	client, err := sms.NewClient("pk_test_example", "sk_test_example", sms.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	_, err = client.OTP.Send(context.Background(), &sms.SendOTPParams{To: "08025671695", From: "ACME"})
	var failed *sms.SendFailedError
	switch {
	case errors.As(err, &failed):
		// The server took the request: the pin will not reach the user. Offer to send a new one.
		fmt.Println("not sent:", failed.OTP.SMSStatus, failed.Status)
	case errors.Is(err, sms.ErrOutcomeUnknown):
		// Unknown: check before sending again.
	case err != nil:
		log.Fatal(err)
	}
	// Output: not sent: Message Failed 400
}

func ExampleResponse_unreadable() {
	// A server that writes one campaign's creation time in a form the SDK cannot read.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":[{"_id":"c1","status":"Delivered","amount":"3.20","createdAt":"last Monday"}],"meta":{"page":1,"perPage":20,"total":1}}`)
	}))
	defer srv.Close()
	client, err := sms.NewClient("pk_test_example", "sk_test_example", sms.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	page, err := client.Campaigns.List(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	c := page.Items[0]
	fmt.Println(c.ID, c.Status, c.Amount, c.CreatedAt == nil, page.Total)
	fmt.Println("unreadable:", page.Response.Unreadable)
	// Output:
	// c1 delivered 3.20 true 1
	// unreadable: [data[0].createdAt]
}
