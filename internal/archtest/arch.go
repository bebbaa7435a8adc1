package archtest

// arrow is a package of the module, by its path below the module root ("." for the root
// package sms), and the packages of the module it may import. Test files are not counted:
// tests may use the SDK and the mock together.
type arrow struct {
	from string
	to   []string
	leaf bool // imports only leaves; a leaf of the mock imports nothing above it
}

// arrows are the allowed imports between the module's packages: every package of the module
// has an entry, and an import that no entry allows fails TestArchitectureImports.
var arrows = []arrow{
	{from: ".", to: []string{"internal/backoff", "internal/rules", "internal/safetext"}},
	{from: "bulk", to: []string{".", "internal/backoff", "internal/rules", "internal/safefile", "internal/safetext"}},
	{from: "cmd/sms", to: []string{".", "bulk", "doctor", "internal/rules"}},
	{from: "cmd/sms-mockserver", to: []string{"internal/rules", "mockserver"}},
	{from: "doctor", to: []string{".", "internal/safefile", "internal/safetext"}},
	{from: "mockserver", to: []string{"mockserver/internal/faults", "mockserver/internal/httpapi", "mockserver/internal/reqlog", "mockserver/internal/store"}},
	{from: "mockserver/internal/httpapi", to: []string{"internal/rules", "mockserver/internal/clock", "mockserver/internal/events", "mockserver/internal/faults", "mockserver/internal/idem", "mockserver/internal/ids", "mockserver/internal/inbox", "mockserver/internal/reqlog", "mockserver/internal/store", "mockserver/internal/wire"}},
	{from: "mockserver/internal/wire", to: []string{"internal/rules", "mockserver/internal/store"}},
	{from: "mockserver/internal/store", to: []string{"internal/rules", "mockserver/internal/events", "mockserver/internal/fifo", "mockserver/internal/ids"}},
	{from: "mockserver/internal/idem", to: []string{"mockserver/internal/fifo", "mockserver/internal/ids"}, leaf: true},
	{from: "mockserver/internal/clock", leaf: true},
	{from: "mockserver/internal/events", leaf: true},
	{from: "mockserver/internal/faults", leaf: true},
	{from: "mockserver/internal/fifo", leaf: true},
	{from: "mockserver/internal/ids", leaf: true},
	{from: "mockserver/internal/inbox", leaf: true},
	{from: "mockserver/internal/reqlog", to: []string{"internal/safetext"}, leaf: true},
	{from: "internal/rules", leaf: true},
	{from: "internal/backoff", leaf: true},
	{from: "internal/safetext", leaf: true},
	{from: "internal/safefile", leaf: true},
	{from: "internal/oapiclient", leaf: true},
	{from: "internal/apitest", leaf: true},
	{from: "internal/pgtest", leaf: true},
	{from: "internal/archtest", leaf: true},
	{from: "examples/quickstart", to: []string{".", "bulk", "mockserver"}},
	{from: "examples/bulk-k8s", to: []string{".", "bulk"}},
	{from: "internal/sdktest", to: []string{".", "internal/apitest", "mockserver"}},
	{from: "benchmark/internal/mockproc", leaf: true},
	{from: "benchmark/loadbench", to: []string{"benchmark/internal/mockproc"}},
	{from: "benchmark/mockload", to: []string{"benchmark/internal/mockproc"}},
}

// rule is an import that must never happen, with the reason: arrows must not allow it, and
// the code must not have it (an import of the standard library included).
type rule struct {
	from, to string // package paths as in arrows, or a standard library path; "..." ends a prefix
	why      string
}

// forbidden are the arrows ARCHITECTURE.md promises never to draw.
var forbidden = []rule{
	{".", "mockserver/...", "the SDK never depends on the mock: what both must agree on is in internal/rules"},
	{"mockserver/...", ".", "the mock never depends on the SDK: what both must agree on is in internal/rules"},
	{".", "bulk", "the client never depends on the engine built over it: package sms is the endpoint client alone"},
	{"mockserver/...", "bulk", "the mock never depends on the SDK"},
	{"mockserver/internal/store", "net/http", "the store holds state and never writes HTTP"},
	{"mockserver/internal/store", "mockserver/internal/httpapi", "the store is below the HTTP layer"},
	{"mockserver/internal/store", "mockserver/internal/wire", "the store is below the JSON layer"},
	{"mockserver/internal/wire", "mockserver/internal/httpapi", "wire is below the HTTP layer"},
	{"mockserver/internal/...", "mockserver", "nothing below the facade imports it"},
}

// sdkDeps are the packages outside the standard library that the SDK (the root package)
// brings into a user's build, with itself: `go list -deps` of the root package. The root
// package imports what it needs at run time only; a longer list fails TestArchitectureSDKDeps.
var sdkDeps = []string{
	"github.com/google/go-querystring/query",
	"github.com/hashicorp/go-cleanhttp",
	"github.com/hashicorp/go-retryablehttp",
	"github.com/seedsms/sms-go",
	"github.com/seedsms/sms-go/internal/backoff",
	"github.com/seedsms/sms-go/internal/rules",
	"github.com/seedsms/sms-go/internal/safetext",
}
