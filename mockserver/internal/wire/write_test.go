package wire

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteAnswers: every writer adds requestId as the answer's last member, leaves a body it
// was given as it was, declares the length of an answer past net/http's buffer, and answers
// 500 with the server_error body when a value cannot be encoded.
func TestWriteAnswers(t *testing.T) {
	t.Parallel()
	long := `{"data":"` + strings.Repeat("x", 3000) + `"}`
	tests := []struct {
		name       string
		write      func(w http.ResponseWriter)
		wantStatus int
		wantBody   string
	}{
		{"an object", func(w http.ResponseWriter) {
			WriteBody(w, http.StatusAccepted, "req-1", []byte(`{"a":1}`))
		}, http.StatusAccepted, `{"a":1,"requestId":"req-1"}`},
		{"an empty object", func(w http.ResponseWriter) {
			WriteBody(w, http.StatusOK, "req-2", []byte(`{}`))
		}, http.StatusOK, `{"requestId":"req-2"}`},
		{"a pooled buffer", func(w http.ResponseWriter) {
			p := Buffer()
			defer Release(p)
			*p = append((*p)[:0], `{"b":[1,2]}`...)
			WriteBuffer(w, http.StatusOK, "req-3", p)
		}, http.StatusOK, `{"b":[1,2],"requestId":"req-3"}`},
		{"past the buffer", func(w http.ResponseWriter) {
			WriteBody(w, http.StatusOK, "req-4", []byte(long))
		}, http.StatusOK, long[:len(long)-1] + `,"requestId":"req-4"}`},
		{"encoded", func(w http.ResponseWriter) {
			WriteJSON(w, http.StatusCreated, "req-5", map[string]int{"n": 5})
		}, http.StatusCreated, `{"n":5,"requestId":"req-5"}`},
		{"not encodable", func(w http.ResponseWriter) {
			WriteJSON(w, http.StatusOK, "req-6", map[string]any{"f": func() {}})
		}, http.StatusInternalServerError, `{"error":{"code":"server_error","message":"Could not encode the response."},"requestId":"req-6"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			tt.write(rec)
			require.Equal(t, tt.wantStatus, rec.Code)
			assert.Equal(t, tt.wantBody+"\n", rec.Body.String())
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			if rec.Body.Len() > chunkingSize {
				assert.Equal(t, strconv.Itoa(rec.Body.Len()), rec.Header().Get("Content-Length"))
			} else {
				assert.Empty(t, rec.Header().Get("Content-Length"))
			}
		})
	}
}

// TestWriteBodyKeepsItsInput: a replayed answer is written again and again from the same
// bytes, which WriteBody must not change, even with room past their end.
func TestWriteBodyKeepsItsInput(t *testing.T) {
	t.Parallel()
	body := make([]byte, 0, 64)
	body = append(body, `{"a":1}`...)
	spare := body[len(body):cap(body)]
	for i := range spare {
		spare[i] = '#' // other replays may be reading past the end: nothing is written there
	}
	for i := range 3 {
		rec := httptest.NewRecorder()
		WriteBody(rec, http.StatusOK, "req-"+strconv.Itoa(i), body)
		require.Equal(t, `{"a":1,"requestId":"req-`+strconv.Itoa(i)+`"}`+"\n", rec.Body.String())
		require.Equal(t, `{"a":1}`, string(body))
		require.Equal(t, strings.Repeat("#", len(spare)), string(spare))
	}
}
