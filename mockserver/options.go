package mockserver

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/seedsms/sms-go/mockserver/internal/httpapi"
	"github.com/seedsms/sms-go/mockserver/internal/reqlog"
	"github.com/seedsms/sms-go/mockserver/internal/store"
)

// This file holds every option of a Server and the one policy that checks them (check).

// Defaults of a new server.
const (
	DefaultGenericPrice = 320       // kobo per part on the generic channel (3.20 NGN)
	DefaultDNDPrice     = 450       // kobo per part on the dnd channel (4.50 NGN)
	DefaultBalance      = 1_000_000 // kobo in each wallet of a new workspace (10,000.00 NGN)
	DefaultSenderID     = "MOCKSMS"
	DefaultCountry      = "Nigeria"
	DefaultAddr         = "127.0.0.1:0"

	// DefaultReadTimeout bounds how long reading a request body may take, so that a client
	// that stalls or drips its body cannot hold a connection (slowloris).
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds a whole response, from the end of the request headers to
	// the last byte written: longer than a body read plus the longest latency fault (1m).
	// A long-polling or streaming handler extends its own deadlines with
	// http.ResponseController (SetReadDeadline, SetWriteDeadline) for as long as it waits.
	DefaultWriteTimeout = 2 * time.Minute

	// DefaultDeliveryDelay is how long after its send the mock binary delivers a campaign's
	// recipients by themselves (its -delivery-delay). New and NewTest deliver nothing by
	// themselves unless WithAutoDelivery says so. See WithAutoDelivery.
	DefaultDeliveryDelay = time.Second
	// MaxDeliveryDelay is the longest delay WithAutoDelivery takes: 3,650 days, so that a
	// campaign sent when the mock's clock is at its latest (2200-01-01) still falls due at a
	// time the mock can write.
	MaxDeliveryDelay = 3650 * 24 * time.Hour

	// MaxPrice is the highest price of one SMS part, in kobo (10,000.00 NGN).
	MaxPrice = 1_000_000
	// MaxBalance is the highest wallet balance, in kobo (40,000,000,000,000,000.00 NGN): far
	// above any real wallet (tests use huge ones so as never to run dry), and with
	// MaxPrice low enough that no balance plus a charge or refund can overflow int64.
	MaxBalance = 4_000_000_000_000_000_000
)

// DefaultMaxMessages is how many recipients of campaigns and OTP messages a server stores
// unless WithMessageLimit says otherwise: the bound of the campaign store. Past it the oldest
// campaigns are forgotten entirely, with their messages. A stored recipient costs 16 bytes
// beyond its campaign (20 plus the bytes of its name when the campaign is personalised), a
// campaign about 200 bytes, and an OTP message about 220 (docs/benchmarks.md), so a full store
// of campaigns of many recipients takes about 18 MB, and of one-recipient campaigns about
// 200 MB.
const DefaultMaxMessages = 1_000_000

// DefaultMaxWorkspaces is how many workspaces a server holds unless WithWorkspaceLimit says
// otherwise, the default one included. A new workspace (its two keys, its sender ID, its maps
// and its entries in the store's) costs about 1.4 KB, so the default allows about 14 MB of
// them; their campaigns count in the message limit.
const DefaultMaxWorkspaces = 10_000

// DefaultMaxDND is how many numbers the Do-Not-Disturb register holds unless WithDNDLimit says
// otherwise: at most about 24 MB, at up to 24 bytes a number (the map's slots, more or less
// full as it grows).
const DefaultMaxDND = 1_000_000

// DefaultIdempotencyLimit is how many references a workspace remembers at most, live and test
// together, unless WithIdempotencyLimit says otherwise. Past it, the oldest answered
// reference is forgotten first, before its 24 hours are up. An entry costs about 140 bytes
// plus the answer it replays (208 bytes for a send's), so a workspace at the limit holds about
// 35 MB (BenchmarkIdempotencyMemory, docs/benchmarks.md).
const DefaultIdempotencyLimit = 100_000

// DefaultIdempotencyTotalLimit is how many references the whole server remembers at most,
// every workspace together, unless WithIdempotencyTotalLimit says otherwise: at about 350
// bytes an entry with a send's answer (see DefaultIdempotencyLimit), about 350 MB, where
// 10,000 workspaces at their own limit would hold 350 GB.
const DefaultIdempotencyTotalLimit = 1_000_000

// Option configures a Server. Every option is checked by New against its documented range:
// a value out of it (a negative count or duration, a price past MaxPrice, a host that is no
// host name, an empty address or country, a nil clock) makes New return an error naming the
// option (and NewTest fail the test), so that no request ever meets a configuration error. No
// value is ever replaced by a default in silence; a zero means the documented default where
// the option says so.
type Option func(*config)

type config struct {
	addr           string
	genericPrice   int64
	dndPrice       int64
	liveBalance    int64
	testBalance    int64
	country        string
	rateLimit      int
	jwtSecret      []byte
	now            func() time.Time
	logger         *slog.Logger
	requestLogSize int
	readTimeout    time.Duration
	writeTimeout   time.Duration
	allowedHosts   []string
	idemLimit      int
	idemTotal      int
	maxMessages    int
	maxWorkspaces  int
	maxDND         int
	deliveryDelay  time.Duration
	profile        Profile
	dedup          bool // references deduplicated; set by check from the profile unless dedupSet
	dedupSet       bool // WithReferenceDeduplication was given
}

// defaults is the configuration of a server given no option.
func defaults() config {
	return config{
		addr: DefaultAddr, genericPrice: DefaultGenericPrice, dndPrice: DefaultDNDPrice,
		liveBalance: DefaultBalance, testBalance: DefaultBalance, country: DefaultCountry,
		now: time.Now, requestLogSize: reqlog.DefaultSize, maxMessages: DefaultMaxMessages,
		maxWorkspaces: DefaultMaxWorkspaces, maxDND: DefaultMaxDND, idemLimit: DefaultIdempotencyLimit,
		readTimeout: DefaultReadTimeout, writeTimeout: DefaultWriteTimeout,
	}
}

// check is the one policy of the options: it reports the first option out of its documented
// range, puts the default in place of a zero limit, and settles what depends on the profile.
func (c *config) check() error {
	if !c.dedupSet {
		c.dedup = c.profile == ProfileFull // see WithReferenceDeduplication
	}
	// Limits first: a limit is put right even when it is wrong, so that the server still
	// holds its default workspace while it answers every request with the error.
	var limitErr error
	for _, limit := range []struct {
		n      *int
		def    int
		option string
	}{
		{&c.maxMessages, DefaultMaxMessages, "WithMessageLimit"},
		{&c.maxWorkspaces, DefaultMaxWorkspaces, "WithWorkspaceLimit"},
		{&c.maxDND, DefaultMaxDND, "WithDNDLimit"},
		{&c.idemLimit, DefaultIdempotencyLimit, "WithIdempotencyLimit"},
		{&c.idemTotal, DefaultIdempotencyTotalLimit, "WithIdempotencyTotalLimit"},
	} {
		if *limit.n < 0 && limitErr == nil {
			limitErr = fmt.Errorf("mockserver: %s: the limit cannot be negative", limit.option)
		}
		if *limit.n <= 0 {
			*limit.n = limit.def
		}
	}
	switch {
	case c.addr == "":
		return errors.New("mockserver: WithAddr: the address cannot be empty")
	case c.genericPrice < 0 || c.genericPrice > MaxPrice || c.dndPrice < 0 || c.dndPrice > MaxPrice:
		return fmt.Errorf("mockserver: WithPrices: prices must be from 0 to %d kobo", MaxPrice)
	case c.liveBalance < 0 || c.liveBalance > MaxBalance || c.testBalance < 0 || c.testBalance > MaxBalance:
		return fmt.Errorf("mockserver: WithBalances: balances must be from 0 to %d kobo", MaxBalance)
	case !store.ValidCountry(c.country):
		return fmt.Errorf("mockserver: WithCountry: the country must be 1 to %d characters", store.MaxCountryLen)
	case c.rateLimit < 0:
		return errors.New("mockserver: WithRateLimit: the limit cannot be negative")
	case c.now == nil:
		c.now = time.Now // for the server to answer its requests with this error
		return errors.New("mockserver: WithClock: the clock cannot be nil")
	case c.readTimeout < 0:
		return errors.New("mockserver: WithReadTimeout: the timeout cannot be negative")
	case c.writeTimeout < 0:
		return errors.New("mockserver: WithWriteTimeout: the timeout cannot be negative")
	case c.deliveryDelay < 0 || c.deliveryDelay > MaxDeliveryDelay:
		c.deliveryDelay = 0 // for the server to answer its requests with this error
		return fmt.Errorf("mockserver: WithAutoDelivery: the delay must be from 0 to %v (3,650 days)", MaxDeliveryDelay)
	case c.profile != ProfileFull && c.profile != ProfileDocumented:
		return fmt.Errorf("mockserver: WithProfile: unknown profile %d", c.profile)
	case limitErr != nil:
		return limitErr
	}
	for _, h := range c.allowedHosts {
		if h == "" || strings.ContainsAny(h, "/ ") {
			return fmt.Errorf("mockserver: WithAllowedHosts: %q is not a host name", h)
		}
	}
	return nil
}

// api is the configuration of the server's HTTP side.
func (c *config) api(url func() string) httpapi.Config {
	return httpapi.Config{
		GenericPrice: c.genericPrice, DNDPrice: c.dndPrice, LiveBalance: c.liveBalance, TestBalance: c.testBalance,
		Country: c.country, RateLimit: c.rateLimit, JWTSecret: c.jwtSecret, Now: c.now, Logger: c.logger,
		RequestLogSize: c.requestLogSize, ReadTimeout: c.readTimeout, AllowedHosts: c.allowedHosts,
		IdempotencyLimit: c.idemLimit, IdempotencyTotalLimit: c.idemTotal, MaxMessages: c.maxMessages, MaxWorkspaces: c.maxWorkspaces, MaxDND: c.maxDND,
		DeliveryDelay: c.deliveryDelay, URL: url, Documented: c.profile == ProfileDocumented,
		DeduplicateReferences: c.dedup,
	}
}

// --- serving ---------------------------------------------------------------------------------

// WithAddr sets the address Start listens on (default 127.0.0.1:0, a free loopback port).
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// Profile is how much of the contract the /v1 routes answer with; see WithProfile.
type Profile uint8

const (
	// ProfileFull, the default, answers with everything docs/api.md describes, the
	// project's assumptions included (requestId everywhere, amount on OTP sends,
	// attemptsRemaining for a pin that did not match, every member of a sender ID and
	// campaign, field and scope on errors).
	ProfileFull Profile = iota
	// ProfileDocumented answers with only the members and statuses the live service's pages
	// show, so that a test catches code that leans on an assumed member: the OTP send and
	// verify, the sender-ID list and errors as their samples (no requestId where the sample
	// has none, no field or scope on errors), and error statuses from the docs' table only:
	// 405 becomes 404 not_found, and 409, 413 and 415 become 400 bad_request. The campaign
	// list, which only the service's published spec describes, has the spec's members only
	// (_id, senderId, recipientCount, amount, status; page, limit, total). Endpoints whose
	// answers nothing shows (keys, campaign status, sender-ID requests) keep the project's
	// shapes, with the table's statuses: 200 for a key created, 202 for a sender-ID request
	// (an assumption: the table has no 201). References are not deduplicated, as the pages
	// never say that the service does, unless WithReferenceDeduplication(true). The /_mock/
	// controls are not affected.
	ProfileDocumented
)

// String is the profile's name, as the binary's -profile flag takes it: "full" or
// "documented".
func (p Profile) String() string {
	switch p {
	case ProfileFull:
		return "full"
	case ProfileDocumented:
		return "documented"
	}
	return fmt.Sprintf("Profile(%d)", uint8(p))
}

// ParseProfile reads a profile's name ("full" or "documented").
func ParseProfile(name string) (Profile, error) {
	for _, p := range []Profile{ProfileFull, ProfileDocumented} {
		if name == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("mockserver: unknown profile %q (want full or documented)", name)
}

// WithProfile sets how much of the contract the /v1 routes answer with (default ProfileFull).
// It also sets whether references are deduplicated, unless WithReferenceDeduplication says.
func WithProfile(p Profile) Option { return func(c *config) { c.profile = p } }

// WithReferenceDeduplication sets whether the server deduplicates the reference of a send
// (POST /v1/sms/send and /v1/sms/campaigns). On, a send whose reference was used in the
// last 24 hours by the same workspace and mode replays the first answer when its body is the
// same (Idempotent-Replayed: true; no second SMS, no second debit) and is refused with 409
// conflict (400 under ProfileDocumented) when it is not; see WithIdempotencyLimit. Off, the
// server is one that does not deduplicate: a reference is still checked, stored and listed
// with its campaign, but every accepted send is a new campaign, sent and charged, whatever
// references came before.
//
// The default follows the profile: on under ProfileFull, off under ProfileDocumented, as
// the live service's pages never say that it deduplicates. This option overrides it, in
// any order with WithProfile.
func WithReferenceDeduplication(on bool) Option {
	return func(c *config) { c.dedup, c.dedupSet = on, true }
}

// WithReadTimeout bounds how long reading one request body may take (default
// DefaultReadTimeout; 0 means no limit). A body still unread by then fails and its
// connection is closed.
func WithReadTimeout(d time.Duration) Option { return func(c *config) { c.readTimeout = d } }

// WithWriteTimeout bounds each response of a server started with Start or Serve, from the
// end of the request headers to the last byte written (default DefaultWriteTimeout; 0 means
// no limit). Handlers that wait on purpose extend it with http.ResponseController.
func WithWriteTimeout(d time.Duration) Option { return func(c *config) { c.writeTimeout = d } }

// WithAllowedHosts adds host names (without port) that requests may name in their Host
// header, besides the loopback names and addresses (localhost, 127.0.0.0/8, ::1), which are
// always allowed. Requests that arrive over a connection naming any other host are answered
// 403: a web page cannot reach the mock through DNS rebinding. Use it when the mock is
// reached by another name, such as a container's.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *config) { c.allowedHosts = append(c.allowedHosts, hosts...) }
}

// WithLogger logs one line per request (method, path, status, request ID; never a secret).
// Nil, the default, logs nothing.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// --- money, credentials and time ------------------------------------------------------------

// WithPrices sets the price of one SMS part, in kobo, on the generic and dnd channels: from 0
// to MaxPrice.
func WithPrices(generic, dnd int64) Option {
	return func(c *config) { c.genericPrice, c.dndPrice = generic, dnd }
}

// WithBalances sets the starting live and test wallet balances, in kobo, of the default
// workspace and of workspaces created without balances: from 0 to MaxBalance.
func WithBalances(live, test int64) Option {
	return func(c *config) { c.liveBalance, c.testBalance = live, test }
}

// WithCountry sets the country of new workspaces and their sender IDs (default Nigeria); it
// cannot be empty.
func WithCountry(country string) Option { return func(c *config) { c.country = country } }

// WithRateLimit limits each API key to n requests per minute of the mock's clock; 0 (the
// default) means no limit.
func WithRateLimit(n int) Option { return func(c *config) { c.rateLimit = n } }

// WithJWTSecret sets the HS256 secret dashboard JWTs are signed with (default, or when
// empty: random).
func WithJWTSecret(secret []byte) Option {
	return func(c *config) { c.jwtSecret = append([]byte(nil), secret...) }
}

// WithClock sets the base clock (default time.Now); Advance moves the mock's time past it.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithAutoDelivery makes the server deliver each campaign's recipients by themselves, d of the
// mock's clock after the send (so Advance drives it); 0 turns it off, and recipients stay
// sent until a control moves them (Deliver, DeliverAll). It is off by default in Go (New and
// NewTest), so that a test sees exactly what it moves, in or out of a testing/synctest
// bubble; the mock binary delivers after DefaultDeliveryDelay (its -delivery-delay). When the
// time comes, recipients move from sent by these rules, which DeliverAll follows too:
//
//	number               becomes
//	MagicFailed          failed
//	MagicPending         stays sent: never delivered automatically, nor by DeliverAll
//	MagicDND             dnd at the send on the generic channel (as a number on the register)
//	MagicRefused         the provider refuses the whole campaign: failed and refunded at the send
//	MagicSlow            delivered after SlowDeliveryDelay (or d if longer)
//	on the DND register  dnd at the send on the generic channel
//	any other            delivered
//
// A campaign of more than 100 recipients, processing for a second, is delivered no sooner.
// A d outside 0 to MaxDeliveryDelay is an error (see Start).
func WithAutoDelivery(d time.Duration) Option { return func(c *config) { c.deliveryDelay = d } }

// --- bounds of what the mock keeps ----------------------------------------------------------

// WithMessageLimit stores at most n recipients of campaigns and OTP messages, over every
// workspace and mode (default DefaultMaxMessages, also for 0). When a send takes the total
// past n, the oldest campaigns and OTP messages are forgotten entirely until at most n − n/64
// are left (n itself under 64), so that a full store is not trimmed at every send: a
// forgotten campaign leaves the campaign list, and its status and delivery controls answer
// 404. A campaign alone larger than n is forgotten as soon as it is accepted.
// DELETE /_mock/messages forgets messages but not campaigns: their recipients still count.
func WithMessageLimit(n int) Option { return func(c *config) { c.maxMessages = n } }

// WithWorkspaceLimit lets the server hold at most n workspaces, the default one included
// (default DefaultMaxWorkspaces, also for 0). Creating one more is refused with 409 and a
// message saying so; Reset forgets them all but the default.
func WithWorkspaceLimit(n int) Option { return func(c *config) { c.maxWorkspaces = n } }

// WithDNDLimit lets the Do-Not-Disturb register hold at most n numbers (default DefaultMaxDND,
// also for 0). A request that would take it past n is refused with 400 naming numbers, and
// adds none of its numbers.
func WithDNDLimit(n int) Option { return func(c *config) { c.maxDND = n } }

// WithIdempotencyLimit sets how many references each workspace remembers at most (default
// DefaultIdempotencyLimit, also for 0). Past it, the oldest answered reference is forgotten
// first, even inside its 24-hour window.
func WithIdempotencyLimit(n int) Option { return func(c *config) { c.idemLimit = n } }

// WithIdempotencyTotalLimit sets how many references the whole server remembers at most,
// every workspace together (default DefaultIdempotencyTotalLimit, also for 0). Past it, a
// new reference first forgets the oldest answered one of its own workspace, or when that has
// none, the oldest of the workspace that holds the most, even inside the 24-hour window.
// References whose first request is still running are never forgotten.
func WithIdempotencyTotalLimit(n int) Option { return func(c *config) { c.idemTotal = n } }
