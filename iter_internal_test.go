package sms

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeList is a newest-first list served in pages. After answering fetch number n it calls
// grow(n), which may add items at the front, as new campaigns would.
type fakeList struct {
	items      []string
	fetches    int
	grow       func(l *fakeList, n int)
	staleTotal bool // report the total of the first fetch forever
	first      int
	failAt     int // fetch number that fails; 0: none
}

func newFakeList(n int) *fakeList {
	l := &fakeList{}
	for i := n - 1; i >= 0; i-- {
		l.items = append(l.items, fmt.Sprintf("old%03d", i))
	}
	return l
}

func (l *fakeList) prepend(n int) {
	for range n {
		l.items = slices.Insert(l.items, 0, fmt.Sprintf("new%03d", len(l.items)))
	}
}

func (l *fakeList) fetch(_ context.Context, page, limit int, _ nextRef) ([]string, Pagination, error) {
	l.fetches++
	if l.fetches == l.failAt {
		return nil, Pagination{}, errors.New("boom")
	}
	total := len(l.items)
	if l.staleTotal {
		if l.fetches == 1 {
			l.first = total
		}
		total = l.first
	}
	start := min((page-1)*limit, len(l.items))
	out := slices.Clone(l.items[start:min(start+limit, len(l.items))])
	if l.grow != nil {
		l.grow(l, l.fetches)
	}
	return out, Pagination{Page: page, Limit: limit, Total: total}, nil
}

func collect(t *testing.T, l *fakeList, first, limit int) []string {
	t.Helper()
	var got []string
	for it, err := range walk(context.Background(), first, limit, l.fetch, func(s string) string { return s }) {
		require.NoError(t, err)
		got = append(got, it)
	}
	return got
}

func TestWalkYieldsEveryItemInOrder(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 10} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			l := newFakeList(n)
			want := slices.Clone(l.items)
			got := collect(t, l, 1, 3)
			assert.Equal(t, want, append([]string(nil), got...))
			assert.Equal(t, max(1, (n+2)/3), l.fetches, "one fetch per page: the total tells when to stop")
		})
	}
}

func TestWalkFromLaterPage(t *testing.T) {
	t.Parallel()
	l := newFakeList(7)
	assert.Equal(t, l.items[3:], collect(t, l, 2, 3))
}

func TestWalkWithItemsAddedWhileWalking(t *testing.T) {
	t.Parallel()
	const limit = 3
	for _, added := range []int{1, 2, limit, limit + 1, 2*limit + 1, 10 * limit} {
		for _, every := range []int{1, 2} {
			t.Run(fmt.Sprintf("%d new after every %d fetches", added, every), func(t *testing.T) {
				t.Parallel()
				l := newFakeList(10)
				want := slices.Clone(l.items)
				l.grow = func(l *fakeList, n int) {
					if n%every == 0 {
						l.prepend(added)
					}
				}
				var got []string
				var err error
				for it, e := range walk(context.Background(), 1, limit, l.fetch, func(s string) string { return s }) {
					if e != nil {
						err = e
						break
					}
					got = append(got, it)
				}
				if added >= limit && every == 1 {
					// The list grows by a page or more between every two fetches:
					// offsets can never catch up.
					require.ErrorIs(t, err, errListRacing)
					assert.LessOrEqual(t, l.fetches, maxStaleFetches+2)
					return
				}
				require.NoError(t, err)
				var old []string
				seen := map[string]int{}
				for _, it := range got {
					seen[it]++
					if it[:3] == "old" {
						old = append(old, it)
					}
				}
				assert.Equal(t, want, old, "every original item once, in order")
				for it, n := range seen {
					assert.Equal(t, 1, n, "%s yielded %d times", it, n)
				}
			})
		}
	}
}

func TestWalkPreviousPageGuard(t *testing.T) {
	t.Parallel()
	// A server whose total does not grow although the list does: the IDs of the previous
	// page still keep the shifted items from being yielded twice.
	l := newFakeList(9)
	l.staleTotal = true
	l.grow = func(l *fakeList, n int) {
		if n == 1 {
			l.prepend(1)
		}
	}
	got := collect(t, l, 1, 3)
	seen := map[string]bool{}
	for _, it := range got {
		assert.False(t, seen[it], "%s twice", it)
		seen[it] = true
	}
}

func TestWalkIsLazyAndStops(t *testing.T) {
	t.Parallel()
	l := newFakeList(10)
	seq := walk(context.Background(), 1, 3, l.fetch, func(s string) string { return s })
	assert.Equal(t, 0, l.fetches, "nothing fetched before the loop")
	n := 0
	for _, err := range seq {
		require.NoError(t, err)
		if n++; n == 4 {
			break
		}
	}
	assert.Equal(t, 2, l.fetches, "no page after the break")
}

func TestWalkError(t *testing.T) {
	t.Parallel()
	l := newFakeList(10)
	l.failAt = 2
	var items []string
	var errs []error
	for it, err := range walk(context.Background(), 1, 3, l.fetch, func(s string) string { return s }) {
		if err != nil {
			errs = append(errs, err)
			assert.Empty(t, it)
			continue
		}
		items = append(items, it)
	}
	assert.Len(t, items, 3)
	require.Len(t, errs, 1)
	assert.EqualError(t, errs[0], "boom")
	assert.Equal(t, 2, l.fetches)
}

func TestFail(t *testing.T) {
	t.Parallel()
	n := 0
	for _, err := range fail[int](ErrNotFound) {
		n++
		assert.ErrorIs(t, err, ErrNotFound)
	}
	assert.Equal(t, 1, n)
}

// TestWalkStopsWhenServerIgnoresPage walks a server that answers the first page
// whatever page is asked for, with a total that promises many more: the walk yields each item
// once and stops with an error after a few fetches, instead of fetching forever.
func TestWalkStopsWhenServerIgnoresPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		echo    bool // the answer names the page asked for, not the page it holds
		fetches int
		want    error // nil: the error names the page mismatch
	}{
		{"echoes the page asked for", true, 1 + maxIdlePages, errListStuck},
		{"says page 1", false, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fetches := 0
			fetch := func(_ context.Context, page, limit int, _ nextRef) ([]string, Pagination, error) {
				if fetches++; fetches > 50 {
					return nil, Pagination{}, errors.New("fetched forever")
				}
				echo := 1
				if tt.echo {
					echo = page
				}
				return []string{"a", "b", "c"}, Pagination{Page: echo, Limit: limit, Total: 1 << 30}, nil
			}
			var got []string
			var err error
			for it, e := range walk(context.Background(), 1, 3, fetch, func(s string) string { return s }) {
				if e != nil {
					err = e
					break
				}
				got = append(got, it)
				require.Less(t, len(got), 100, "the walk does not stop")
			}
			require.Error(t, err)
			if tt.want != nil {
				assert.ErrorIs(t, err, tt.want)
			} else {
				assert.EqualError(t, err, "sms: the server answered page 1 when page 2 was asked for")
			}
			assert.Equal(t, []string{"a", "b", "c"}, got, "each item once")
			assert.Equal(t, tt.fetches, fetches)
		})
	}
}

// A list whose answers state no total and whose pages are all full ends after maxBlindPages
// pages with an error, rather than being fetched forever; one that states its last page ends
// there, even though every page is full.
func TestWalkWithoutTotal(t *testing.T) {
	t.Parallel()
	fetches := 0
	endless := func(_ context.Context, page, limit int, _ nextRef) ([]string, Pagination, error) {
		fetches++
		out := make([]string, limit)
		for i := range out {
			out[i] = fmt.Sprint((page-1)*limit + i)
		}
		return out, Pagination{Page: page, Total: -1}, nil
	}
	n := 0
	var last error
	for _, err := range walk(context.Background(), 1, 2, endless, func(s string) string { return s }) {
		if err != nil {
			last = err
			continue
		}
		n++
	}
	require.ErrorIs(t, last, errListUnbounded)
	assert.Equal(t, maxBlindPages, fetches)
	assert.Equal(t, 2*maxBlindPages, n, "every item of the pages read, once")

	fetches = 0
	lastPage := func(ctx context.Context, page, limit int, _ nextRef) ([]string, Pagination, error) {
		items, pg, err := endless(ctx, page, limit, nextRef{})
		pg.Pages = 7
		return items, pg, err
	}
	n = 0
	for _, err := range walk(context.Background(), 1, 2, lastPage, func(s string) string { return s }) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 7, fetches)
	assert.Equal(t, 14, n)
}
