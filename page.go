package sms

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
