package mockserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

type sseEvent struct {
	ID   uint64
	Type string
	Data map[string]any
}

// stream is an open GET /_mock/events.
type stream struct {
	t  *testing.T
	rd *bufio.Reader
}

// openEvents connects to the event stream (resuming after lastID when it is not empty) and
// returns once the server has subscribed it.
func (e *env) openEvents(t *testing.T, lastID string) *stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a stream that stalls fails, not hangs
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL()+"/_mock/events", nil)
	require.NoError(t, err)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := (&http.Client{Transport: e.hc.Transport}).Do(req) // no Timeout: a stream stays open
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); res.Body.Close() })
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	s := &stream{t: t, rd: bufio.NewReader(res.Body)}
	for { // up to the end of the greeting block
		line, err := s.rd.ReadString('\n')
		require.NoError(t, err)
		if line == "\n" {
			return s
		}
	}
}

// next reads the next event, skipping comments.
func (s *stream) next() sseEvent {
	s.t.Helper()
	var ev sseEvent
	for {
		line, err := s.rd.ReadString('\n')
		require.NoError(s.t, err)
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && ev.Type != "":
			return ev
		case strings.HasPrefix(line, "id: "):
			ev.ID, err = strconv.ParseUint(line[4:], 10, 64)
			require.NoError(s.t, err)
		case strings.HasPrefix(line, "event: "):
			ev.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			dec := json.NewDecoder(strings.NewReader(line[6:]))
			dec.UseNumber()
			require.NoError(s.t, dec.Decode(&ev.Data), line)
		}
	}
}

func (s *stream) types(n int) ([]string, []sseEvent) {
	s.t.Helper()
	var types []string
	var evs []sseEvent
	for range n {
		ev := s.next()
		types = append(types, ev.Type)
		evs = append(evs, ev)
	}
	return types, evs
}

func TestEventsInOrderAndResumable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.openEvents(t, "")

	id := e.send(sms([]string{num(1), num(2)})).str("campaign.id")
	require.NoError(t, e.srv.Deliver(id, &mockserver.DeliverCounts{Delivered: 1}))
	require.NoError(t, e.srv.Deliver(id, &mockserver.DeliverCounts{DND: 1}))
	e.setBalance(mockserver.ModeTest, 500)
	sid := e.requestSender("ACME")
	require.NoError(t, e.srv.ApproveSenderID(sid))
	pinID, pin := e.otp(otpBody(num(3)))
	e.verify(pinID, pin).wantStatus(http.StatusOK)
	e.srv.AddFaults(mockserver.FaultRule{Path: "/v1/balance", Status: 503})
	e.srv.ClearFaults()
	e.srv.Advance(time.Minute)
	e.srv.ClearMessages()
	e.srv.Reset()

	want := []string{
		"messages.created", "wallet.changed",
		"messages.status", "messages.status", "campaign.settled",
		"wallet.changed",
		"senderid.changed", "senderid.changed",
		"messages.created", "otp.sent", "wallet.changed", "otp.verified",
		"faults.changed", "faults.changed",
		"clock.advanced", "messages.cleared", "reset",
	}
	types, evs := s.types(len(want))
	assert.Equal(t, want, types)
	for i := 1; i < len(evs); i++ {
		assert.Equal(t, evs[i-1].ID+1, evs[i].ID, "ids go up by one")
	}
	assert.Equal(t, id, evs[0].Data["campaignId"])
	for _, i := range []int{0, 1, 2, 4, 8, 10} { // messages, wallets, statuses: the workspace by its id
		assert.Equal(t, e.ws.WorkspaceID, evs[i].Data["workspaceId"], "%s", want[i])
	}
	assert.Equal(t, id, evs[2].Data["campaignId"])
	assert.Contains(t, evs[8].Data, "campaignId")
	assert.Nil(t, evs[8].Data["campaignId"], "an OTP's messages.created has a null campaignId")
	assert.Equal(t, []any{num(1), num(2)}, evs[0].Data["to"])
	assert.Equal(t, "9993.60", evs[1].Data["balance"].(json.Number).String())
	assert.Equal(t, "partially_delivered", evs[4].Data["status"])
	assert.Equal(t, []any{"pending", "active"}, []any{evs[6].Data["status"], evs[7].Data["status"]})
	for _, ev := range evs[8:12] {
		raw, _ := json.Marshal(ev.Data)
		assert.NotContains(t, string(raw), pin, "%s: an event never holds a pin", ev.Type)
	}

	// A client that comes back with the id of the third event gets the rest, in order.
	again := e.openEvents(t, strconv.FormatUint(evs[2].ID, 10))
	types, _ = again.types(len(want) - 3)
	assert.Equal(t, want[3:], types)

	// An id the server never gave (a restarted mock): resync, then live events.
	lost := e.openEvents(t, "999999")
	assert.Equal(t, "resync", lost.next().Type)
	e.srv.Advance(time.Second)
	assert.Equal(t, "clock.advanced", lost.next().Type)

	e.do(http.MethodGet, "/_mock/events", nil, withHeader("Last-Event-ID", "abc")).wantError(http.StatusBadRequest, "bad_request")
}

// TestSlowSubscriberNeverBlocksTheAPI: a stream nobody reads does not hold up publishing, and
// a client further behind than the ring of recent events is told to resync.
func TestSlowSubscriberNeverBlocksTheAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.openEvents(t, "")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 1100 { // more than the ring of 1,024 holds
			e.srv.Advance(time.Millisecond)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("publishing blocked on a subscriber that does not read")
	}
	e.srv.ClearFaults()
	// The reader comes back: every event up to faults.changed, or a resync, which stands for
	// every event up to its id (a client reads the state again), and then the events after it.
	for i := 0; ; i++ {
		require.Less(t, i, 1102, "the stream did not go on")
		ev := s.next()
		require.Contains(t, []string{"clock.advanced", "resync", "faults.changed"}, ev.Type)
		if ev.Type == "faults.changed" {
			break
		}
		if ev.Type == "resync" {
			e.srv.ClearFaults()
		}
	}

	behind := e.openEvents(t, "1")
	assert.Equal(t, "resync", behind.next().Type, "event 2 is no longer in the ring")
	e.srv.ClearFaults()
	assert.Equal(t, "faults.changed", behind.next().Type, "the stream goes on after a resync")
}

// TestEventStreamsAndWaitsAreBounded: 64 event streams and 256 long polls at once; one more is
// a 429 with Retry-After, and a place freed is usable again.
func TestEventStreamsAndWaitsAreBounded(t *testing.T) {
	t.Parallel()
	t.Run("event streams", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		streams := make([]*http.Response, 64)
		client := &http.Client{Transport: e.hc.Transport}
		for i := range streams {
			res, err := client.Get(e.srv.URL() + "/_mock/events")
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, res.StatusCode)
			streams[i] = res
		}
		r := e.do(http.MethodGet, "/_mock/events", nil).wantError(http.StatusTooManyRequests, "rate_limited")
		assert.Equal(t, "1", r.Header.Get("Retry-After"))
		streams[0].Body.Close()
		for _, s := range streams[1:] {
			defer s.Body.Close()
		}
		require.Eventually(t, func() bool { // the server notices the closed stream
			res, err := client.Get(e.srv.URL() + "/_mock/events")
			if err != nil {
				return false
			}
			defer res.Body.Close()
			return res.StatusCode == http.StatusOK
		}, 5*time.Second, 20*time.Millisecond)
	})
	t.Run("long polls", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			e := newInProcessEnv(t)
			get := func() *resp {
				r, err := e.try(http.MethodGet, "/_mock/messages?wait=10s", nil)
				assert.NoError(t, err)
				return r
			}
			for range 256 {
				go get()
			}
			synctest.Wait() // all 256 are waiting
			start := time.Now()
			r := get().wantError(http.StatusTooManyRequests, "rate_limited")
			assert.Equal(t, "1", r.Header.Get("Retry-After"))
			assert.Zero(t, time.Since(start), "refused at once")
			time.Sleep(10 * time.Second) // virtual: the 256 end
			synctest.Wait()
			get().wantStatus(http.StatusOK)
		})
	})
}
