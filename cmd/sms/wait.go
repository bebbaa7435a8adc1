package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
)

func (a *app) campaignsWaitCmd() *cobra.Command {
	var (
		p       sms.WaitParams
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "wait CAMPAIGN_ID",
		Short: "Wait until a campaign's delivery is final, then show it",
		Long: `Poll a campaign's delivery status until it is final: the provider has reported on
every recipient, or the campaign failed. Polls back off from --min-delay up to --max-delay,
and a Retry-After from the server is honoured. Prints the final status as campaigns status
does.

Exit status 0 when the delivery is final, 1 when --timeout passed first (the last status is
printed) or on an API error.`,
		Example: `  sms campaigns wait 6740a1b2c3d4e5f601234567
  sms campaigns wait 6740a1b2c3d4e5f601234567 --timeout 10m --json | jq .counts`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if timeout < 0 {
				return usagef("--timeout cannot be negative")
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			wctx := ctx
			if timeout > 0 {
				var cancel context.CancelFunc
				wctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			st, err := c.Campaigns.Wait(wctx, args[0], &p)
			if st != nil {
				var perr error
				if a.jsonOut {
					perr = writeJSON(a.stdout, deliveryOut(st, false))
				} else {
					perr = printDelivery(a.stdout, a.stderr, st)
				}
				if err == nil {
					err = perr
				}
			}
			if err != nil && ctx.Err() == nil && wctx.Err() != nil {
				return &failure{fmt.Errorf("campaign %s: the delivery was not final after %v", args[0], timeout)}
			}
			return apiErr(ctx, err)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&timeout, "timeout", 0, "give up after this long (default never)")
	f.DurationVar(&p.MinDelay, "min-delay", sms.DefaultWaitMinDelay, "the first wait between polls")
	f.DurationVar(&p.MaxDelay, "max-delay", sms.DefaultWaitMaxDelay, "the longest wait between polls")
	return cmd
}
