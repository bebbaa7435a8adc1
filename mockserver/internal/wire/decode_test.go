package wire

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeJSONHoldsMembersToTheContract(t *testing.T) {
	t.Parallel()
	type body struct {
		To      *string `json:"to"`
		Message *string `json:"message"`
	}
	tests := []struct {
		name, body, field string
		ok                bool
	}{
		{"exact names", `{"to":"1","message":"m"}`, "", true},
		{"another case is unknown", `{"TO":"1","message":"m"}`, "TO", false},
		{"unknown member", `{"to":"1","cc":"2"}`, "cc", false},
		{"escaped unknown name is reported unescaped", "{\"\\u007f\":0}", "\x7f", false},
		{"null member", `{"to":null,"message":"m"}`, "to", false},
		{"null inside a string is fine", `{"to":"null","message":"m"}`, "", true},
		{"wrong type", `{"to":5}`, "to", false},
		{"trailing data", `{"to":"1"} {}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v body
			e := Decode([]byte(tt.body), &v)
			if tt.ok {
				require.Nil(t, e)
				assert.NotNil(t, v.To)
				return
			}
			require.NotNil(t, e)
			assert.Equal(t, tt.field, e.Field)
		})
	}
}

func TestMemberNamesFollowEmbeddedStructs(t *testing.T) {
	t.Parallel()
	type Inner struct {
		Method string `json:"method,omitempty"`
		Skip   string `json:"-"`
		Plain  int
		hidden int
	}
	type outer struct {
		Inner
		Latency string `json:"latency,omitempty"`
	}
	names := memberNames(reflect.TypeFor[outer]())
	assert.Equal(t, map[string]bool{"method": true, "Plain": true, "latency": true}, names)
	_ = outer{}.hidden
}
