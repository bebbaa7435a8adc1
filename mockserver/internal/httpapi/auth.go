package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// authenticateJWT accepts only HS256 tokens with an exp in the future (on the mock's clock)
// and a wid naming a workspace.
func (a *API) authenticateJWT(rq *request) (store.Caller, *apiError) {
	h := rq.r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return store.Caller{}, newError(http.StatusUnauthorized, "Missing dashboard token (Authorization: Bearer <JWT>).")
	}
	var claims dashboardClaims
	_, err := jwt.ParseWithClaims(tok, &claims, func(*jwt.Token) (any, error) { return a.cfg.JWTSecret, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(), jwt.WithTimeFunc(a.clock.Now))
	if err != nil || !expIsNumber(tok) {
		return store.Caller{}, newError(http.StatusUnauthorized, "Invalid or expired dashboard token.")
	}
	id, ok := ids.Parse(claims.WID)
	if !ok {
		return store.Caller{}, newError(http.StatusUnauthorized, "Invalid or expired dashboard token.")
	}
	c, ok := rq.st.store.Dashboard(id)
	if !ok {
		return store.Caller{}, newError(http.StatusUnauthorized, "Invalid or expired dashboard token.")
	}
	return c, nil
}

// expIsNumber reports whether a parsed token's exp claim is a JSON number, as RFC 7519 says
// it must be: jwt/v5 also reads a string of digits as a date.
func expIsNumber(tok string) bool {
	_, rest, _ := strings.Cut(tok, ".")
	payload, _, _ := strings.Cut(rest, ".")
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return false
	}
	var c struct {
		Exp json.RawMessage `json:"exp"`
	}
	if json.Unmarshal(b, &c) != nil || len(c.Exp) == 0 {
		return false
	}
	return c.Exp[0] == '-' || (c.Exp[0] >= '0' && c.Exp[0] <= '9')
}

// rateLimit counts the request against its key's limit and sets the headers.
func (a *API) rateLimit(w http.ResponseWriter, rq *request) *apiError {
	rl := rq.st.store.Allow(rq.caller, a.cfg.RateLimit, rq.now)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(a.cfg.RateLimit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(rl.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(rl.Reset, 10))
	if rl.Error != nil {
		return apiErrorOf(rl.Error)
	}
	return nil
}
