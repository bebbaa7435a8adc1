package mockserver_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seedsms/sms-go/mockserver"
)

// Past WithIdempotencyLimit, the oldest reference of the workspace is forgotten: sending it
// again is a new send, while the newer ones still replay without a second charge.
func TestIdempotencyLimitOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithIdempotencyLimit(2))
	first := map[string]string{}
	for _, ref := range []string{"r-1", "r-2", "r-3"} {
		first[ref] = e.send(sms(num(1), "reference", ref)).str("campaign.id")
	}
	spent := int64(mockserver.DefaultBalance - e.balance(mockserver.Live))
	for _, ref := range []string{"r-3", "r-2"} {
		r := e.send(sms(num(1), "reference", ref))
		assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"), ref)
		assert.Equal(t, first[ref], r.str("campaign.id"), ref)
	}
	assert.Equal(t, spent, int64(mockserver.DefaultBalance-e.balance(mockserver.Live)), "replays are not charged")
	again := e.send(sms(num(1), "reference", "r-1"))
	assert.Empty(t, again.Header.Get("Idempotent-Replayed"), "r-1 was the oldest: forgotten")
	assert.NotEqual(t, first["r-1"], again.str("campaign.id"))
	assert.Equal(t, 4, e.campaignTotal())
}

// A body the one-pass decoder declines (here, a repeated member, which the general way
// accepts: the last one counts) and the same request written plainly, which it decodes, are
// the same request: the second replays the first, whichever comes first.
func TestIdempotencyAcrossDecoders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, general, plain string
	}{
		{"send", "/v1/sms/send",
			`{"message":"x","to":"` + num(1) + `","from":"MOCKSMS","message":"Hi <b>","reference":"r-1"}`,
			`{"to":"` + num(1) + `","from":"MOCKSMS","message":"Hi <b>","reference":"r-1"}`},
		{"campaign", "/v1/sms/campaigns",
			`{"to":[{"phone":"` + num(1) + `","name":"A\u00e9"},"` + num(2) + `"],"from":"MOCKSMS","from":"MOCKSMS","message":"Hi {{name}}","reference":"r-2"}`,
			`{"reference":"r-2","message":"Hi {{name}}","from":"MOCKSMS","to":[{"name":"Aé","phone":"` + num(1) + `"},"` + num(2) + `"]}`},
	}
	for _, tt := range tests {
		for _, plainFirst := range []bool{false, true} {
			order := "/general-first"
			if plainFirst {
				order = "/plain-first"
			}
			t.Run(tt.name+order, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				first, second := tt.general, tt.plain
				if plainFirst {
					first, second = second, first
				}
				a := e.do(http.MethodPost, tt.path, rawBody(first)).wantStatus(http.StatusAccepted)
				b := e.do(http.MethodPost, tt.path, rawBody(second)).wantStatus(http.StatusAccepted)
				assert.Equal(t, "true", b.Header.Get("Idempotent-Replayed"))
				assert.Equal(t, a.str("campaign.id"), b.str("campaign.id"))
				assert.Equal(t, 1, e.campaignTotal())
			})
		}
	}
}
