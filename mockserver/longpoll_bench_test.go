package mockserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// BenchmarkSendWaiters is POST /v1/sms/send to one recipient while long polls (GET
// /_mock/messages?wait=60s&to=...) wait over a store of a million messages, each for its own
// number. Send i goes to the number waiter i%waiters waits for, and the op ends when that
// waiter has its answer; the other waiters keep waiting. What a send costs must not grow with
// the store, nor with the waiters beyond matching the new message against each.
func BenchmarkSendWaiters(b *testing.B) {
	if testing.Short() {
		b.Skip("a million messages: not with -short")
	}
	for _, waiters := range []int{1, 256} {
		b.Run("waiters="+strconv.Itoa(waiters), func(b *testing.B) {
			s, c := benchServer(b)
			benchFill(b, s.api.Store(), c, 100, 10_000) // numbers from 2348000000000 on
			h, ws := s.Handler(), s.Default()
			const base = 2349000000000 // numbers no campaign of benchFill went to
			ctx, cancel := context.WithCancel(context.Background())
			answered := make([]chan struct{}, waiters)
			done := make(chan struct{})
			for k := range waiters {
				answered[k] = make(chan struct{}, 1)
				go func() {
					defer func() { done <- struct{}{} }()
					for r := 0; ctx.Err() == nil; r++ {
						to := strconv.Itoa(base + r*waiters + k)
						req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/_mock/messages?wait=60s&to="+to, nil)
						rec := httptest.NewRecorder()
						h.ServeHTTP(rec, req)
						if ctx.Err() != nil {
							return
						}
						if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"to":"`+to+`"`)) {
							panic("waiter for " + to + ": " + strconv.Itoa(rec.Code) + " " + rec.Body.String())
						}
						answered[k] <- struct{}{}
					}
				}()
			}
			b.Cleanup(func() {
				cancel()
				for range waiters {
					<-done
				}
			})
			req := httptest.NewRequest(http.MethodPost, "/v1/sms/send", nil)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-API-Key", ws.LiveKey)
			req.Header.Set("X-API-Secret", ws.LiveSecret)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				body := []byte(`{"to":"` + strconv.Itoa(base+i) + `","from":"MOCKSMS","message":"Your order 42 has shipped."}`)
				req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
				benchServe(b, h, req, http.StatusAccepted)
				<-answered[i%waiters]
				i++
			}
		})
	}
}
