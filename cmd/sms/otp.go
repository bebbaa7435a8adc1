package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
)

func (a *app) otpCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "otp",
		Short: "Send and verify one-time passwords",
		Example: `  sms otp send --to 08025671695 --from ACME --message 'Your code is < 1234 >'
  sms otp verify 3f2b9c1e-8d4a-4c2e-9b7f-1a2b3c4d5e6f`,
	}
	cmd.AddCommand(a.otpSendCmd(), a.otpVerifyCmd())
	return cmd
}

func (a *app) otpSendCmd() *cobra.Command {
	var (
		p       sms.SendOTPParams
		pinType string
	)
	cmd := &cobra.Command{
		Use:   "send",
		Short: "Send a one-time pin by SMS",
		Long: `Send a new one-time pin to a number. The placeholder in --message is replaced by
the pin; without --message, the server sends its own text with the pin. The SMS is charged
like any other. A new pin voids the earlier pending pins of the number. Prints the pin ID
to verify with; the pin itself is never shown.`,
		Example: `  sms otp send --to 08025671695 --from ACME --message 'Your code is < 1234 >'
  sms otp send --to 08025671695 --from ACME --message 'Code: {pin}' --placeholder '{pin}' --length 4 --ttl 5m
  PIN_ID=$(sms otp send --to 08025671695 --from ACME --message 'Code < 1234 >' --json | jq -r .pinId)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := a.client()
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("message-text") {
				a.note("--message-text is deprecated: use --message")
			}
			p.PinType = sms.PinType(pinType)
			otp, err := c.OTP.Send(ctx, &p)
			if err != nil {
				return apiErr(ctx, err)
			}
			if a.jsonOut {
				return writeJSON(a.stdout, struct {
					PinID     string        `json:"pinId"`
					To        string        `json:"to"`
					SMSStatus sms.SMSStatus `json:"smsStatus"`
					Amount    *sms.Amount   `json:"amount,omitempty"`
					Currency  string        `json:"currency,omitempty"`
				}{otp.PinID, otp.To, otp.SMSStatus, otp.Amount, otp.Currency})
			}
			amount := "" // the server may not say what the SMS cost
			if otp.Amount != nil {
				amount = strings.TrimSpace(otp.Amount.String() + " " + otp.Currency)
			}
			t := newTable(a.stdout, "PIN ID", "TO", "STATUS", "AMOUNT")
			t.row(otp.PinID, otp.To, string(otp.SMSStatus), amount)
			return t.flush()
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.To, "to", "", "the phone number")
	f.StringVar(&p.From, "from", "", "an active sender ID")
	f.StringVar(&p.Message, "message", "", "the SMS text, containing the placeholder (default: the server's text)")
	// --message-text is the earlier spelling, hidden. Cobra prints MarkDeprecated's notice
	// to stdout, which scripts read, so the notice is the command's own, on stderr.
	f.StringVar(&p.Message, "message-text", "", "the SMS text")
	_ = f.MarkHidden("message-text")
	f.StringVar(&pinType, "type", "", "numeric (default) or alphanumeric")
	f.IntVar(&p.PinLength, "length", 0, "pin length, 4 to 8 (default 6)")
	f.DurationVar(&p.PinTimeToLive, "ttl", 0, "how long the pin stays valid, whole minutes from 1m to 60m (default 10m)")
	f.StringVar(&p.PinPlaceholder, "placeholder", "", "the placeholder in the text (default '< 1234 >')")
	completeValues(cmd, "type", "numeric", "alphanumeric")
	for _, name := range []string{"to", "from"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

func (a *app) otpVerifyCmd() *cobra.Command {
	var pin string
	cmd := &cobra.Command{
		Use:   "verify PIN_ID",
		Short: "Verify a one-time pin",
		Long: `Verify the pin a user typed. Without --pin, the pin is read from the first line of
stdin, so that it stays out of shell history. A pin is single-use.

Exit status 0 when the pin matched, 1 when it did not (the attempts left are printed) or on
an API error.`,
		Example: `  sms otp verify 3f2b9c1e-8d4a-4c2e-9b7f-1a2b3c4d5e6f          # then type the pin
  echo 482913 | sms otp verify 3f2b9c1e-8d4a-4c2e-9b7f-1a2b3c4d5e6f --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("pin-id") {
				return usagef("the pin ID is the argument: sms otp verify PIN_ID")
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			c, err := a.client()
			if err != nil {
				return err
			}
			fromStdin := pin == ""
			if fromStdin {
				if pin, err = a.readSecret("pin"); err != nil {
					return usagef("reading the pin from stdin: %w", err)
				}
				if pin == "" {
					return usagef("no pin: give --pin or type it on stdin")
				}
			}
			v, err := c.OTP.Verify(ctx, &sms.VerifyOTPParams{PinID: args[0], Pin: pin})
			if ve := (*sms.ValidationError)(nil); fromStdin && errors.As(err, &ve) && ve.Field == "Pin" {
				return usagef("invalid pin read from stdin: %s", ve.Reason) // no --pin was given
			}
			if err != nil {
				return apiErr(ctx, err)
			}
			if a.jsonOut {
				err = writeJSON(a.stdout, struct {
					PinID             string `json:"pinId"`
					Verified          bool   `json:"verified"`
					MSISDN            string `json:"msisdn"`
					AttemptsRemaining *int   `json:"attemptsRemaining,omitempty"`
				}{v.PinID, v.Verified, v.To, v.AttemptsRemaining})
			} else {
				t := newTable(a.stdout, "PIN ID", "VERIFIED", "NUMBER")
				t.row(v.PinID, yesNo(v.Verified), v.To)
				err = t.flush()
			}
			if err != nil {
				return err
			}
			if !v.Verified {
				if v.AttemptsRemaining == nil { // the server did not say
					return &failure{errors.New("the pin did not match")}
				}
				return &failure{errors.New("the pin did not match; " + plural(*v.AttemptsRemaining, "attempt", "attempts") + " remaining")}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&pin, "pin", "", "the pin (default: read from stdin)")
	// The pin ID is the argument, as every ID is; --pin-id says so rather than being unknown.
	f.String("pin-id", "", "")
	_ = f.MarkHidden("pin-id")
	return cmd
}
