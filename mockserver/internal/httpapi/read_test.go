package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAtMost reads what the body holds, up to max, whatever length it declared.
func TestReadAtMost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     string
		declared int64
		max      int64
		want     string
	}{
		{"declared exactly", "hello", 5, 10, "hello"},
		{"unknown length", "hello", -1, 10, "hello"},
		{"longer than declared", "hello world", 5, 20, "hello world"},
		{"shorter than declared", "hi", 5, 10, "hi"},
		{"empty", "", 0, 10, ""},
		{"cut at max", "hello world", -1, 5, "hello"},
		{"declared past max", "hello world", 11, 5, "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// One byte per Read, as a slow client sends it.
			b, err := readAtMost(iotest.OneByteReader(strings.NewReader(tt.body)), tt.declared, tt.max)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))
		})
	}
	_, err := readAtMost(iotest.ErrReader(iotest.ErrTimeout), 5, 10)
	assert.ErrorIs(t, err, iotest.ErrTimeout)
}

// TestHeaderKeysAreCanonical: header reads its key as given, so each must be the form
// net/http stores; and it finds what Header.Get finds, whatever the case the client sent.
func TestHeaderKeysAreCanonical(t *testing.T) {
	t.Parallel()
	for _, k := range []string{hdrAPIKey, hdrAPISecret, hdrContentType} {
		require.Equal(t, http.CanonicalHeaderKey(k), k)
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set(strings.ToLower(k), "v1")
		r.Header.Add(strings.ToUpper(k), "v2")
		assert.Equal(t, r.Header.Get(k), header(r, k))
		assert.Equal(t, "v1", header(r, k))
	}
	assert.Empty(t, header(httptest.NewRequest(http.MethodGet, "/", nil), hdrAPIKey))
}
