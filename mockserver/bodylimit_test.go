package mockserver_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedsms/sms-go/mockserver"
)

// TestTooLargeBodyGets413NotAReset: a client that writes a 1.1 MB body in chunks, a little
// slowly, before it reads reads the 413, with or without Content-Length, never a connection reset (issue 16,
// item 21).
func TestTooLargeBodyGets413NotAReset(t *testing.T) {
	t.Parallel()
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%t", chunked), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			u, err := url.Parse(e.srv.URL())
			require.NoError(t, err)
			for range 3 { // a reset is a race: try a few times
				conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
				require.NoError(t, err)
				require.NoError(t, conn.SetDeadline(time.Now().Add(20*time.Second)))
				require.NoError(t, conn.(*net.TCPConn).SetWriteBuffer(16<<10))
				body := `{"to":"2348025671695","from":"MOCKSMS","message":"` + strings.Repeat("a", 1_100_000) + `"}`
				var head bytes.Buffer
				fmt.Fprintf(&head, "POST /v1/sms/send HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nX-API-Key: %s\r\nX-API-Secret: %s\r\n",
					u.Host, e.ws.LiveKey, e.ws.LiveSecret)
				if chunked {
					head.WriteString("Transfer-Encoding: chunked\r\n\r\n")
				} else {
					fmt.Fprintf(&head, "Content-Length: %d\r\n\r\n", len(body))
				}
				_, err = conn.Write(head.Bytes())
				require.NoError(t, err)
				const chunk = 32 << 10
				for i := 0; i < len(body); i += chunk {
					part := body[i:min(i+chunk, len(body))]
					if chunked {
						_, err = fmt.Fprintf(conn, "%x\r\n%s\r\n", len(part), part)
					} else {
						_, err = conn.Write([]byte(part))
					}
					require.NoError(t, err, "the server stopped reading at byte %d", i)
					time.Sleep(time.Millisecond) // slowly-ish: the answer comes while the client writes
				}
				if chunked {
					_, err = conn.Write([]byte("0\r\n\r\n"))
					require.NoError(t, err)
				}
				res, err := http.ReadResponse(bufio.NewReader(conn), nil)
				require.NoError(t, err, "the client must read the answer")
				assert.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
				_ = res.Body.Close()
				_ = conn.Close()
			}
			assert.Empty(t, e.srv.Messages(mockserver.Filter{}), "nothing was sent")
		})
	}
}
