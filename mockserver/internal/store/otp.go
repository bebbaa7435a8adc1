package store

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/fifo"
	"github.com/seedsms/sms-go/mockserver/internal/ids"
)

// otpWindow and otpMaxSends bound OTP sends to one number.
const (
	otpWindow   = 10 * time.Minute
	otpMaxSends = 5
)

// otpRetention is how long after it was sent an OTP's pin record, its per-number bookkeeping
// and its entry in the latest-pin map are kept: an hour at least after the pin expired, since
// pins live 1 to 60 minutes, and longer than the per-number send window. A pin older than that
// can no longer be verified anyway: verifying it is 404, and LatestPin forgets it.
const otpRetention = 2 * time.Hour

// maxLatestPins bounds the latest-pin map besides otpRetention: past it the numbers that
// received their pin longest ago are forgotten first (about 210 bytes a number, so at most
// about 210 MB).
const maxLatestPins = 1_000_000

// OTP states.
const (
	otpPending uint8 = iota
	otpVerified
	otpVoided
	otpLocked // a message's pinState only: rules.MaxPinAttempts wrong pins
	otpFailed // the provider refused the OTP: its pin was never sent
)

// otp is a pin record: what verifying needs, kept otpRetention after the pin was sent.
type otp struct {
	pinID     string
	phone     string
	hash      [32]byte    // sha256(pinID + ":" + pin)
	msg       *otpMessage // the OTP's message, which also says when it was sent; nil once forgotten
	expiresAt int64
	attempts  int
	state     uint8
}

func pinHash(pinID, pin string) [32]byte { return sha256.Sum256([]byte(pinID + ":" + pin)) }

// otpMessage is the message an OTP put on a phone, kept as a message until the message limit
// or a clear forgets it (its pin record may be gone by then): about 120 bytes and its text.
type otpMessage struct {
	id        ids.ID
	parts     uint8
	verified  bool
	pinState  uint8           // otpPending, otpVerified, otpVoided, otpLocked or otpFailed, as the pin record says
	forgotten bool            // by the message limit or a clear
	status    RecipientStatus // at the send, by the magic numbers' rules (see otpStatus)
	slowAt    int64           // MagicSlow: when it is delivered, unix nanoseconds; else 0
	expiresAt int64           // when its pin expires, unix nanoseconds
	senderID  string
	pinID     string
	text      string // as the phone shows it, the pin in place
	pin       string
	phone     uint64
	createdAt int64 // unix nanoseconds
	amount    int64 // kobo
}

// OTPParams is an OTP to send, checked for its form.
type OTPParams struct {
	From        string
	Phone       uint64
	Text        string // with Placeholder where the pin goes
	Placeholder string
	Alphabet    string // what the pin is drawn from
	Length      int
	TTL         time.Duration

	ProviderFailure bool // a fault rule makes the provider refuse it
}

// OTPSent is an OTP as its send answers it: never the pin.
type OTPSent struct {
	PinID   string
	Phone   string
	Amount  int64 // kobo; 0 when refused
	Refused bool  // the provider refused it: failed and refunded
}

// SendOTP draws a pin, charges one SMS and stores the pin (as a hash), voiding older pending
// pins to the same number, within the per-number limit of 5 in 10 minutes. The message is
// delivered at once, and its pin is the newest of LatestPin, but for the magic numbers and
// the register, whose rules are the SMS sends' (see otpStatus). One the provider refuses (a
// fault, or MagicRefused) is failed and refunded, voids no pin, and its pin cannot be
// verified nor read with LatestPin.
func (st *Store) SendOTP(c Caller, p OTPParams, now time.Time) (OTPSent, error) {
	// Pins are ASCII letters and digits, so every pin of this length gives the same parts.
	parts, _ := rules.CountParts(strings.ReplaceAll(p.Text, p.Placeholder, strings.Repeat("0", p.Length)))
	if parts > rules.MaxParts {
		return OTPSent{}, fieldError("message_text", "The message is %d parts long; at most %d are allowed.", parts, rules.MaxParts)
	}
	pin := randomPin(p.Alphabet, p.Length)
	m := &otpMessage{parts: uint8(parts), senderID: p.From, text: strings.ReplaceAll(p.Text, p.Placeholder, pin),
		pin: pin, phone: p.Phone, createdAt: now.UnixNano(), amount: int64(parts) * st.cfg.GenericPrice}
	refused := st.otpStatus(m, p.ProviderFailure)
	st.idx.lockSend(c.w, 1)
	o, balance, err := c.w.sendOTP(c.Mode, st.cfg.IDs, m, p.TTL, refused)
	if err == nil {
		st.indexOTP(c.w, c.Mode, m)
	}
	st.idx.unlockSend(c.w, 1)
	if err != nil {
		return OTPSent{}, err
	}
	if !refused {
		st.latestPins.Deliver(o.phone, o.pinID, pin, m.createdAt)
	}
	st.keep(1)
	st.arrivedOTP(c.w, c.Mode, m)
	st.otpSent(c, m.id, o.phone, o.pinID, m.status, balance)
	return OTPSent{PinID: o.pinID, Phone: o.phone, Amount: m.amount, Refused: refused}, nil
}

// otpStatus sets m's status at its send by the rules of an SMS on the generic channel (see
// atSend and autoStatus), an OTP having no delivery delay: delivered at once, failed
// (MagicFailed), left sent (MagicPending; MagicSlow until SlowDeliveryDelay, or the delivery
// delay if longer, has passed on the mock's clock), dnd (MagicDND, the register), or failed
// and refused by the provider (MagicRefused, or providerFailure), which it reports.
func (st *Store) otpStatus(m *otpMessage, providerFailure bool) (refused bool) {
	status, refused := st.atSend(m.phone, Generic)
	switch {
	case refused || providerFailure:
		m.status = RecipientFailed
		return true
	case status != RecipientSent:
	case m.phone == MagicSlow:
		m.slowAt = m.createdAt + st.slowDelay()
	default:
		status, _ = autoStatus(m.phone, false)
	}
	m.status = status
	return false
}

// statusAt is m's status at now, and since when: a slow one is delivered once its time has
// come; w.mu must be held.
func (m *otpMessage) statusAt(now int64) (RecipientStatus, int64) {
	if m.status == RecipientSent && m.slowAt != 0 && now >= m.slowAt {
		return RecipientDelivered, m.slowAt
	}
	return m.status, m.createdAt
}

// deliverOTPs delivers the slow OTP messages of md still sent at now, as DeliverAll delivers
// MagicSlow at once; w.mu must be held.
func (md *modeData) deliverOTPs(now int64) {
	for _, m := range md.otpMsgs {
		if m.slowAt > now {
			m.slowAt = max(now, m.createdAt)
		}
	}
}

// sendOTP debits the wallet and stores the pin and its message m in one step; m's id is taken
// under the index's lock and w's (see lockSend, which the caller holds).
func (w *workspace) sendOTP(mode Mode, gen *ids.Gen, m *otpMessage, ttl time.Duration, refused bool) (*otp, int64, error) {
	title, ok := w.activeSender(m.senderID)
	if !ok {
		return nil, 0, errSenderNotActive(m.senderID)
	}
	m.senderID = title
	md := &w.modes[mode]
	now := m.createdAt
	md.forgetOTPs(now)
	phone := strconv.FormatUint(m.phone, 10)
	sends := md.otpSends[phone]
	for len(sends) > 0 && sends[0] <= now-int64(otpWindow) {
		sends = sends[1:]
	}
	if len(sends) >= otpMaxSends {
		wait := time.Duration(sends[0] + int64(otpWindow) - now)
		return nil, 0, rateLimited("Too many OTPs sent to this number; try again later.", ceilSeconds(wait))
	}
	if md.balance < m.amount {
		return nil, 0, ErrInsufficientBalance
	}
	md.otpSends[phone] = append(slices.Clip(sends), now)
	o := &otp{pinID: ids.UUID(), phone: phone, expiresAt: now + int64(ttl), msg: m}
	if refused { // debited and refunded at once: the wallet and the pending pin stay
		m.amount, o.state, m.pinState = 0, otpFailed, otpFailed
	} else {
		md.balance -= m.amount
		if old := md.pending[phone]; old != nil && old.state == otpPending {
			old.state = otpVoided
			if old.msg != nil {
				old.msg.pinState = otpVoided
			}
		}
		md.pending[phone] = o
	}
	m.expiresAt = o.expiresAt
	o.hash = pinHash(o.pinID, m.pin)
	md.otps[o.pinID] = o
	md.otpOrder.Push(o)
	m.id, m.pinID = gen.Next(), o.pinID
	md.otpMsgs = append(md.otpMsgs, m)
	return o, md.balance, nil
}

// forgetOTPs drops the pin records sent otpRetention before now or earlier, with their
// pending entry and their number's send times once none is inside the limit window; w.mu
// must be held. Each record is dropped once, so the cost is amortised O(1) per OTP sent. The
// OTP's message stays until the message limit or a clear forgets it.
func (md *modeData) forgetOTPs(now int64) {
	for q := &md.otpOrder; q.Len() > 0 && q.Front().msg.createdAt <= now-int64(otpRetention); q.Pop() {
		o := q.Front()
		delete(md.otps, o.pinID)
		if md.pending[o.phone] == o {
			delete(md.pending, o.phone)
		}
		sends := md.otpSends[o.phone]
		for len(sends) > 0 && sends[0] <= now-int64(otpWindow) {
			sends = sends[1:]
		}
		if len(sends) == 0 {
			delete(md.otpSends, o.phone)
		} else {
			md.otpSends[o.phone] = sends
		}
		o.msg = nil
	}
}

// Verification is the outcome of checking a pin.
type Verification struct {
	PinID        string
	Phone        string
	Verified     bool
	AttemptsLeft int
}

// VerifyOTP checks pin against the stored hash in constant time and consumes the pin on a
// match. A pin verified, replaced, expired or locked (after rules.MaxPinAttempts wrong ones)
// is an error.
func (st *Store) VerifyOTP(c Caller, pinID, pin string, now time.Time) (Verification, error) {
	v, err := c.w.verifyOTP(c.Mode, pinID, pin, now.UnixNano())
	if err == nil && v.Verified {
		st.otpVerified(c, v.PinID, v.Phone)
	}
	return v, err
}

func (w *workspace) verifyOTP(mode Mode, pinID, pin string, now int64) (Verification, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.modes[mode].otps[pinID]
	if p == nil {
		return Verification{}, notFound("Pin")
	}
	switch {
	case p.state == otpVerified:
		return Verification{}, fieldError("pin_id", "This pin was already verified.")
	case p.state == otpVoided:
		return Verification{}, fieldError("pin_id", "This pin was replaced by a newer one.")
	case p.state == otpFailed:
		return Verification{}, fieldError("pin_id", "This pin was never sent: the provider refused the OTP.")
	case now >= p.expiresAt:
		return Verification{}, fieldError("pin_id", "This pin has expired.")
	case p.attempts >= rules.MaxPinAttempts:
		return Verification{}, rateLimited("Too many wrong attempts; this pin is locked.", ceilSeconds(time.Duration(p.expiresAt-now)))
	}
	h := pinHash(pinID, pin)
	if subtle.ConstantTimeCompare(h[:], p.hash[:]) == 1 {
		p.state = otpVerified
		p.msg.verified, p.msg.pinState = true, otpVerified
		return Verification{PinID: p.pinID, Phone: p.phone, Verified: true, AttemptsLeft: rules.MaxPinAttempts - p.attempts}, nil
	}
	p.attempts++
	if p.attempts >= rules.MaxPinAttempts {
		p.msg.pinState = otpLocked
	}
	return Verification{PinID: p.pinID, Phone: p.phone, AttemptsLeft: rules.MaxPinAttempts - p.attempts}, nil
}

func ceilSeconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

// randomPin draws length characters of alphabet from crypto/rand without modulo bias.
func randomPin(alphabet string, length int) string {
	n := len(alphabet)
	limit := 256 - 256%n
	out := make([]byte, 0, length)
	var buf [16]byte
	for len(out) < length {
		_, _ = rand.Read(buf[:])
		for _, b := range buf {
			if int(b) < limit && len(out) < length {
				out = append(out, alphabet[int(b)%n])
			}
		}
	}
	return string(out)
}

// latestPin is the newest pin a phone received.
type latestPin struct{ pinID, pin string }

// pinSent is a pin delivered to a phone at a time, for forgetting it from the latest pins.
type pinSent struct {
	phone, pinID string
	at           int64
}

// LatestPins is the newest pin each phone received, for the tests that read a pin as the
// phone would. Pins sent otpRetention ago or more are forgotten, and past maxLatestPins the
// oldest, a few at each delivery. Its zero value is empty; it is safe for concurrent use.
type LatestPins struct {
	mu    sync.Mutex
	pins  map[string]latestPin
	order fifo.Queue[pinSent] // every pin of pins and older ones, in the order sent
}

// Deliver is phone receiving pin at now (unix nanoseconds).
func (l *LatestPins) Deliver(phone, pinID, pin string, now int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pins == nil {
		l.pins = make(map[string]latestPin)
	}
	for q := &l.order; q.Len() > 0 && (q.Front().at <= now-int64(otpRetention) || q.Len() >= maxLatestPins); q.Pop() {
		if old := q.Front(); l.pins[old.phone].pinID == old.pinID {
			delete(l.pins, old.phone)
		}
	}
	l.pins[phone] = latestPin{pinID: pinID, pin: pin}
	l.order.Push(pinSent{phone: phone, pinID: pinID, at: now})
}

// Latest returns the newest pin phone (normalized) received.
func (l *LatestPins) Latest(phone string) (pinID, pin string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m, ok := l.pins[phone]
	return m.pinID, m.pin, ok
}

// LatestPin returns the newest pin sent to a number, in any form the API accepts, as the
// phone received it.
func (st *Store) LatestPin(to string) (pinID, pin string, err error) {
	if to == "" {
		return "", "", fieldError("to", "to is required.")
	}
	p, err := parsePhone("to", to)
	if err != nil {
		return "", "", err
	}
	pinID, pin, ok := st.latestPins.Latest(strconv.FormatUint(p, 10))
	if !ok {
		return "", "", notFound("OTP")
	}
	return pinID, pin, nil
}
