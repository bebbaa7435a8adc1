package mockserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestWorkspaceAndMessageHideSecrets: no fmt verb, no slog handler and no JSON encoding
// shows a Workspace's secrets and token or a Message's pin (issue 16, item 17), while the
// routes still answer them where the contract says so.
func TestWorkspaceAndMessageHideSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ws := e.ws
	e.otp(otpBody(num(1), "pin_length", 8))
	msgs := e.srv.Messages(mockserver.Filter{Kind: "otp"})
	require.Len(t, msgs, 1)
	m := msgs[0]
	require.NotEmpty(t, m.Pin)
	values := []struct {
		name    string
		v       any
		secrets []string
		shown   string // something that must still be there
	}{
		{"workspace", ws, []string{ws.LiveSecret, ws.TestSecret, ws.DashboardToken}, ws.LiveKey},
		{"message", m, []string{m.Pin}, m.To},
	}
	for _, tc := range values {
		var outs []string
		// Not %p: fmt answers it for a non-pointer before any method, with the fields raw.
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%t", "%x", "%X", "%10.3s", "%e", "%c", "%U", "%b", "%o", "%g"} {
			outs = append(outs, fmt.Sprintf(verb, tc.v))
		}
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "v", tc.v)
		slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "v", tc.v)
		outs = append(outs, buf.String())
		b, err := json.Marshal(tc.v)
		require.NoError(t, err)
		outs = append(outs, string(b))
		for i, out := range outs {
			for _, s := range tc.secrets {
				assert.NotContains(t, out, s, "%s, output %d", tc.name, i)
			}
		}
		assert.Contains(t, outs[0], tc.shown, tc.name)
		assert.Contains(t, buf.String(), tc.shown, tc.name)
	}

	// The routes answer with the real values.
	r := e.do("POST", "/_mock/workspaces", nil).wantStatus(201)
	assert.Regexp(t, `^sk_live_`, r.str("liveSecret"))
	assert.NotEmpty(t, r.str("dashboardToken"))
	latest := e.do("GET", "/_mock/otps/latest?to="+num(1), nil).wantStatus(200)
	assert.Equal(t, m.Pin, latest.str("pin"))
	listed := e.do("GET", "/_mock/messages?kind=otp", nil).wantStatus(200)
	assert.Equal(t, m.Pin, listed.str("data.0.pin"))
}

// TestKeyHidesSecret: no fmt verb and no slog handler shows the secret of a Key made by NewKey.
func TestKeyHidesSecret(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k, err := e.srv.NewKey(e.ws.WorkspaceID, mockserver.KeyOptions{Mode: mockserver.ModeTest})
	require.NoError(t, err)
	require.NotEmpty(t, k.Secret)
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "key", k)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "key", k)
	outs := []string{buf.String()}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%t", "%x", "%X", "%10.3s", "%e", "%c", "%U", "%b", "%o", "%g"} {
		out := fmt.Sprintf(verb, k)
		assert.NotContains(t, out, k.Secret, verb)
		outs = append(outs, out)
	}
	assert.NotContains(t, buf.String(), k.Secret, "slog")
	assert.Contains(t, outs[1], k.PublicKey, "%v still shows the public key")
	assert.Contains(t, buf.String(), k.PublicKey, "slog still shows the public key")
}

// Workspace.Credentials is the one way to the secrets in JSON: its form has the members of
// POST /_mock/workspaces's answer, with the real values.
func TestWorkspaceCredentialsShowTheSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	answered := e.do("POST", "/_mock/workspaces", nil).wantStatus(201).Body
	delete(answered, "requestId") // every answer of the mock's has one
	ws, err := e.srv.NewWorkspace(mockserver.WorkspaceParams{})
	require.NoError(t, err)

	b, err := json.Marshal(ws.Credentials())
	require.NoError(t, err)
	var shown map[string]any
	require.NoError(t, json.Unmarshal(b, &shown))
	assert.ElementsMatch(t, slices.Collect(maps.Keys(answered)), slices.Collect(maps.Keys(shown)))
	assert.Equal(t, map[string]any{"url": ws.URL, "workspaceId": ws.WorkspaceID, "dashboardToken": ws.DashboardToken,
		"liveKey": ws.LiveKey, "liveSecret": ws.LiveSecret, "testKey": ws.TestKey, "testSecret": ws.TestSecret,
		"senderId": ws.SenderID}, shown)
	assert.Regexp(t, `^sk_live_`, shown["liveSecret"])
}
