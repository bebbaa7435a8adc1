package mockserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocumentsStateTheMocksBounds: for each bound the mock enforces that a schema can state,
// a value just past it is refused by the mock and described as invalid by api/openapi.yaml or
// api/mock.openapi.yaml, and the value at it is accepted by both. (Ids in /v1 paths are
// opaque to clients: the document states no shape for them, and the mock answers 404.)
func TestDocumentsStateTheMocksBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	campaign := e.send(sms(num(1))).str("campaign.id")
	ws := e.ws.WorkspaceID
	sender := e.requestSender("Bounds1")
	tests := []struct {
		name   string
		past   call   // just past the bound
		status int    // the mock's answer to past
		field  string // its error.field, for a 400
		at     call   // at the bound, or the nearest valid value; zero: none
	}{
		{"page of /v1", get("/v1/sms/campaigns?page=9223372036854775808"), 400, "page", get("/v1/sms/campaigns?page=9223372036854775807")},
		{"page of /_mock/", get("/_mock/messages?page=9223372036854775808"), 400, "page", get("/_mock/messages?page=9223372036854775807")},
		{"a balance's third decimal", post("/_mock/workspaces/"+ws+"/balance", M{"mode": "live", "balance": 100.005}), 400, "balance",
			post("/_mock/workspaces/"+ws+"/balance", M{"mode": "live", "balance": 100.01})},
		{"a new workspace's third decimal", post("/_mock/workspaces", M{"liveBalance": 0.001}), 400, "liveBalance", post("/_mock/workspaces", M{"liveBalance": 0.01})},
		{"a negative latency", post("/_mock/faults", M{"rules": []M{{"latency": "-0s", "path": "/v1/balance"}}}), 400, "rules[0].latency",
			post("/_mock/faults", M{"rules": []M{{"latency": "+0.5ms", "path": "/v1/balance", "times": 1}}})},
		{"a negative advance", post("/_mock/clock", M{"advance": "-0s"}), 400, "advance", post("/_mock/clock", M{"advance": "0"})},
		{"a workspace id not hex", get("/_mock/workspaces/" + ws[1:] + "g/campaigns"), 404, "", get("/_mock/workspaces/" + ws + "/campaigns")},
		{"a sender ID's id of 25", post("/_mock/sender-ids/"+sender+"0/approve", nil), 404, "", post("/_mock/sender-ids/"+sender+"/approve", nil)},
		{"a campaign id of 23 to deliver", post("/_mock/campaigns/"+campaign[1:]+"/deliver", nil), 404, "", post("/_mock/campaigns/"+campaign+"/deliver", nil)},
		{"a message index with a leading 0", get("/_mock/messages/" + campaign + "-00"), 404, "", get("/_mock/messages/" + campaign + "-0")},
		{"a message index of 10000", get("/_mock/messages/" + campaign + "-10000"), 404, "", call{}},
	}
	for _, tt := range tests {
		assert.Error(t, e.checkRequest(tt.past), "%s: the document calls it valid", tt.name)
		r := e.run(tt.past).wantStatus(tt.status)
		if tt.field != "" {
			assert.Equal(t, tt.field, r.str("error.field"), tt.name)
		}
		if tt.at.method == "" {
			continue
		}
		require.NoError(t, e.checkRequest(tt.at), "%s: the document refuses the value at the bound", tt.name)
		assert.Less(t, e.run(tt.at).Status, 300, "%s: the mock refuses the value at the bound", tt.name)
	}
}
