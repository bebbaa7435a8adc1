package bulk_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

// Recipients without a name in a message with {{name}} are counted (a dry run says how many
// texts would read "Hi , ..."), and NameFallback names them.
func TestSendBulkNameFallback(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newServer(t)
	c := newClient(t, srv)
	rs := []sms.Recipient{{Phone: bulkPhone(1), Name: "Ada"}, {Phone: bulkPhone(2)}, {Phone: bulkPhone(3), Name: " \t"}, {Phone: bulkPhone(2), Name: "Dup"}}
	p := &bulk.Params{JobID: "names", From: "MOCKSMS", Message: "Hi {{name}}, your order shipped", Recipients: bulk.RecipientsFrom(rs), DryRun: true}
	r, err := bulk.Send(ctx, c, p)
	require.NoError(t, err)
	assert.Equal(t, 2, r.Nameless)

	p = &bulk.Params{JobID: "names", From: "MOCKSMS", Message: "Hi {{name}}, your order shipped", Recipients: bulk.RecipientsFrom(rs), NameFallback: "customer"}
	r, err = bulk.Send(ctx, c, p)
	require.NoError(t, err)
	assert.Zero(t, r.Nameless)
	texts := map[string]string{}
	for _, m := range srv.Messages(mockserver.Filter{Kind: mockserver.KindSMS}) {
		texts[m.To] = m.Text
	}
	assert.Equal(t, map[string]string{bulkPhone(1): "Hi Ada, your order shipped", bulkPhone(2): "Hi customer, your order shipped",
		bulkPhone(3): "Hi customer, your order shipped"}, texts)

	for _, bad := range []string{" ", strings.Repeat("x", 101), "\xff"} {
		p.NameFallback = bad
		_, err = bulk.Send(ctx, c, p)
		var ve *sms.ValidationError
		require.ErrorAs(t, err, &ve, "%q", bad)
		assert.Equal(t, "NameFallback", ve.Field)
	}
}
