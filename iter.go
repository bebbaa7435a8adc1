package sms

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
)

// Pagination describes one page of a list, as the answer states it: under "pagination" (the
// service's), "meta", or at the top level (Laravel's current_page, per_page, last_page), with
// the names such APIs use (page, limit, perPage, per_page, total, totalCount, count, pages,
// ...), or in headers (X-Total-Count, Link); docs/api.md lists every form read.
type Pagination struct {
	Page  int // 1-based page number; 0 when the answer did not say
	Limit int // page size; 0 when the answer did not say
	// Total is the number of items in the whole list, or -1 when the answer did not say (0
	// is an empty list).
	Total int
	// Pages is the number of pages when the answer stated it (pages, totalPages, last_page),
	// else 0.
	Pages int

	cursor  string // the next page's cursor (next_cursor), or ""
	nextURL string // the next page's URL (links.next, next_page_url), or ""
	more    int8   // has_more: 1 true, -1 false, 0 not stated
}

// nextRef is what the following page of a list is fetched by: the cursor an answer gave,
// sent as the query parameter cursor whatever characters it holds (a base64 cursor may hold
// a /), or the URL it gave, followed only when it is this endpoint under the base URL (see
// core.page). The zero nextRef is none: a page fetched by its number.
type nextRef struct{ cursor, url string }

// none reports whether n names no page.
func (n nextRef) none() bool { return n == nextRef{} }

// next is what the following page is fetched with when the answer says so: its cursor, else
// its URL when the answer states no page number (an answer with page numbers is walked by
// them, as Laravel's, whose next_page_url says the same). None for a page-numbered list.
func (pg *Pagination) next() nextRef {
	if pg.cursor != "" {
		return nextRef{cursor: pg.cursor}
	}
	if pg.Page == 0 && pg.nextURL != "" {
		return nextRef{url: pg.nextURL}
	}
	return nextRef{}
}

// paged reports whether the answer of a list that the API returns whole (keys, sender IDs)
// says that more items follow on other pages: a cursor or a URL, has_more true, more pages
// than the one answered, or a total above the n items it holds.
func (pg *Pagination) paged(n int) bool {
	return !pg.next().none() || pg.nextURL != "" || pg.more > 0 || pg.Pages > max(pg.Page, 1) || pg.Total > n
}

// distrust drops the total and the number of pages when the items contradict them: a page
// of n items (not empty) at offset holds more than total, or page lies past the last page stated. It
// returns the paging members dropped, named as on the wire's "pagination".
func (pg *Pagination) distrust(page, offset, n int, bad []string) []string {
	if n > 0 && pg.Total >= 0 && pg.Total < offset+n {
		pg.Total = -1
		bad = append(bad, "pagination.total")
	}
	if pg.Pages > 0 && n > 0 && page > pg.Pages {
		pg.Pages = 0
		bad = append(bad, "pagination.pages")
	}
	return bad
}

// maxStaleFetches bounds the fetches in a row that find only items already yielded, because
// the list grew by a page or more since the previous fetch.
const maxStaleFetches = 10

var errListRacing = errors.New("sms: the list grew by a page or more before each of 10 requests in a row; iterate with a larger Limit")

// maxIdlePages bounds the pages in a row that add no new item although they lie past the items
// already yielded: a server that ignores the page asked for and answers the same page with a
// large total would otherwise be fetched forever.
const maxIdlePages = 3

var errListStuck = errors.New("sms: 3 pages in a row added no new item although the answers say there may be more; the server may be ignoring the page asked for")

// maxBlindPages bounds the pages fetched from a list whose answers state neither a total nor
// a number of pages, and whose pages are all full: such a walk ends with errListUnbounded
// rather than going on forever. At 100 items a page, it is a million items.
const maxBlindPages = 10000

var errListUnbounded = fmt.Errorf("sms: %d full pages came without a total or a number of pages, and none was short: stopping; the server may be ignoring the page asked for", maxBlindPages)

// fetchPage fetches one page of a list: its items and the list's pagination. next, when it
// names a page, is the cursor or the URL the previous answer gave for it (see
// Pagination.next), which page then does not choose.
type fetchPage[T any] func(ctx context.Context, page, limit int, next nextRef) ([]T, Pagination, error)

var errCursorStuck = errors.New("sms: the answer gave the same cursor as the page before: the server may be ignoring it")

var errCursorCycle = errors.New("sms: the answer gave a cursor or a next page already followed in this walk: the cursors go round in a cycle; stopping")

// maxEmptyCursorPages bounds the pages in a row, fetched by cursor, that add no new item: a
// server that answers empty pages with ever new cursors would otherwise be fetched 10,000
// times.
const maxEmptyCursorPages = 10

var errCursorEmpty = fmt.Errorf("sms: %d pages in a row, each with a new cursor, added no new item: stopping; the server may be paging nothing", maxEmptyCursorPages)

var errNoCursor = errors.New("sms: the answer says more items follow (has_more) but gives no cursor or URL to fetch them by")

// walk returns an iterator over a paged list, from page first on, limit items per page. It is
// the one page-walker of every list:
//
//   - lazy: nothing is fetched before the loop starts, and pages are fetched as the loop
//     reaches them;
//   - it stops fetching when the loop breaks, and holds one page at a time;
//   - it yields each item once, even when items are added at the front of the list while it
//     walks (lists are newest first): the growth of the list's total tells how far the items
//     not yet seen moved down, so already-seen items at the top of the next page are skipped
//     and pages are re-fetched or skipped as needed. As a second guard, items whose key was
//     on the previous page that yielded are skipped too. Items added during the walk may or may not be
//     yielded; every item present when the walk started and not removed is yielded once.
//
// When the answers state no total, the walk ends at the last page they state (Pagination.Pages),
// or else at the first page shorter than the page size (an empty one included); after
// maxBlindPages full pages without either it yields an error. The page size is the one the
// answers state when it differs from limit, and else the size of the first page when that
// page is larger than limit, or short although the answer says more items follow (a server
// that uses a page size of its own without saying).
//
// Offsets cannot keep up with a list that grows by a page or more between every two requests:
// after 10 such requests in a row the walk yields an error. A server that ignores the page
// asked for (answering the same items again, with a total that promises more) would be walked
// forever: after 3 pages in a row that add no new item, or at once when the answer names
// another page than the one asked for, the walk yields an error. An error is
// yielded once, with the zero T, and ends the walk.
func walk[T any](ctx context.Context, first, limit int, fetch fetchPage[T], key func(T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		next := (first - 1) * limit // index in the list of the next item not yet yielded
		total := -1                 // the list's total at the previous page
		var prev map[string]struct{}
		stale, idle, fetched := 0, 0, 0
		asked := limit // every request asks for it; limit becomes the server's page size
		for {
			page := next/limit + 1
			items, pg, err := fetch(ctx, page, asked, nextRef{})
			if err == nil && !pg.next().none() {
				// A cursor list: follow its cursors, without page arithmetic.
				walkCursor(ctx, asked, fetch, key, items, pg, prev, yield)
				return
			}
			if err == nil && pg.Page != 0 && pg.Page != page {
				err = fmt.Errorf("sms: the server answered page %d when page %d was asked for", pg.Page, page)
			}
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			fetched++
			size := limit // the page size the server used
			switch {
			case pg.Limit > 0:
				size = pg.Limit
			case fetched == 1 && len(items) > limit:
				size = len(items) // larger than asked, without saying
			case fetched == 1 && len(items) > 0 && len(items) < limit && (pg.Total > len(items)+(page-1)*limit || page < pg.Pages || pg.more > 0):
				size = len(items) // capped without saying
			}
			if size != limit {
				if fetched == 1 {
					next = (page - 1) * size
				}
				limit = size
			}
			if total >= 0 && pg.Total > total {
				next += pg.Total - total // new items at the front pushed the rest down
			}
			total = pg.Total
			start := (page - 1) * limit
			seen := make(map[string]struct{}, len(items))
			added := 0
			for i, it := range items {
				k := key(it)
				seen[k] = struct{}{}
				if start+i < next {
					continue // yielded before the list grew
				}
				if _, dup := prev[k]; dup {
					continue
				}
				added++
				if !yield(it, nil) {
					return
				}
			}
			end := start + len(items)
			switch {
			case pg.more < 0: // has_more: false
				return
			case pg.more > 0 && len(items) == 0:
				var zero T
				yield(zero, errNoCursor)
				return
			case total >= 0:
				if len(items) < limit || max(next, end) >= total {
					return
				}
			case pg.Pages > 0:
				if len(items) == 0 || page >= pg.Pages {
					return
				}
			case len(items) < limit && pg.more == 0:
				return
			case fetched >= maxBlindPages:
				var zero T
				yield(zero, errListUnbounded)
				return
			}
			if end <= next {
				// The whole page was pushed above the items not yet yielded.
				if stale++; stale == maxStaleFetches {
					var zero T
					yield(zero, errListRacing)
					return
				}
				continue
			}
			if added > 0 {
				idle = 0
			} else if idle++; idle == maxIdlePages {
				var zero T
				yield(zero, errListStuck)
				return
			}
			stale, next, prev = 0, end, seen
		}
	}
}

// walkCursor goes on with a walk whose first answer, of items and paging pg, gave the next
// page's cursor or URL: it yields the items (but those whose key was on the page before,
// prev), then fetches the page the answer points to, limit items a request, until an answer
// points to none or says has_more false. An answer that says has_more true but points to no
// page, points to the page just fetched or to any page already followed (a cycle), ends the
// walk with an error, as do maxEmptyCursorPages pages in a row that add no new item and
// maxBlindPages pages; so does an error of a fetch. Its arguments are walk's.
func walkCursor[T any](ctx context.Context, limit int, fetch fetchPage[T], key func(T) string, items []T, pg Pagination, prev map[string]struct{}, yield func(T, error) bool) {
	var zero T
	followed := make(map[nextRef]struct{})
	idle := 0
	for fetched := 1; ; fetched++ {
		seen := make(map[string]struct{}, len(items))
		added := 0
		for _, it := range items {
			k := key(it)
			seen[k] = struct{}{}
			if _, dup := prev[k]; dup {
				continue
			}
			added++
			if !yield(it, nil) {
				return
			}
		}
		from := pg.next()
		if added > 0 {
			idle = 0
		} else {
			idle++
		}
		switch {
		case pg.more < 0:
			return
		case from.none() && pg.more > 0:
			yield(zero, errNoCursor)
			return
		case from.none():
			return
		case fetched >= maxBlindPages:
			yield(zero, errListUnbounded)
			return
		case idle >= maxEmptyCursorPages:
			yield(zero, errCursorEmpty)
			return
		}
		if _, again := followed[from]; again {
			yield(zero, errCursorCycle)
			return
		}
		followed[from] = struct{}{}
		var err error
		prev = seen
		items, pg, err = fetch(ctx, 0, limit, from)
		if err == nil && pg.next() == from {
			err = errCursorStuck
		}
		if err != nil {
			yield(zero, err)
			return
		}
	}
}

// walkWhole returns an iterator over a list that the API returns whole, in one answer (keys,
// sender IDs), and that a server may page all the same. The first request asks for no page;
// when its answer says more items follow (see Pagination.paged), the walk follows its cursor
// or URL as walkCursor does, or else goes on by page number from page 2, as walk does, with
// the page size the answer states or the size of the first page. It is lazy and yields each
// item once; an error is yielded once and ends it. fetch is called with page 0 for the
// first request.
func walkWhole[T any](ctx context.Context, fetch fetchPage[T], key func(T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		items, pg, err := fetch(ctx, 0, 0, nextRef{})
		if err != nil {
			yield(zero, err)
			return
		}
		if !pg.next().none() {
			walkCursor(ctx, 0, fetch, key, items, pg, nil, yield)
			return
		}
		for _, it := range items {
			if !yield(it, nil) {
				return
			}
		}
		if !pg.paged(len(items)) {
			return
		}
		size := cmp.Or(pg.Limit, len(items))
		if size == 0 {
			if pg.more > 0 {
				yield(zero, errNoCursor)
			}
			return
		}
		for it, err := range walk(ctx, 2, size, fetch, key) {
			if !yield(it, err) {
				return
			}
		}
	}
}

// fail returns an iterator that yields err once.
func fail[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}
