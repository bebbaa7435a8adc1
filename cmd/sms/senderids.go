package main

import (
	"time"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
)

func (a *app) senderIDsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sender-ids",
		Short: "List and request sender IDs",
		Example: `  sms sender-ids list --status active
  sms sender-ids request ACME --usecase 'Order updates' --company 'Acme Stores Ltd'`,
	}
	cmd.AddCommand(a.senderIDsListCmd(), a.senderIDsRequestCmd())
	return cmd
}

// senderIDJSON is a sender ID in --json output.
type senderIDJSON struct {
	ID        string             `json:"id"`
	Title     string             `json:"title"`
	Status    sms.SenderIDStatus `json:"status"`
	Country   string             `json:"country"`
	Usecase   string             `json:"usecase,omitempty"`
	Company   string             `json:"company,omitempty"`
	CreatedAt *time.Time         `json:"createdAt,omitempty"`
}

func senderIDOut(s sms.SenderID) senderIDJSON {
	return senderIDJSON{s.ID, s.Title, s.Status, s.Country, s.UseCase, s.Company, optTime(s.CreatedAt)}
}

func (a *app) senderIDsListCmd() *cobra.Command {
	var status string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the workspace's sender IDs, newest first",
		Long:  `List the workspace's sender IDs, newest first. With --json, one JSON object per line.`,
		Example: `  sms sender-ids list
  sms sender-ids list --status pending --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := a.client()
			if err != nil {
				return err
			}
			// Every page: a server may page the list the API returns whole.
			var list []sms.SenderID
			for s, err := range c.SenderIDs.All(ctx, &sms.ListSenderIDsParams{Status: sms.SenderIDStatus(status)}) {
				if err != nil {
					return apiErr(ctx, err)
				}
				list = append(list, s)
			}
			if a.jsonOut {
				for _, s := range list {
					if err := writeJSONLine(a.stdout, senderIDOut(s)); err != nil {
						return err
					}
				}
				return nil
			}
			t := newTable(a.stdout, "SENDER ID", "STATUS", "COUNTRY", "COMPANY", "CREATED")
			for _, s := range list {
				t.row(s.Title, string(s.Status), s.Country, s.Company, when(s.CreatedAt))
			}
			return t.flush()
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only pending, active or blocked sender IDs")
	completeValues(cmd, "status", "pending", "active", "blocked")
	return cmd
}

func (a *app) senderIDsRequestCmd() *cobra.Command {
	var p sms.RequestSenderIDParams
	cmd := &cobra.Command{
		Use:   "request SENDER_ID",
		Short: "Request a new sender ID",
		Long: `Request a branded sender ID (3 to 11 ASCII letters and digits). It starts pending
until it is approved; only active sender IDs can send.`,
		Example: `  sms sender-ids request ACME --usecase 'Order and delivery updates' --company 'Acme Stores Ltd'`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			c, err := a.client()
			if err != nil {
				return err
			}
			p.SenderID = args[0]
			s, err := c.SenderIDs.Request(ctx, &p)
			if err != nil {
				return apiErr(ctx, err)
			}
			if a.jsonOut {
				return writeJSON(a.stdout, senderIDOut(*s))
			}
			t := newTable(a.stdout, "SENDER ID", "STATUS", "COUNTRY", "COMPANY", "CREATED")
			t.row(s.Title, string(s.Status), s.Country, s.Company, when(s.CreatedAt))
			return t.flush()
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.UseCase, "usecase", "", "what the sender ID will be used for (1 to 500 characters)")
	f.StringVar(&p.Company, "company", "", "the company behind it (1 to 100 characters)")
	_ = cmd.MarkFlagRequired("usecase")
	_ = cmd.MarkFlagRequired("company")
	return cmd
}
