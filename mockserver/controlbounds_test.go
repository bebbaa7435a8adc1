package mockserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seedsms/sms-go/mockserver"
)

// TestControlBodiesAreBounded: every free-text member of a control is bounded, a required
// member is required ({} is 400), null is no rule, a rule must do something, and a type error
// inside a fault rule names the member as rules[i].member (issue 16, items 3, 4 and 19).
func TestControlBodiesAreBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cases := []struct {
		name, path string
		body       string
		field      string
	}{
		{"country empty", "/_mock/workspaces", `{"country":""}`, "country"},
		{"country of 101", "/_mock/workspaces", `{"country":"` + strings.Repeat("é", 101) + `"}`, "country"},
		{"dnd without numbers", "/_mock/dnd", `{}`, "numbers"},
		{"faults without rules", "/_mock/faults", `{}`, "rules"},
		{"null rule", "/_mock/faults", `{"rules":[null]}`, "rules[0]"},
		{"null member", "/_mock/faults", `{"rules":[{"status":500,"times":null}]}`, "rules[0].times"},
		{"rule without effect", "/_mock/faults", `{"rules":[{"status":500},{}]}`, "rules[1]"},
		{"rule with only a path", "/_mock/faults", `{"rules":[{"path":"/v1/balance","times":1}]}`, "rules[0]"},
		{"type error", "/_mock/faults", `{"rules":[{"status":500},{"status":500,"times":"2"}]}`, "rules[1].times"},
		{"unknown member", "/_mock/faults", `{"rules":[{"status":500,"often":true}]}`, "rules[0].often"},
		{"method of 17", "/_mock/faults", `{"rules":[{"status":500,"method":"` + strings.Repeat("M", 17) + `"}]}`, "rules[0].method"},
		{"path of 1001", "/_mock/faults", `{"rules":[{"status":500,"path":"/v1/` + strings.Repeat("p", 997) + `"}]}`, "rules[0].path"},
	}
	for _, tc := range cases {
		r := e.do(http.MethodPost, tc.path, rawBody(tc.body)).wantError(http.StatusBadRequest, "bad_request")
		assert.Equal(t, tc.field, r.str("error.field"), tc.name)
		assert.NotContains(t, r.str("error.message"), "FaultRule", tc.name)
	}
	assert.Empty(t, e.srv.Faults(), "a refused list adds nothing")
	assert.Len(t, e.do(http.MethodGet, "/_mock/workspaces", nil).wantStatus(http.StatusOK).list("data"), 1)

	// The bounds themselves are allowed.
	e.do(http.MethodPost, "/_mock/workspaces", rawBody(`{"country":"`+strings.Repeat("é", 100)+`"}`)).wantStatus(http.StatusCreated)
	e.do(http.MethodPost, "/_mock/faults", rawBody(`{"rules":[{"status":500,"method":"`+strings.Repeat("M", 16)+`","times":1}]}`)).wantStatus(http.StatusOK)
	assert.ErrorContains(t, e.srv.AddFaults(mockserver.FaultRule{Times: 1}), "must do something")
}

// TestControlFiltersRefuseEmptyValues: an empty filter on /_mock/ is 400 naming it, as on /v1.
func TestControlFiltersRefuseEmptyValues(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, q := range []string{"to", "from", "campaignId", "kind", "contains", "since", "workspaceId", "mode"} {
		for _, path := range []string{"/_mock/messages", "/_mock/conversations"} {
			r := e.do(http.MethodGet, path+"?"+q+"=", nil).wantError(http.StatusBadRequest, "bad_request")
			assert.Equal(t, q, r.str("error.field"), path)
		}
	}
	r := e.do(http.MethodGet, "/_mock/workspaces/"+e.ws.WorkspaceID+"/campaigns?mode=", nil).wantError(http.StatusBadRequest, "bad_request")
	assert.Equal(t, "mode", r.str("error.field"))
}
