package mockserver

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/ids"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// BenchmarkBoundsMemory measures what one item of each bounded store keeps, for the memory
// figures of docs/api.md: 1,000 workspaces made by NewWorkspace (B/workspace: the workspace,
// its two keys, its sender ID, its maps and its entries in the store's maps), 100,000 numbers
// put on the Do-Not-Disturb register (B/dnd-number) and 10,000 pins in the latest-pin map of
// /_mock/otps/latest (B/latest-pin, a 13-digit number, a pin ID and a 6-digit pin), each in a
// fresh server or store, live heap after a GC before and after. ns/op is the time of one
// whole measurement. B/key and B/sender-id are 10,000 keys (named "Key n") and sender IDs (a
// 13-byte use case and an 11-byte company) added to the default workspace.
func BenchmarkBoundsMemory(b *testing.B) {
	const workspaces, numbers, pins = 1000, 100_000, 10_000
	measure := func(n int, fill func()) float64 {
		before := liveHeap()
		fill()
		after := liveHeap()
		return float64(after-before) / float64(n)
	}
	const made = 10_000
	var ws, dnd, pin, key, sid float64
	runs := 0
	for b.Loop() {
		s, _ := benchServer(b)
		ws += measure(workspaces, func() {
			for range workspaces {
				if _, err := s.NewWorkspace(WorkspaceParams{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		runtime.KeepAlive(s)
		st, c := benchStore(b)
		dnd += measure(numbers, func() {
			batch := make([]string, 1000)
			for i := 0; i < numbers; i += len(batch) {
				for j := range batch {
					batch[j] = strconv.Itoa(2348000000000 + i + j)
				}
				if _, err := st.AddDND(batch...); err != nil {
					b.Fatal(err)
				}
			}
		})
		var latest store.LatestPins
		pin += measure(pins, func() {
			now := time.Now().UnixNano()
			for i := range pins {
				latest.Deliver(strconv.Itoa(2348000000000+i), ids.UUID(), strconv.Itoa(100000+i), now)
			}
		})
		runtime.KeepAlive(&latest)
		now := time.Now().UnixNano()
		key += measure(made, func() {
			for i := range made {
				if _, _, err := st.CreateKey(c, store.KeyParams{Name: "Key " + strconv.Itoa(i), Prefix: "pk_live",
					Scopes: store.AllScopes}, now); err != nil {
					b.Fatal(err)
				}
			}
		})
		sid += measure(made, func() {
			for i := range made {
				if _, err := st.RequestSenderID(c, store.SenderIDParams{Title: "S" + strconv.Itoa(1000000+i),
					Usecase: "Order updates", Company: "Acme Stores"}, now); err != nil {
					b.Fatal(err)
				}
			}
		})
		runtime.KeepAlive(st)
		runs++
	}
	b.ReportMetric(ws/float64(runs), "B/workspace")
	b.ReportMetric(dnd/float64(runs), "B/dnd-number")
	b.ReportMetric(pin/float64(runs), "B/latest-pin")
	b.ReportMetric(key/float64(runs), "B/key")
	b.ReportMetric(sid/float64(runs), "B/sender-id")
}
