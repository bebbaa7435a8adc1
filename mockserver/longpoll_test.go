package mockserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestLongPollHandedWhatArrives: a waiting long poll and WaitMessage stay waiting through
// sends they do not select, a clear and a reset, and answer with the first send they select,
// made after they started, with only its recipients they select.
func TestLongPollHandedWhatArrives(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		hc := &http.Client{Transport: srv.Transport()}
		send := func(to string) {
			ws := srv.Default()
			req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/v1/sms/send",
				strings.NewReader(`{"to":`+to+`,"from":"MOCKSMS","message":"Your code is 482913"}`))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-API-Key", ws.LiveKey)
			req.Header.Set("X-API-Secret", ws.LiveSecret)
			res, err := hc.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			require.Equal(t, http.StatusAccepted, res.StatusCode)
		}
		type page struct {
			Data []struct {
				To   string `json:"to"`
				Text string `json:"text"`
			} `json:"data"`
			Pagination struct {
				Total int `json:"total"`
			} `json:"pagination"`
		}
		polled := make(chan page, 1)
		go func() {
			res, err := hc.Get("http://127.0.0.1/_mock/messages?wait=60s&to=2348000000002&kind=sms")
			if !assert.NoError(t, err) {
				return
			}
			defer res.Body.Close()
			var p page
			assert.NoError(t, json.NewDecoder(res.Body).Decode(&p))
			polled <- p
		}()
		waited := make(chan mockserver.Message, 1)
		go func() {
			m, err := srv.WaitMessage(context.Background(), mockserver.Filter{To: "2348000000002"})
			assert.NoError(t, err)
			waited <- m
		}()
		synctest.Wait()

		send(`"2348000000001"`)
		srv.ClearMessages()
		srv.Reset()
		send(`["2348000000003","2348000000001"]`)
		synctest.Wait()
		select {
		case p := <-polled:
			t.Fatalf("the long poll answered before its message: %+v", p)
		case m := <-waited:
			t.Fatalf("WaitMessage answered before its message: %+v", m)
		default:
		}

		send(`["2348000000001","2348000000002","2348000000003"]`)
		p := <-polled
		require.Len(t, p.Data, 1)
		assert.Equal(t, "2348000000002", p.Data[0].To)
		assert.Equal(t, 1, p.Pagination.Total)
		m := <-waited
		assert.Equal(t, "2348000000002", m.To)
		assert.Equal(t, "Your code is 482913", m.Text)
	})
}
