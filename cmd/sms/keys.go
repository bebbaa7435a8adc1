package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	sms "github.com/seedsms/sms-go"
)

func (a *app) keysCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Create, list and revoke API keys (with a dashboard token)",
		Long: `Create, list and revoke the workspace's API keys. These commands authenticate with a
dashboard user's JWT: set SMS_DASHBOARD_TOKEN or use --dashboard-token-file.`,
		Example: `  sms keys create --name 'billing service' --scopes sms,balance
  sms keys list
  sms keys revoke 6740a1b2c3d4e5f601234567`,
	}
	cmd.AddCommand(a.keysCreateCmd(), a.keysListCmd(), a.keysRevokeCmd())
	return cmd
}

// keyJSON is an API key in --json output. Secret is set only by keys create.
type keyJSON struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	PublicKey  string     `json:"publicKey"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  *time.Time `json:"createdAt,omitempty"`
	ExpiresAt  *time.Time `json:"expiresAt,omitempty"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
	Secret     string     `json:"secret,omitempty"`
}

func keyOut(k *sms.Key) keyJSON {
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	return keyJSON{
		ID: k.ID, Name: k.Name, Prefix: string(k.Prefix), PublicKey: k.PublicKey, Scopes: scopes,
		CreatedAt: optTime(k.CreatedAt), ExpiresAt: optTime(k.ExpiresAt), RevokedAt: optTime(k.RevokedAt),
		LastUsedAt: optTime(k.LastUsedAt),
	}
}

func keyState(k *sms.Key) string {
	if k.RevokedAt != nil {
		return "revoked"
	}
	return "active"
}

func scopeList(s sms.Scopes) string {
	names := make([]string, len(s))
	for i, sc := range s {
		names[i] = string(sc)
	}
	return strings.Join(names, ",")
}

func (a *app) printKeys(keys []sms.Key) error {
	if a.jsonOut {
		for i := range keys {
			if err := writeJSONLine(a.stdout, keyOut(&keys[i])); err != nil {
				return err
			}
		}
		return nil
	}
	t := newTable(a.stdout, "KEY ID", "NAME", "PUBLIC KEY", "SCOPES", "STATE", "CREATED", "EXPIRES", "LAST USED")
	for i := range keys {
		k := &keys[i]
		t.row(k.ID, k.Name, k.PublicKey, scopeList(k.Scopes), keyState(k), when(k.CreatedAt), when(k.ExpiresAt), when(k.LastUsedAt))
	}
	return t.flush()
}

func (a *app) keysCreateCmd() *cobra.Command {
	var (
		p      sms.CreateKeyParams
		scopes []string
		test   bool
	)
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create an API key; its secret is shown once",
		Long: `Create an API key. The answer holds its secret, shown only this once: store it then
(for instance in a secrets manager, or as SMS_API_SECRET). Scopes are sms, otp, campaigns,
sender_ids and balance; by default the key has all of them.`,
		Example: `  sms keys create --name 'billing service' --scopes sms,balance
  sms keys create --name ci --test --expires-in-days 30 --json | jq -r .secret > ci.secret`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			d, err := a.dashboard()
			if err != nil {
				return err
			}
			if len(scopes) == 0 {
				p.Scopes = sms.AllScopes()
			}
			for _, s := range scopes {
				p.Scopes = append(p.Scopes, sms.Scope(strings.TrimSpace(s)))
			}
			if test {
				p.Prefix = sms.KeyPrefixTest
			}
			k, err := d.Keys.Create(ctx, &p)
			if err != nil {
				return apiErr(ctx, err)
			}
			defer a.note("the secret is shown only this once: store it now")
			if a.jsonOut {
				out := keyOut(k)
				out.Secret = k.Secret
				return writeJSON(a.stdout, out)
			}
			t := newTable(a.stdout, "KEY ID", "NAME", "PUBLIC KEY", "SECRET", "SCOPES", "EXPIRES")
			t.row(k.ID, k.Name, k.PublicKey, k.Secret, scopeList(k.Scopes), when(k.ExpiresAt))
			return t.flush()
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.Name, "name", "", "the key's name, 1 to 100 characters")
	f.StringSliceVar(&scopes, "scopes", nil, "scopes, comma-separated: sms, otp, campaigns, sender_ids, balance (default all)")
	f.BoolVar(&test, "test", false, "a pk_test key (test wallet and data) instead of pk_live")
	f.IntVar(&p.ExpiresInDays, "expires-in-days", 0, "expire the key after 1 to 3650 days (default never)")
	completeValues(cmd, "scopes", "sms", "otp", "campaigns", "sender_ids", "balance")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

func (a *app) keysListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the workspace's API keys, newest first",
		Long:  `List the workspace's API keys, newest first, revoked ones included. Secrets are never listed. With --json, one JSON object per line.`,
		Example: `  sms keys list
  sms keys list --json | jq -r 'select(.revokedAt == null) | .publicKey'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			d, err := a.dashboard()
			if err != nil {
				return err
			}
			// Every page: a server may page the list the API returns whole.
			var keys []sms.Key
			for k, err := range d.Keys.All(ctx, nil) {
				if err != nil {
					return apiErr(ctx, err)
				}
				keys = append(keys, k)
			}
			return a.printKeys(keys)
		},
	}
}

func (a *app) keysRevokeCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "revoke KEY_ID",
		Short:   "Revoke an API key at once",
		Long:    `Revoke an API key: requests with it fail from now on. Revoking a revoked key changes nothing.`,
		Example: `  sms keys revoke 6740a1b2c3d4e5f601234567`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			d, err := a.dashboard()
			if err != nil {
				return err
			}
			k, err := d.Keys.Revoke(ctx, args[0], nil)
			if err != nil {
				return apiErr(ctx, err)
			}
			if a.jsonOut {
				return writeJSON(a.stdout, keyOut(k))
			}
			return a.printKeys([]sms.Key{*k})
		},
	}
}
