package main

import (
	"fmt"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
)

func (a *app) sendCmd() *cobra.Command {
	var p sms.SendParams
	var channel string
	cmd := &cobra.Command{
		Use:   "send",
		Short: "Send an SMS to up to 100 numbers",
		Long: `Send an SMS to up to 100 numbers. The wallet is charged for every part of every
recipient. Numbers are international (with or without +) or local Nigerian (0 and 10
digits); duplicates are sent once.

A --reference names the send. A server that deduplicates references (the mock does; give
--reference-dedup once you know the live one does) answers the same command run again
within 24 hours from the first send, without sending or charging again; after 24 hours, or
without deduplication, it sends again.

The exit status is 1 when the campaign failed (the provider refused it; it was refunded),
although the request succeeded: the campaign is printed, then the error.`,
		Example: `  sms send --to 08025671695 --from ACME --message 'Your order has shipped.'
  sms send --to 2348025671695,2348031234567 --from ACME --message 'Sale ends today' --reference sale-42
  sms send --to +2348025671695 --from ACME --message 'Hello' --channel dnd --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := a.client()
			if err != nil {
				return err
			}
			p.Channel = sms.Channel(channel)
			res, err := c.SMS.Send(ctx, &p)
			if err != nil {
				return apiErr(ctx, err)
			}
			if err := a.printSent(res); err != nil {
				return err
			}
			if res.Campaign.Status == sms.CampaignStatusFailed {
				return &failure{refusedError(res.Campaign)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&p.To, "to", nil, "phone numbers, repeated or comma-separated (1 to 100)")
	f.StringVar(&p.From, "from", "", "an active sender ID")
	f.StringVar(&p.Message, "message", "", "the text, at most 10 SMS parts")
	f.StringVar(&channel, "channel", "", "generic (default) or dnd")
	f.StringVar(&p.Reference, "reference", "", "an idempotency reference, 1 to 100 printable ASCII characters")
	completeValues(cmd, "channel", "generic", "dnd")
	for _, name := range []string{"to", "from", "message"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

// printSent prints the campaign a send created.
func (a *app) printSent(res *sms.SendResult) error {
	if a.jsonOut {
		out := campaignOut(res.Campaign)
		out.Replayed = res.Replayed
		return writeJSON(a.stdout, out)
	}
	c := res.Campaign
	t := newTable(a.stdout, "CAMPAIGN", "SENT TO PROVIDER", "RECIPIENTS", "PARTS", "AMOUNT", "REFERENCE")
	t.row(c.ID, string(c.Status), itoa(c.Recipients), optItoa(c.Parts), amountText(c.Amount, c.Currency), c.Reference)
	if res.Replayed {
		defer a.note("replayed: this reference was sent before; nothing was sent or charged this time")
	}
	return t.flush()
}

// refusedError is the error of a campaign the provider refused. It says it was refunded only
// when the answer says so, by the campaign's cost of 0.00; otherwise it says what the answer
// showed: no cost, or a cost.
func refusedError(c sms.Campaign) error {
	switch {
	case c.Amount == nil:
		return fmt.Errorf("campaign %s failed: the provider refused it; the answer does not say whether it was refunded", c.ID)
	case c.Amount.Kobo() == 0:
		return fmt.Errorf("campaign %s failed: the provider refused it, and it was refunded (%s %s)", c.ID, c.Amount, c.Currency)
	}
	return fmt.Errorf("campaign %s failed: the provider refused it; the answer states a cost of %s %s, not a refund", c.ID, c.Amount, c.Currency)
}
