package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// maxGCPercent bounds what tuneGC sets, so that a nearly empty heap does not make the next
// goal a multiple of headroom.
const maxGCPercent = 1000

// gcPercentFor is the GOGC that puts the next heap goal at live + max(live, headroom): the
// default 100 once the live heap is at least headroom, more while it is smaller. The heap
// therefore never grows more than headroom past what GOGC=100 allows.
func gcPercentFor(live, headroom uint64) int {
	if live == 0 || live >= headroom {
		return 100
	}
	return int(min(100*headroom/live, maxGCPercent))
}

// tuneGC sets GOGC after every collection from the live heap it found (see gcPercentFor).
// A mock that has stored little allocates mostly short-lived garbage per request; with the
// default goal of twice a few megabytes it collects every few hundred requests.
func tuneGC(headroom uint64) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		sentinel := new([16]byte) // unreachable at once: its finalizer runs after the next GC
		runtime.SetFinalizer(sentinel, func(*[16]byte) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				debug.SetGCPercent(gcPercentFor(sample[0].Value.Uint64(), headroom))
			}
			arm()
		})
	}
	arm()
}
