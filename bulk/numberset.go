package bulk

import "math/bits"

// numberSet is the set of the normalised numbers a bulk job has seen, each held as its
// digits in a uint64 (15 digits fit; a normalised number never starts with 0, so 0 marks an
// empty slot). It is one slice with open addressing and linear probing, filled to at most
// 80% and grown by half: 10 to 15 bytes per number, where a map[uint64]struct{} takes 30 to
// 40.
type numberSet struct {
	slots []uint64
	n     int
}

const (
	numberSetMin  = 1024
	numberSetLoad = 80 // percent
)

// add adds x (not 0) and reports whether it was new.
func (s *numberSet) add(x uint64) bool {
	if (s.n+1)*100 > len(s.slots)*numberSetLoad {
		s.grow()
	}
	if !insert(s.slots, x) {
		return false
	}
	s.n++
	return true
}

func (s *numberSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(numberSetMin, len(old)+len(old)/2))
	for _, x := range old {
		if x != 0 {
			insert(s.slots, x)
		}
	}
}

// has reports whether x is in the set.
func (s *numberSet) has(x uint64) bool {
	if len(s.slots) == 0 {
		return false
	}
	for i := home(s.slots, x); ; {
		switch s.slots[i] {
		case 0:
			return false
		case x:
			return true
		}
		if i++; i == uint64(len(s.slots)) {
			i = 0
		}
	}
}

// home is x's first slot: Fibonacci hashing, mapped onto [0, len) by the high half of a
// 128-bit product.
func home(slots []uint64, x uint64) uint64 {
	i, _ := bits.Mul64(x*0x9e3779b97f4a7c15, uint64(len(slots)))
	return i
}

// insert puts x in slots unless it is there already, and reports whether it put it.
func insert(slots []uint64, x uint64) bool {
	i := home(slots, x)
	for {
		switch slots[i] {
		case 0:
			slots[i] = x
			return true
		case x:
			return false
		}
		if i++; i == uint64(len(slots)) {
			i = 0
		}
	}
}
