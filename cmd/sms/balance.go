package main

import (
	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
)

func (a *app) balanceCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "balance",
		Short: "Show the wallet balance",
		Long:  `Show the wallet of the key's mode: live keys see the live wallet, test keys the test wallet.`,
		Example: `  sms balance
  sms balance --json | jq -r .balance`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := a.client()
			if err != nil {
				return err
			}
			b, err := c.Balance.Get(ctx, nil)
			if err != nil {
				return apiErr(ctx, err)
			}
			if a.jsonOut {
				return writeJSON(a.stdout, struct {
					Balance  sms.Amount  `json:"balance"`
					Cashback *sms.Amount `json:"cashback,omitempty"`
					Currency string      `json:"currency"`
				}{b.Balance, b.Cashback, b.Currency})
			}
			t := newTable(a.stdout, "BALANCE", "CASHBACK", "CURRENCY")
			t.row(b.Balance.String(), amountText(b.Cashback, ""), b.Currency)
			return t.flush()
		},
	}
}
