package sms

import "iter"

// Page is one page of a list, as Campaigns.List, Keys.List and SenderIDs.List return it, and
// as Campaigns.Delivery returns a campaign's recipients (Delivery.Recipients): its items, the
// list's Pagination as the answer states it, and the HTTP answer. Its items carry
// no Response of their own. Each list's All iterator walks every page of it.
type Page[T any] struct {
	Items []T
	// Pagination is the paging the answer stated, in its body or its headers. The lists of
	// keys and of sender IDs are not paged (the API returns them whole): their Page is 0 and
	// their Total the count the answer states (the service's "count"), or -1 when it states
	// none.
	Pagination
	// Response is the HTTP answer, with its request ID.
	Response *Response
}

// items returns an iterator over the items of the one page list returns, fetched when the
// loop starts. An error is yielded once, with the zero T, and ends the loop.
func items[T any](list func() (*Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		page, err := list()
		if err != nil {
			var zero T
			yield(zero, err)
			return
		}
		for _, it := range page.Items {
			if !yield(it, nil) {
				return
			}
		}
	}
}
