package bulk

import "sync"

// groupCommit lets the concurrent Appends of a journal share one commit (one write and one
// sync of a file, one transaction of a database). Each Append queues its item and waits; the
// Append that finds no group being committed commits every item queued by then, and hands the
// next group to the first item queued meanwhile, so that commits follow one another without
// a goroutine of their own. The journal's mutex guards the queue.
type groupCommit[V any] struct {
	mu      *sync.Mutex
	queue   []*pending[V]
	writing bool      // a group is being committed
	idle    sync.Cond // signalled when no group is, for Close
}

// pending is one item waiting for its group.
type pending[V any] struct {
	v    V
	done chan struct{} // closed when its group is committed, or when it is to commit the next one
	lead bool          // it is to commit the next group
	err  error         // what the commit of its group set for it
}

func newPending[V any](v V) *pending[V] { return &pending[V]{v: v, done: make(chan struct{})} }

// init makes mu, the journal's mutex, the one that guards g.
func (g *groupCommit[V]) init(mu *sync.Mutex) {
	g.mu = mu
	g.idle.L = mu
}

// do commits p, in the group of the items queued with it, and returns the error the commit
// set for it. It is called with g.mu held and returns with it released. commit is called with
// g.mu held, may release it while it works, must hold it again on return, and sets the err of
// every item of the group.
func (g *groupCommit[V]) do(p *pending[V], commit func(group []*pending[V])) error {
	g.queue = append(g.queue, p)
	if g.writing {
		g.mu.Unlock()
		<-p.done
		if !p.lead {
			return p.err
		}
		g.mu.Lock()
	}
	g.writing = true
	group := g.queue
	g.queue = nil
	commit(group)
	for _, q := range group {
		if q != p {
			close(q.done)
		}
	}
	if len(g.queue) > 0 { // queued while this group was committed: the first commits the next
		next := g.queue[0]
		next.lead = true
		close(next.done)
	} else {
		g.writing = false
		g.idle.Broadcast()
	}
	g.mu.Unlock()
	return p.err
}

// wait waits, with g.mu held, until no group is being committed.
func (g *groupCommit[V]) wait() {
	for g.writing {
		g.idle.Wait()
	}
}
