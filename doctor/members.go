package doctor

import (
	"slices"
	"strings"
)

// members is what the SDK knows of a JSON value: the members of an object, each with what is
// known of its own value, or what is known of an array's items. A leaf (neither) is a value
// whose inside is not compared: a string, a number, a boolean, null.
type members struct {
	order []string // the object's member names, in the order they were declared
	names map[string]*members
	item  *members // an array's items; nil when the value is not an array of objects
}

// known builds the members of a response from paths such as "data.balance" or
// "data[].title", where "[]" marks an array whose items are objects.
func known(paths ...string) *members {
	root := &members{}
	for _, p := range paths {
		n := root
		for seg := range strings.SplitSeq(p, ".") {
			name, array := strings.CutSuffix(seg, "[]")
			child := n.names[name]
			if child == nil {
				if n.names == nil {
					n.names = map[string]*members{}
				}
				child = &members{}
				n.names[name] = child
				n.order = append(n.order, name)
			}
			if array {
				if child.item == nil {
					child.item = &members{}
				}
				child = child.item
			}
			n = child
		}
	}
	return root
}

// compare walks v, a value decoded by encoding/json, and returns the members m names that v
// lacks, in the order m declares them, and the members v has that m does not name, sorted, as
// paths such as "data[0]._id". Objects are compared member by member, arrays by their first
// item. A member is present when its name is, whatever its value (null included); a value of
// another type than expected (null where an object is, a string where an array is) is not
// looked into: reading it is the SDK's part.
func (m *members) compare(v any) (missing, unknown []string) {
	m.walk(v, "", &missing, &unknown)
	slices.Sort(unknown)
	return missing, unknown
}

func (m *members) walk(v any, path string, missing, unknown *[]string) {
	switch v := v.(type) {
	case map[string]any:
		if m.names == nil {
			return
		}
		for _, name := range m.order {
			if value, ok := v[name]; ok {
				m.names[name].walk(value, join(path, name), missing, unknown)
			} else {
				*missing = append(*missing, join(path, name))
			}
		}
		for name := range v {
			if _, ok := m.names[name]; !ok {
				*unknown = append(*unknown, join(path, name))
			}
		}
	case []any:
		if m.item != nil && len(v) > 0 {
			m.item.walk(v[0], path+"[0]", missing, unknown)
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// The members the SDK knows in each answer it reads, as CONTRACT.md and the live service's
// pages describe them. TestKnownMembersAreWhatTheMockSends keeps them equal to what the mock
// answers, so that they change with the contract.
var (
	balanceMembers = known(
		"data.balance", "data.cashback", "data.currency",
		"requestId",
	)
	senderIDsMembers = known(
		"data[]._id", "data[].title", "data[].status", "data[].country", "data[].usecase",
		"data[].company", "data[].createdAt",
		"count", "requestId",
	)
	campaignsMembers = known(
		"data[]._id", "data[].senderId", "data[].recipientCount", "data[].amount", "data[].status",
		"data[].currency", "data[].channel", "data[].smsParts", "data[].messageId",
		"data[].reference", "data[].createdAt",
		"pagination.page", "pagination.limit", "pagination.total",
		"requestId",
	)
	campaignStatusMembers = known(
		"data.campaignId", "data.messageId", "data.status",
		"data.counts.sent", "data.counts.delivered", "data.counts.failed", "data.counts.dnd",
		"data.recipients[].to", "data.recipients[].status", "data.recipients[].updatedAt",
		"pagination.page", "pagination.limit", "pagination.total",
		"requestId",
	)
	keysMembers = known(
		"data[]._id", "data[].name", "data[].prefix", "data[].publicKey",
		"data[].scopes.sms", "data[].scopes.otp", "data[].scopes.campaigns",
		"data[].scopes.sender_ids", "data[].scopes.balance",
		"data[].createdAt", "data[].expiresAt", "data[].revokedAt", "data[].lastUsedAt",
		"count", "requestId",
	)
)
