package mockserver

import (
	"github.com/seedsms/sms-go/mockserver/internal/ids"

	"runtime"
	"strconv"
	"testing"
)

// BenchmarkBoundsMemory measures what one item of each bounded store keeps, for the memory
// figures of docs/api.md: 1,000 workspaces made by NewWorkspace (B/workspace: the workspace,
// its two keys, its sender ID, its maps and its entries in the store's maps), 100,000 numbers
// put on the Do-Not-Disturb register (B/dnd-number) and 10,000 pins in the latest-pin map of
// /_mock/otps/latest (B/latest-pin, a 13-digit number, a pin ID and a 6-digit pin), each in a
// fresh server, live heap after a GC before and after. ns/op is the time of one whole
// measurement. B/key and B/sender-id are 10,000 keys (named "Key n") and sender IDs (a
// 13-byte use case and an 11-byte company) added to the default workspace.
func BenchmarkBoundsMemory(b *testing.B) {
	const workspaces, numbers, pins = 1000, 100_000, 10_000
	measure := func(n int, fill func(s *Server, st *store)) float64 {
		s, _ := benchServer(b)
		st := s.state.Load().store
		before := liveHeap()
		fill(s, st)
		after := liveHeap()
		runtime.KeepAlive(s)
		runtime.KeepAlive(st)
		return float64(after-before) / float64(n)
	}
	const made = 10_000
	var ws, dnd, pin, key, sid float64
	runs := 0
	for b.Loop() {
		ws += measure(workspaces, func(s *Server, _ *store) {
			for range workspaces {
				if _, err := s.NewWorkspace(WorkspaceParams{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		dnd += measure(numbers, func(_ *Server, st *store) {
			phones := make([]uint64, 1000)
			for i := 0; i < numbers; i += len(phones) {
				for j := range phones {
					phones[j] = uint64(2348000000000 + i + j)
				}
				if _, e := st.addDND(phones); e != nil {
					b.Fatal(e)
				}
			}
		})
		pin += measure(pins, func(s *Server, st *store) {
			now := s.clock.Now().UnixNano()
			for i := range pins {
				st.deliverPin(strconv.Itoa(2348000000000+i), ids.UUID(), strconv.Itoa(100000+i), now)
			}
		})
		key += measure(made, func(s *Server, st *store) {
			w := st.workspace(s.mustDefaultID(b))
			now := s.clock.Now().UnixNano()
			for i := range made {
				k, _ := s.newKey("Key "+strconv.Itoa(i), "pk_live", allScopes, now, 0, "", "")
				st.addKey(w, k)
			}
		})
		sid += measure(made, func(s *Server, st *store) {
			w := st.workspace(s.mustDefaultID(b))
			now := s.clock.Now().UnixNano()
			for i := range made {
				if _, e := w.requestSenderID(&senderID{id: s.ids.Next(), title: "S" + strconv.Itoa(1000000+i),
					usecase: "Order updates", company: "Acme Stores", createdAt: now}); e != nil {
					b.Fatal(e)
				}
			}
		})
		runs++
	}
	b.ReportMetric(ws/float64(runs), "B/workspace")
	b.ReportMetric(dnd/float64(runs), "B/dnd-number")
	b.ReportMetric(pin/float64(runs), "B/latest-pin")
	b.ReportMetric(key/float64(runs), "B/key")
	b.ReportMetric(sid/float64(runs), "B/sender-id")
}

// mustDefaultID is the default workspace's id.
func (s *Server) mustDefaultID(tb testing.TB) ids.ID {
	id, ok := ids.Parse(s.Default().WorkspaceID)
	if !ok {
		tb.Fatal("default workspace id")
	}
	return id
}
