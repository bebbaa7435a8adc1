package ids

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIDsSortInCreationOrder: ids of one generator are distinct, ascend, and read back.
func TestIDsSortInCreationOrder(t *testing.T) {
	t.Parallel()
	g := NewGen()
	prev := g.Next()
	for range 1000 {
		id := g.Next()
		require.True(t, prev.Less(id), "%s then %s", prev, id)
		require.False(t, id.Less(prev))
		back, ok := Parse(id.String())
		require.True(t, ok)
		require.Equal(t, id, back)
		prev = id
	}
	assert.False(t, prev.Less(prev))
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "0123456789abcdef0123456", "0123456789abcdef012345678", "0123456789abcdef0123456g"} {
		_, ok := Parse(bad)
		assert.False(t, ok, "%q", bad)
	}
	id, ok := Parse("0123456789ABCDEF01234567")
	require.True(t, ok, "upper case hex")
	assert.Equal(t, "0123456789abcdef01234567", id.String())
}

func TestRandomTokens(t *testing.T) {
	t.Parallel()
	assert.Regexp(t, regexp.MustCompile(`^[0-9A-Za-z]{40}$`), Random62(40))
	assert.NotEqual(t, Random62(24), Random62(24))
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), UUID())
}

// TestLiveShapes: message IDs are 25 digits and distinct; request IDs are req- and 24 hex.
func TestLiveShapes(t *testing.T) {
	t.Parallel()
	g := NewGen()
	seen := map[string]bool{}
	digits := regexp.MustCompile(`^[0-9]{25}$`)
	for range 1000 {
		id := g.Next()
		m := id.MessageID()
		require.Regexp(t, digits, m)
		require.False(t, seen[m], "repeated %s", m)
		seen[m] = true
		require.Regexp(t, `^req-[0-9a-f]{24}$`, id.RequestID())
	}
	var top ID
	for i := range top {
		top[i] = 0xff
	}
	assert.Regexp(t, digits, top.MessageID(), "the largest counter still fits")
	assert.Equal(t, "3000000000000000000000001", ID{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}.MessageID())
}

// TestMessageIDDigits: a message ID is "3", the prefix's value mod 10^7 in seven digits and
// the counter in seventeen, for any id.
func TestMessageIDDigits(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 100_000 {
		var id ID
		for j := range id {
			id[j] = byte(r.Uint32())
		}
		if i < 256 { // counters of few digits
			clear(id[5:11])
			id[11] = byte(i)
		}
		p := uint64(id[0])<<32 | uint64(id[1])<<24 | uint64(id[2])<<16 | uint64(id[3])<<8 | uint64(id[4])
		n := uint64(0)
		for _, c := range id[5:] {
			n = n<<8 | uint64(c)
		}
		want := fmt.Sprintf("3%07d%017d", p%1e7, n)
		require.Equal(t, want, id.MessageID(), "id %x", id[:])
		require.Equal(t, "x"+want, string(id.AppendMessageID([]byte("x"))))
	}
}
