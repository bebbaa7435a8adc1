package httpapi

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// newDeliveryAPI is an API with automatic delivery a second after each send, on the real
// clock (a synctest bubble's), keeping maxMessages messages.
func newDeliveryAPI(maxMessages int) *API {
	return New(Config{GenericPrice: 320, DNDPrice: 450, LiveBalance: 1 << 40, TestBalance: 1 << 40, Country: "Nigeria",
		RequestLogSize: 10, MaxMessages: maxMessages, MaxWorkspaces: 10, MaxDND: 10, DeliveryDelay: time.Second, Now: time.Now})
}

// TestDeliveryTimer: the timer settles what falls due with no request; once stopped (Close)
// nothing arms it again, not even a tick that was running, so that a closed server leaves no
// timer behind; ResumeDelivery settles what fell due meanwhile.
func TestDeliveryTimer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a := newDeliveryAPI(1000)
		st := a.Store()
		c, err := st.Workspace(a.Default().WorkspaceID)
		require.NoError(t, err)
		sentAt := time.Now()
		send := func(p uint64) string {
			acc, err := st.Send(c, store.SendParams{From: store.DefaultSenderID, Message: "hi", Targets: []store.Target{{Phone: p}}}, sentAt)
			require.NoError(t, err)
			return acc.ID.String()
		}
		read := func(id string) store.Recipient {
			_, rs, err := st.CampaignStatus(c, id, 1, 1, time.Now().UnixNano())
			require.NoError(t, err)
			return rs[0]
		}
		ordinary, slow := send(2348000000001), send(store.MagicSlow)

		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, store.RecipientDelivered, read(ordinary).Status, "the timer settled it")
		assert.Equal(t, store.RecipientSent, read(slow).Status)

		a.StopDelivery()
		a.tick() // a tick that was running when the server closed
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Equal(t, store.RecipientSent, read(slow).Status, "no timer ran after StopDelivery")

		a.ResumeDelivery()
		assert.Equal(t, store.RecipientDelivered, read(slow).Status)
		assert.Equal(t, sentAt.Add(store.SlowDeliveryDelay).UnixNano(), read(slow).UpdatedAt)
		a.StopDelivery()
	})
}

// TestResetDropsTheDueQueue: Reset drops the store with its queue of campaigns awaiting
// delivery; the timer armed for them then settles the new store, which has nothing due.
func TestResetDropsTheDueQueue(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a := newDeliveryAPI(1000)
		defer a.StopDelivery()
		old := a.Store()
		c, err := old.Workspace(a.Default().WorkspaceID)
		require.NoError(t, err)
		_, err = old.Send(c, store.SendParams{From: store.DefaultSenderID, Message: "hi", Targets: []store.Target{{Phone: store.MagicSlow}}}, time.Now())
		require.NoError(t, err)
		later := time.Now().Add(time.Hour).UnixNano()
		require.True(t, old.Due(later))

		a.Reset()
		assert.False(t, a.Store().Due(later), "the new store has nothing queued")
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.True(t, old.Due(later), "the timer settled the new store, not the one Reset dropped")
	})
}

// TestDeliveryTimerGathersAStream: sends that fall due one after the other, 10 µs apart, are
// settled by a few firings of the timer, at least deliveryGap apart, rather than one a send,
// and none is left sent later than deliveryGap after its time.
func TestDeliveryTimerGathersAStream(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a := newDeliveryAPI(10_000)
		defer a.StopDelivery()
		st := a.Store()
		c, err := st.Workspace(a.Default().WorkspaceID)
		require.NoError(t, err)
		const sends, apart = 500, 10 * time.Microsecond
		var ids []string
		for i := range sends {
			acc, err := st.Send(c, store.SendParams{From: store.DefaultSenderID, Message: "hi",
				Targets: []store.Target{{Phone: 2348000000001 + uint64(i)}}}, time.Now())
			require.NoError(t, err)
			ids = append(ids, acc.ID.String())
			time.Sleep(apart)
		}
		time.Sleep(time.Second - apart + deliveryGap) // the last send's time, and the gap
		synctest.Wait()
		for _, id := range ids {
			_, rs, err := st.CampaignStatus(c, id, 1, 1, time.Now().UnixNano())
			require.NoError(t, err)
			require.Equal(t, store.RecipientDelivered, rs[0].Status, "campaign %s", id)
		}
		a.delivery.mu.Lock()
		fired := a.delivery.fired
		a.delivery.mu.Unlock()
		span := sends * apart
		assert.LessOrEqual(t, fired, int(span/deliveryGap)+2, "firings for %d sends over %s", sends, span)
	})
}

// TestWhichRequestsSettle: with the timer stopped and a campaign due, a send (whose answer
// shows nothing settling changes) leaves it due, for the timer; every route that reads
// campaigns, and every control, settles it on its way in, so that no read shows what is due
// unsettled.
func TestWhichRequestsSettle(t *testing.T) {
	t.Parallel()
	const sms = `{"to":"2348025671695","from":"` + store.DefaultSenderID + `","message":"Hello"}`
	for _, tc := range []struct {
		method, path, body string
		want               int
		settles            bool
	}{
		{http.MethodPost, "/v1/sms/send", sms, http.StatusAccepted, false},
		{http.MethodPost, "/v1/sms/campaigns", `{"to":["2348025671695"],"from":"` + store.DefaultSenderID + `","message":"Hello"}`, http.StatusAccepted, false},
		{http.MethodPost, "/v1/otp/send", `{"to":"2348025671695","from":"` + store.DefaultSenderID + `","message_text":"Your code is < 1234 >"}`, http.StatusOK, false},
		{http.MethodGet, "/v1/sms/campaigns", "", http.StatusOK, true},
		{http.MethodGet, "/v1/balance", "", http.StatusOK, true},
		{http.MethodGet, "/_mock/messages", "", http.StatusOK, true},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				a := newDeliveryAPI(1000)
				a.StopDelivery()
				st := a.Store()
				c, err := st.Workspace(a.Default().WorkspaceID)
				require.NoError(t, err)
				_, err = st.Send(c, store.SendParams{From: store.DefaultSenderID, Message: "hi", Targets: []store.Target{{Phone: 2348000000001}}}, time.Now())
				require.NoError(t, err)
				time.Sleep(2 * time.Second)
				require.True(t, st.Due(time.Now().UnixNano()))

				ct := ""
				if tc.body != "" {
					ct = "application/json"
				}
				w := serve(t, a, tc.method, tc.path, "ok", ct, tc.body)
				require.Equal(t, tc.want, w.Code, w.Body.String())
				assert.Equal(t, !tc.settles, st.Due(time.Now().UnixNano()), "left due")
			})
		})
	}
}
