package mockserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// TestLongPollSearchesShareTheQueue: while every scan turn is held, searches with wait= and
// without queue in one bounded queue; past store.MaxQueuedSearches of them a search is
// refused with 429 and Retry-After, a long poll as a plain one. Given the turns back, the
// queued ones are answered.
func TestLongPollSearchesShareTheQueue(t *testing.T) {
	t.Parallel()
	s, err := New()
	require.NoError(t, err)
	defer s.Close()
	st := s.api.Store()
	var held []func()
	for range store.MaxSearches {
		release, err := st.SearchTurn(context.Background())
		require.NoError(t, err)
		held = append(held, release)
	}
	h := s.Handler()
	get := func(ctx context.Context, target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil).WithContext(ctx))
		return rec
	}
	const longPoll = "/_mock/messages?contains=no+such+text&wait=1ms"
	const plain = "/_mock/messages?contains=no+such+text"
	var wg sync.WaitGroup
	codes := make(chan int, store.MaxQueuedSearches)
	for k := range store.MaxQueuedSearches {
		target := longPoll
		if k%4 == 3 {
			target = plain
		}
		wg.Go(func() { codes <- get(context.Background(), target).Code })
		require.Eventually(t, func() bool { return st.SearchesWaiting() == k+1 }, time.Minute, time.Millisecond, "search %d queues", k)
	}
	for _, target := range []string{longPoll, plain} {
		// Answered at once; one that queued instead gives up after a while (and fails).
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rec := get(ctx, target)
		cancel()
		assert.Equal(t, http.StatusTooManyRequests, rec.Code, "%s past the queue: %s", target, rec.Body)
		assert.Equal(t, "1", rec.Header().Get("Retry-After"), target)
	}
	for _, release := range held {
		release()
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		assert.Equal(t, http.StatusOK, code, "a queued search is answered")
	}
}
