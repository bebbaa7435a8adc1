package httpapi

import (
	"math"
	"net/url"
	"strconv"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// pageParams reads page (>= 1, default 1) and limit (1 to 100, default 20).
func pageParams(q url.Values) (page, limit int, err error) {
	page, err = intParam(q, "page", rules.DefaultPage, 1, math.MaxInt)
	if err != nil {
		return 0, 0, err
	}
	limit, err = intParam(q, "limit", rules.DefaultLimit, 1, rules.MaxLimit)
	return page, limit, err
}

func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
	vs, ok := q[name]
	if !ok {
		return def, nil
	}
	v := vs[0]
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi || v[0] == '+' || v[0] == '-' && n == 0 {
		return 0, badRequest(name, "%s must be an integer from %d to %d.", name, lo, hi)
	}
	return n, nil
}

// pageOffset is where a page starts, or math.MaxInt when that is past any list.
func pageOffset(page, limit int) int {
	if page-1 > math.MaxInt/limit {
		return math.MaxInt
	}
	return (page - 1) * limit
}

// nonEmptyParams refuses a filter given with an empty value (?to=), as /v1 does: a filter
// that is there must say something.
func nonEmptyParams(q url.Values, names ...string) error {
	for _, name := range names {
		if vs, ok := q[name]; ok && vs[0] == "" {
			return badRequest(name, "%s cannot be empty; leave it out to match every value.", name)
		}
	}
	return nil
}

// modeParam reads mode (live, the default, or test).
func modeParam(rq *request) (store.Mode, error) {
	q := rq.r.URL.Query()
	if err := nonEmptyParams(q, "mode"); err != nil {
		return 0, err
	}
	switch m := q.Get("mode"); m {
	case "", "live":
		return store.Live, nil
	case "test":
		return store.Test, nil
	}
	return 0, badRequest("mode", "mode must be live or test.")
}

// decodeOptional decodes a control's body when there is one.
func decodeOptional(body []byte, v any) *wire.Error {
	if len(body) == 0 {
		return nil
	}
	return wire.Decode(body, v)
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
