package store

import "strconv"

// DefaultMaxDND is how many numbers the Do-Not-Disturb register holds unless told otherwise:
// at most about 24 MB, at up to 24 bytes a number (the map's slots, more or less full as it
// grows).
const DefaultMaxDND = 1_000_000

// atSend is a recipient's status at its send on channel ch, by the magic numbers' rules and
// the register, and whether the provider refuses the send for it (MagicRefused). SMS sends
// and OTPs both take it from here.
func (st *Store) atSend(phone uint64, ch Channel) (status RecipientStatus, refused bool) {
	if ch == Generic && st.onDND(phone) {
		return RecipientDND, false
	}
	return RecipientSent, phone == MagicRefused
}

func (st *Store) onDND(phone uint64) bool {
	if phone == MagicDND {
		return true
	}
	st.dndMu.RLock()
	defer st.dndMu.RUnlock()
	_, ok := st.dnd[phone]
	return ok
}

// AddDND puts numbers, in any form the API accepts, on the Do-Not-Disturb register and
// returns how many numbers it holds. It adds none when one is not a number or when they would
// take it past its limit.
func (st *Store) AddDND(numbers ...string) (int, error) {
	phones := make([]uint64, len(numbers))
	for i, n := range numbers {
		p, err := parsePhone("numbers["+strconv.Itoa(i)+"]", n)
		if err != nil {
			return 0, err
		}
		phones[i] = p
	}
	st.dndMu.Lock()
	defer st.dndMu.Unlock()
	if limit := st.cfg.MaxDND; len(st.dnd)+len(phones) > limit { // maybe: count the numbers not on it yet
		fresh := make(map[uint64]struct{}, min(len(phones), limit+1))
		for _, p := range phones {
			if _, on := st.dnd[p]; !on {
				fresh[p] = struct{}{}
				if len(st.dnd)+len(fresh) > limit {
					return 0, fieldError("numbers", "The Do-Not-Disturb register holds at most %d numbers; %d are on it.", limit, len(st.dnd))
				}
			}
		}
	}
	for _, p := range phones {
		st.dnd[p] = struct{}{}
	}
	return len(st.dnd), nil
}
