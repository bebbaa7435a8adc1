// Command quickstart walks through the SMS API against the in-memory mock server, which it
// starts in-process on a free loopback port: it creates an API key, gets a sender ID approved,
// sends an SMS, sends and verifies an OTP, runs a small campaign, reads its delivery status
// and the balance, shows the error a key without the right scope gets, sends a bulk job twice
// (the second run sends nothing) and waits for its delivery, and reads the messages the phones
// received from the mock's inbox.
//
//	go run ./examples/quickstart
//
// It exits with status 1 on any unexpected error.
package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"time"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func step(format string, args ...any) { fmt.Printf("\n== "+format+"\n", args...) }

// orUnknown prints a member that a server may not send: "?" when it did not.
func orUnknown[T any](v *T) string {
	if v == nil {
		return "?"
	}
	return fmt.Sprint(*v)
}

// run walks through the SDK against a mock started with opts (the tests run it under both
// profiles: what the walk-through does must work against what the live docs show). The mock
// deduplicates references, as the walk-through shows replays, unless opts say otherwise.
func run(ctx context.Context, opts ...mockserver.Option) error {
	srv, err := mockserver.New(append([]mockserver.Option{mockserver.WithAddr("127.0.0.1:0"),
		mockserver.WithReferenceDeduplication(true)}, opts...)...)
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Close()
	ws := srv.Default()
	fmt.Println("mock server listening on", srv.URL())

	step("1. Create an API key with the dashboard client")
	dash, err := sms.NewDashboardClient(ws.DashboardToken, sms.WithBaseURL(srv.URL()))
	if err != nil {
		return err
	}
	key, err := dash.Keys.Create(ctx, &sms.CreateKeyParams{
		Name: "quickstart", Scopes: sms.AllScopes(), Prefix: sms.KeyPrefixTest,
	})
	if err != nil {
		return err
	}
	fmt.Println("key:", key) // a Key never prints its secret
	fmt.Println("its secret is shown only in this response: store it now")

	client, err := sms.NewClient(key.PublicKey, key.Secret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		return err
	}

	step("2. Request a sender ID; the mock approves it")
	sid, err := client.SenderIDs.Request(ctx, &sms.RequestSenderIDParams{
		SenderID: "ACME", UseCase: "Order and delivery updates", Company: "Acme Stores Ltd",
	})
	if err != nil {
		return err
	}
	fmt.Printf("requested %s: %s (%s)\n", sid.Title, sid.Status, sid.Country)
	if err := srv.ApproveSenderID(sid.ID); err != nil {
		return err
	}
	active, err := client.SenderIDs.List(ctx, &sms.ListSenderIDsParams{Status: sms.SenderIDStatusActive})
	if err != nil {
		return err
	}
	for _, s := range active.Items {
		fmt.Printf("active sender ID: %s\n", s.Title)
	}

	step("3. Send an SMS")
	sent, err := client.SMS.Send(ctx, &sms.SendParams{
		To:        []string{"08025671695"},
		From:      "ACME",
		Message:   "Your order #1042 has shipped.",
		Reference: "order-1042-shipped",
	})
	if err != nil {
		return err
	}
	c := sent.Campaign
	fmt.Printf("campaign %s: %s, %d recipient, %s part, cost %s %s\n", c.ID, c.Status, c.Recipients, orUnknown(c.Parts), orUnknown(c.Amount), c.Currency)
	again, err := client.SMS.Send(ctx, &sms.SendParams{
		To: []string{"08025671695"}, From: "ACME", Message: "Your order #1042 has shipped.", Reference: "order-1042-shipped",
	})
	if err != nil {
		return err
	}
	fmt.Printf("sent again with the same reference: replayed=%t, same campaign=%t (nothing sent or charged twice)\n",
		again.Replayed, again.Campaign.ID == c.ID)
	if !again.Replayed || again.Campaign.ID != c.ID {
		return errors.New("the send with the same reference was not replayed: does the server deduplicate references?")
	}

	step("4. Send an OTP and verify it")
	otp, err := client.OTP.Send(ctx, &sms.SendOTPParams{
		To: "08025671695", From: "ACME", Message: "Your Acme code is < 1234 >. It expires in 10 minutes.",
	})
	if err != nil {
		return err
	}
	fmt.Printf("pin %s sent to %s, cost %s %s\n", otp.PinID, otp.To, orUnknown(otp.Amount), otp.Currency)
	_, pin, err := srv.LatestOTP("08025671695") // what the phone received
	if err != nil {
		return err
	}
	v, err := client.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: otp.PinID, Pin: pin})
	if err != nil {
		return err
	}
	fmt.Printf("verified: %t\n", v.Verified)

	step("5. Create a small campaign, personalized with {{name}}")
	camp, err := client.Campaigns.Create(ctx, &sms.CreateCampaignParams{
		To: []sms.Recipient{
			{Phone: "08025671695", Name: "Ada"},
			{Phone: "08030000001", Name: "Chinedu"},
			{Phone: "+2348030000002"},
		},
		From:    "ACME",
		Message: "Hello {{name}}, our sale starts today!",
	})
	if err != nil {
		return err
	}
	fmt.Printf("campaign %s: %s, %d recipients, cost %s %s\n", camp.Campaign.ID, camp.Campaign.Status,
		camp.Campaign.Recipients, camp.Campaign.Amount, camp.Campaign.Currency)

	step("6. Iterate over every campaign, newest first")
	for c, err := range client.Campaigns.All(ctx, nil) {
		if err != nil {
			return err
		}
		fmt.Printf("%s  %-10s %-5s %d recipient(s)  %s %s\n", c.ID, c.Status, c.SenderID, c.Recipients, c.Amount, c.Currency)
	}

	step("7. Read the delivery status after the provider reports")
	if err := srv.Deliver(camp.Campaign.ID, &mockserver.DeliverCounts{Delivered: 2, Failed: 1}); err != nil {
		return err
	}
	st, err := client.Campaigns.Delivery(ctx, camp.Campaign.ID, nil)
	if err != nil {
		return err
	}
	if c := st.Counts; c != nil { // a server may not send counts
		fmt.Printf("status %s: %d delivered, %d failed, %d sent, %d dnd\n", st.Status, c.Delivered, c.Failed, c.Sent, c.DND)
	}
	for r, err := range client.Campaigns.AllRecipients(ctx, camp.Campaign.ID, nil) {
		if err != nil {
			return err
		}
		fmt.Printf("  %s  %s\n", r.To, r.Status)
	}

	step("8. Read the balance")
	bal, err := client.Balance.Get(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Printf("balance %s %s (started at 10000.00)\n", bal.Balance, bal.Currency)

	step("9. A key without the balance scope")
	limited, err := dash.Keys.Create(ctx, &sms.CreateKeyParams{Name: "sender only", Scopes: sms.Scopes{sms.ScopeSMS}, Prefix: sms.KeyPrefixTest})
	if err != nil {
		return err
	}
	lc, err := sms.NewClient(limited.PublicKey, limited.Secret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		return err
	}
	_, err = lc.Balance.Get(ctx, nil)
	var scopeErr *sms.ScopeError
	if !errors.As(err, &scopeErr) {
		return fmt.Errorf("want a *sms.ScopeError, got %v", err)
	}
	fmt.Printf("refused: %v\n", err)
	fmt.Printf("missing scope %q; errors.Is(err, sms.ErrInsufficientScope) = %t\n", scopeErr.Scope, errors.Is(err, sms.ErrInsufficientScope))

	step("10. A bulk job: 1,000 numbers (and 20 duplicates and a bad number) in batches of 250")
	// The job's journal: each batch recorded before its request and after its answer, so that
	// a rerun never sends a batch twice, whatever the server does.
	dir, err := os.MkdirTemp("", "quickstart-journal")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	journal, err := bulk.OpenFileJournal(filepath.Join(dir, "spring-sale-2026.journal"))
	if err != nil {
		return err
	}
	defer journal.Close()
	job := &bulk.Params{
		JobID: "spring-sale-2026", From: "ACME", Message: "Hi {{name}}, the spring sale starts today!",
		Recipients: customers(1000), BatchSize: 250, Journal: journal,
	}
	report, err := bulk.Send(ctx, client, job)
	if err != nil {
		return err
	}
	fmt.Printf("complete=%t: %d batches, %d sent, %d duplicates removed, %d invalid (position %d), charged %s NGN\n",
		report.Complete, len(report.Batches), report.Sent, report.Duplicates, report.Invalid,
		report.InvalidRecipients[0].Position, report.Amount)
	job.Recipients = customers(1000) // the same job again, as after a crash: the journal records every batch as sent
	rerun, err := bulk.Send(ctx, client, job)
	if err != nil {
		return err
	}
	fmt.Printf("run again: %d sent, %d recorded as sent by the journal, charged %s NGN\n", rerun.Sent, rerun.FromJournal, rerun.Amount)
	if rerun.Sent != 0 {
		return fmt.Errorf("the job run again sent %d recipients again", rerun.Sent)
	}
	// Campaigns of over 100 recipients are processing for a second before the provider takes
	// them; move the mock's clock past it, then let the provider report every one delivered.
	if err := srv.Advance(time.Second); err != nil {
		return err
	}
	for _, id := range report.CampaignIDs() {
		if err := srv.Deliver(id, nil); err != nil {
			return err
		}
	}
	delivery, err := bulk.Wait(ctx, client, report, &bulk.WaitParams{MinDelay: 10 * time.Millisecond})
	if err != nil {
		return err
	}
	fmt.Printf("delivered %d of %d across %d campaigns\n", delivery.Counts.Delivered, delivery.Counts.Total(), delivery.Campaigns)

	step("11. The inbox: what the phones received")
	for _, m := range srv.Messages(mockserver.Filter{To: "08025671695"}) {
		text := m.Text
		if m.Pin != "" {
			text = strings.ReplaceAll(text, m.Pin, "******") // a pin is a secret, even in a demo
		}
		fmt.Printf("%-4s %-9s from %s: %s\n", m.Kind, m.Status, m.From, text)
	}
	fmt.Printf("while a mock runs, its inbox page shows every message live: %s/\n", srv.URL())

	fmt.Println("\ndone")
	return nil
}

// customers yields n numbered customers, the first 20 of them twice, and one malformed number.
func customers(n int) iter.Seq2[sms.Recipient, error] {
	return func(yield func(sms.Recipient, error) bool) {
		for i := range n {
			if !yield(sms.Recipient{Phone: fmt.Sprintf("0803%07d", i), Name: fmt.Sprintf("Customer %d", i)}, nil) {
				return
			}
			if i < 20 && !yield(sms.Recipient{Phone: fmt.Sprintf("+234803%07d", i)}, nil) {
				return
			}
		}
		yield(sms.Recipient{Phone: "12-34"}, nil)
	}
}
