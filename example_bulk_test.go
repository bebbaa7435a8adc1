package sms_test

import (
	"context"
	"fmt"
	"log"

	sms "github.com/seedsms/sms-go"
)

func ExampleCampaignsService_SendBulk() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	// Any iter.Seq2[sms.Recipient, error] will do: rows of a file, a database cursor.
	people := sms.RecipientsFrom([]sms.Recipient{
		{Phone: "08025671695", Name: "Ada"},
		{Phone: "+2348025671696", Name: "Obi"},
		{Phone: "2348025671695", Name: "Ada"}, // the first number again
		{Phone: "12-34", Name: "Typo"},
	})
	params := &sms.BulkParams{
		JobID: "welcome-2026-11", From: ws.SenderID, Message: "Welcome, {{name}}!", Recipients: people,
	}
	report, err := client.Campaigns.SendBulk(context.Background(), params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(report.Sent, "sent, charged", report.Amount)
	fmt.Println(report.Duplicates, "duplicate,", report.Invalid, "invalid at position", report.InvalidRecipients[0].Position)

	// The same job again sends nothing: every batch is answered from the first run.
	again, err := client.Campaigns.SendBulk(context.Background(), params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(again.Sent, "sent,", again.Replayed, "replayed, charged", again.Amount, "complete:", again.Complete)
	// Output:
	// 2 sent, charged 6.40
	// 1 duplicate, 1 invalid at position 3
	// 0 sent, 2 replayed, charged 0.00 complete: true
}
