package mockserver_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestDNDRegister: a number on the register gets the status dnd on the generic channel (and
// is charged), in both modes and for campaigns; the dnd channel reaches it, at its price.
func TestDNDRegister(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	require.NoError(t, e.srv.AddDND("08025671695"))
	assert.Error(t, e.srv.AddDND("not a number"))

	// generic: charged, marked dnd at once.
	r := e.send(sms([]string{"2348025671695", num(2)}))
	assert.Equal(t, int64(2*gp), r.kobo("campaign.amount"))
	id := r.str("campaign.id")
	st := e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"dnd", "sent"}, ids(st, "data.recipients", "status"))
	assert.Equal(t, 1, st.int("data.counts.dnd"))
	assert.Equal(t, 1, st.int("data.counts.sent"))
	require.NoError(t, e.srv.Deliver(id, nil))
	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+id+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"dnd", "delivered"}, ids(st, "data.recipients", "status"))
	assert.Equal(t, "partially_delivered", st.str("data.status"))

	// dnd channel: reaches the number, at the dnd price.
	r = e.send(sms([]string{"+2348025671695", num(2)}, "channel", "dnd"))
	assert.Equal(t, int64(2*dp), r.kobo("campaign.amount"))
	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+r.str("campaign.id")+"/status", nil).wantStatus(http.StatusOK)
	assert.Equal(t, []string{"sent", "sent"}, ids(st, "data.recipients", "status"))

	// Campaigns and the test mode see the register too.
	c := e.campaign(sms([]any{M{"phone": "2348025671695", "name": "Ada"}}), e.test())
	st = e.do(http.MethodGet, "/v1/sms/campaigns/"+c.str("campaign.id")+"/status", nil, e.test()).wantStatus(http.StatusOK)
	assert.Equal(t, "dnd", st.str("data.recipients.0.status"))
	assert.Equal(t, "failed", st.str("data.status"), "none delivered")
	assert.Equal(t, int64(gp), c.kobo("campaign.amount"))
}

// TestDNDControl: POST /_mock/dnd puts numbers in any accepted form on the register, once,
// and names a number that is not one (what the register does: TestDNDRegister).
func TestDNDControl(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do(http.MethodPost, "/_mock/dnd", M{"numbers": []string{"08025671695", "+2348031234567"}}).wantStatus(http.StatusOK)
	assert.Equal(t, 2, r.int("count"))
	r = e.do(http.MethodPost, "/_mock/dnd", M{"numbers": []string{"2348025671695"}}).wantStatus(http.StatusOK)
	assert.Equal(t, 2, r.int("count"), "already on the register")
	r = e.do(http.MethodPost, "/_mock/dnd", M{"numbers": []string{num(1), "123"}}).wantError(400, "bad_request")
	assert.Equal(t, "numbers[1]", r.str("error.field"))
}

// TestDNDLimit: the register holds at most WithDNDLimit numbers; numbers already on it do not
// count twice, and a request that would go past the limit is 400 naming numbers and adds
// none of its numbers.
func TestDNDLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, mockserver.WithDNDLimit(3))
	steps := []struct {
		name    string
		numbers []string
		status  int
		count   int
	}{
		{"two", []string{num(1), num(2)}, http.StatusOK, 2},
		{"the same two and one more", []string{num(1), "+234" + num(2)[3:], num(3)}, http.StatusOK, 3},
		{"only numbers already on it", []string{num(3), num(1)}, http.StatusOK, 3},
		{"one past the limit, with one on it", []string{num(1), num(4)}, http.StatusBadRequest, 0},
		{"one new number, twice", []string{num(5), num(5)}, http.StatusBadRequest, 0},
	}
	for _, s := range steps {
		r := e.do(http.MethodPost, "/_mock/dnd", M{"numbers": s.numbers})
		if s.status != http.StatusOK {
			r.wantError(s.status, "bad_request")
			assert.Equal(t, "numbers", r.str("error.field"), s.name)
			assert.Contains(t, r.str("error.message"), "at most 3", s.name)
			continue
		}
		r.wantStatus(http.StatusOK)
		assert.Equal(t, s.count, r.int("count"), s.name)
	}
	require.Error(t, e.srv.AddDND(num(6)))

	// A refused request added nothing: num(4) is not on the register, num(1) is.
	e.send(sms([]string{num(1), num(4)}))
	got := map[string]string{}
	for _, m := range e.srv.Messages(mockserver.Filter{}) {
		got[m.To] = string(m.Status)
	}
	assert.Equal(t, map[string]string{num(1): "dnd", num(4): "sent"}, got)
}
