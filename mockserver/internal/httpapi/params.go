package httpapi

import (
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// pageParams reads page (>= 1, default 1) and limit (1 to 100, default 20).
func pageParams(q url.Values) (page, limit int, err error) {
	return pageParamsOf(valuesQuery(q))
}

// urlPageParams is pageParams of u's query, read without building url.Values when the query
// is plain (see plainQuery): a list is the commonest read.
func urlPageParams(u *url.URL) (page, limit int, err error) {
	if !plainQuery(u.RawQuery) {
		return pageParams(u.Query())
	}
	return pageParamsOf(rawQuery(u.RawQuery))
}

// params is where pageParamsOf finds a parameter's first value.
type params interface {
	first(name string) (string, bool)
}

func pageParamsOf[P params](q P) (page, limit int, err error) {
	page, err = intParam(q, "page", rules.DefaultPage, 1, math.MaxInt)
	if err != nil {
		return 0, 0, err
	}
	limit, err = intParam(q, "limit", rules.DefaultLimit, 1, rules.MaxLimit)
	return page, limit, err
}

func intParam[P params](q P, name string, def, lo, hi int) (int, error) {
	v, ok := q.first(name)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi || v[0] == '+' || v[0] == '-' && n == 0 {
		return 0, badRequest(name, "%s must be an integer from %d to %d.", name, lo, hi)
	}
	return n, nil
}

// rawQuery is a plain query string (see plainQuery), read as url.ParseQuery reads it.
type rawQuery string

// plainQuery reports whether url.ParseQuery would take q's pairs as they are written: no
// escapes to undo (%, +), no semicolon to refuse, and far fewer parameters than its limit
// (10,000 by default).
func plainQuery(q string) bool {
	return len(q) <= 1024 && !strings.ContainsAny(q, "%+;")
}

// first is the value of the first name=value pair (or bare name) named name.
func (q rawQuery) first(name string) (string, bool) {
	s := string(q)
	for s != "" {
		var pair string
		pair, s, _ = strings.Cut(s, "&")
		if k, v, _ := strings.Cut(pair, "="); k == name {
			return v, true
		}
	}
	return "", false
}

// valuesQuery is a query already parsed.
type valuesQuery url.Values

// first is q's first value named name.
func (q valuesQuery) first(name string) (string, bool) {
	vs, ok := q[name]
	if !ok {
		return "", false
	}
	return vs[0], true
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
