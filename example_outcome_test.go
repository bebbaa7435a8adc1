package sms_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	sms "github.com/seedsms/sms-go"
)

// A send whose answer was a 2xx the SDK cannot read was accepted, and may have been charged:
// the *OutcomeError says what is known, and the reference finds its campaign later. Here a
// server in front of the service answers 202 with an HTML page.
func ExampleOutcomeError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Request-Id", "req-42")
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprint(w, "<html><body>Queued</body></html>")
	}))
	defer srv.Close()
	client, err := sms.NewClient("pk_test_abc", "sk_test_def", sms.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	defer client.CloseIdleConnections()

	_, err = client.SMS.Send(context.Background(), &sms.SendParams{
		To: []string{"08031234567"}, From: "ACME", Message: "Your order has shipped.", Reference: "order-1001",
	})
	var oe *sms.OutcomeError
	if errors.Is(err, sms.ErrOutcomeUnknown) && errors.As(err, &oe) {
		// Do not send again: look for the campaign of this reference first.
		fmt.Println("status:", oe.StatusCode)
		fmt.Println("request:", oe.RequestID)
		fmt.Println("reference:", oe.Reference)
		fmt.Println("body:", oe.Body)
	}
	// Output:
	// status: 202
	// request: req-42
	// reference: order-1001
	// body: <html><body>Queued</body></html>
}
