package main

import (
	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
)

func (a *app) campaignsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "campaigns",
		Short: "List campaigns, read their delivery status, wait for delivery",
		Example: `  sms campaigns list
  sms campaigns status 6740a1b2c3d4e5f601234567
  sms campaigns wait 6740a1b2c3d4e5f601234567 --timeout 10m`,
	}
	cmd.AddCommand(a.campaignsListCmd(), a.campaignsStatusCmd(), a.campaignsWaitCmd())
	return cmd
}

func (a *app) campaignsListCmd() *cobra.Command {
	var (
		p   sms.ListCampaignsParams
		all bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List campaigns, newest first",
		Long: `List the campaigns of the key's mode (live or test), newest first: one page, or
every campaign with --all. With --json, one JSON object per line.

The SENT TO PROVIDER column says how far the campaign went: processing (accepted, not yet handed to the
provider), sent (handed to the provider and charged) or failed (refused by the provider
and refunded). It says nothing of the phones: their delivery is "sms campaigns status ID".`,
		Example: `  sms campaigns list
  sms campaigns list --page 2 --limit 50
  sms campaigns list --all --json | jq -r 'select(.status == "failed") | .id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := a.client()
			if err != nil {
				return err
			}
			var t *table
			if !a.jsonOut {
				t = newTable(a.stdout, "CAMPAIGN", "CREATED", "SENDER", "SENT TO PROVIDER", "RECIPIENTS", "PARTS", "AMOUNT", "REFERENCE")
			}
			emit := func(c sms.Campaign) error {
				if a.jsonOut {
					return writeJSONLine(a.stdout, campaignOut(c))
				}
				t.row(c.ID, when(c.CreatedAt), c.SenderID, string(c.Status), itoa(c.Recipients), optItoa(c.Parts), amountText(c.Amount, c.Currency), c.Reference)
				return nil
			}
			if all {
				for camp, err := range c.Campaigns.All(ctx, &p) {
					if err != nil {
						if t != nil {
							_ = t.flush()
						}
						return apiErr(ctx, err)
					}
					if err := emit(camp); err != nil {
						return err
					}
				}
			} else {
				page, err := c.Campaigns.List(ctx, &p)
				if err != nil {
					return apiErr(ctx, err)
				}
				for _, camp := range page.Items {
					if err := emit(camp); err != nil {
						return err
					}
				}
				if !a.jsonOut && page.Total > page.Page*page.Limit {
					defer a.note("page %d of %d (%d campaigns); --page N for more, --all for every one",
						page.Page, (page.Total+page.Limit-1)/page.Limit, page.Total)
				}
			}
			if t != nil {
				return t.flush()
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&p.Page, "page", 0, "the page, from 1")
	f.IntVar(&p.Limit, "limit", 0, "campaigns per page, 1 to 100 (default 20; 100 with --all)")
	f.BoolVar(&all, "all", false, "list every campaign, fetching page after page")
	return cmd
}

func (a *app) campaignsStatusCmd() *cobra.Command {
	var (
		p   sms.DeliveryParams
		all bool
	)
	cmd := &cobra.Command{
		Use:   "status CAMPAIGN_ID",
		Short: "Show a campaign's delivery status and its recipients",
		Long: `Show a campaign's delivery to the phones: its DELIVERY (processing while not yet
handed to the provider; then sent while any recipient has no report yet, delivered,
partially_delivered or failed), the counts of recipients with no report yet (NO REPORT,
"sent" in JSON), delivered, failed and blocked by the Do-Not-Disturb register (dnd), then
one page of its recipients, or every one with --all. "sms campaigns list" shows instead
whether the campaign was handed to the provider (SENT TO PROVIDER).`,
		Example: `  sms campaigns status 6740a1b2c3d4e5f601234567
  sms campaigns status 6740a1b2c3d4e5f601234567 --all --json | jq '.recipients[] | select(.status == "failed")'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			c, err := a.client()
			if err != nil {
				return err
			}
			q := p
			if all {
				q = sms.DeliveryParams{Page: 1, Limit: 1}
			}
			st, err := c.Campaigns.Delivery(ctx, args[0], &q)
			if err != nil {
				return apiErr(ctx, err)
			}
			if all {
				rs := &st.Recipients
				rs.Items = rs.Items[:0]
				for r, err := range c.Campaigns.AllRecipients(ctx, args[0], &sms.DeliveryParams{Limit: p.Limit}) {
					if err != nil {
						return apiErr(ctx, err)
					}
					rs.Items = append(rs.Items, r)
				}
				rs.Page, rs.Limit, rs.Total = 1, len(rs.Items), len(rs.Items)
			}
			if a.jsonOut {
				return writeJSON(a.stdout, deliveryOut(st, !all))
			}
			return printDelivery(a.stdout, a.console(), st)
		},
	}
	f := cmd.Flags()
	f.IntVar(&p.Page, "page", 0, "the page of recipients, from 1")
	f.IntVar(&p.Limit, "limit", 0, "recipients per page, 1 to 100 (default 20)")
	f.BoolVar(&all, "all", false, "show every recipient, fetching page after page")
	return cmd
}
