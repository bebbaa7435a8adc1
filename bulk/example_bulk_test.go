package bulk_test

import (
	"context"
	"fmt"
	"log"
	"testing"
	"time"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/internal/sdktest"
	"github.com/seedsms/sms-go/mockserver"
)

// TestExamplesUnderTheDocumentedProfile runs every Example of this package again against a
// mock that answers only what the live service's pages show (see internal/sdktest).
func TestExamplesUnderTheDocumentedProfile(t *testing.T) {
	t.Parallel()
	sdktest.RunExamplesUnderTheDocumentedProfile(t, 6)
}

// startMock starts the examples' mock server, with the profile -mock-profile asks for, on a
// free loopback port.
var startMock = sdktest.StartExampleMock

func ExampleSend() {
	srv := startMock(mockserver.WithReferenceDeduplication(true)) // a server that deduplicates references
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	// Any iter.Seq2[sms.Recipient, error] will do: rows of a file, a database cursor.
	people := bulk.RecipientsFrom([]sms.Recipient{
		{Phone: "08025671695", Name: "Ada"},
		{Phone: "+2348025671696", Name: "Obi"},
		{Phone: "2348025671695", Name: "Ada"}, // the first number again
		{Phone: "12-34", Name: "Typo"},
	})
	params := &bulk.Params{
		JobID: "welcome-2026-11", From: ws.SenderID, Message: "Welcome, {{name}}!", Recipients: people,
	}
	report, err := bulk.Send(context.Background(), client, params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(report.Sent, "sent, charged", report.Amount)
	fmt.Println(report.Duplicates, "duplicate,", report.Invalid, "invalid at position", report.InvalidRecipients[0].Position)

	// The same job again sends nothing: the server deduplicates references, so every batch is
	// answered from the first run. A server that does not would send and charge them again.
	again, err := bulk.Send(context.Background(), client, params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(again.Sent, "sent,", again.Replayed, "replayed, charged", again.Amount, "complete:", again.Complete)
	// Output:
	// 2 sent, charged 6.40
	// 1 duplicate, 1 invalid at position 3
	// 0 sent, 2 replayed, charged 0.00 complete: true
}

func ExampleWait() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	report, err := bulk.Send(ctx, client, &bulk.Params{
		JobID: "doors-2026-11", From: ws.SenderID, Message: "Doors open at 9", BatchSize: 1,
		Recipients: bulk.RecipientsFrom([]sms.Recipient{{Phone: "08025671695"}, {Phone: "08025671696"}}),
	})
	if err != nil {
		log.Fatal(err)
	}
	// Delivery reports come in while Wait polls; here the mock's control delivers them.
	srv.DeliverAll()
	d, err := bulk.Wait(ctx, client, report, &bulk.WaitParams{
		MinDelay: 50 * time.Millisecond,
		Progress: func(d bulk.Delivery) { // after the first round of polls, then on each change
			fmt.Printf("%d of %d campaigns final, %d delivered\n", d.Final, d.Campaigns, d.Counts.Delivered)
		},
	})
	if err != nil {
		log.Fatal(err) // d.Pending names the campaigns not final
	}
	fmt.Println(d.Counts.Delivered, "of", d.Counts.Total(), "delivered")
	// Output:
	// 2 of 2 campaigns final, 2 delivered
	// 2 of 2 delivered
}

func ExampleWaitCampaign() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	res, err := client.Campaigns.Create(ctx, &sms.CreateCampaignParams{
		To: []sms.Recipient{{Phone: "08025671695"}, {Phone: "08025671696"}}, From: ws.SenderID, Message: "Doors open at 9",
	})
	if err != nil {
		log.Fatal(err)
	}
	// Delivery reports come in while Wait polls; here the mock's control delivers them.
	go func() { _ = srv.Deliver(res.Campaign.ID, nil) }()
	st, err := bulk.WaitCampaign(ctx, client, res.Campaign.ID, &bulk.WaitParams{MinDelay: 50 * time.Millisecond, MaxDelay: time.Second})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Status, st.Counts.Delivered, "of", st.Counts.Total())
	// Output: delivered 2 of 2
}
