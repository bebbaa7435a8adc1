package doctor_test

import (
	"context"
	"fmt"
	"log"

	"github.com/seedsms/sms-go/doctor"
	"github.com/seedsms/sms-go/mockserver"
)

// Check the mock server with its test key: every check passes, except those with nothing to
// read (no campaign yet) or nothing to read with (no dashboard token).
func ExampleRun() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ws := srv.Default()

	r, err := doctor.Run(context.Background(), doctor.Config{BaseURL: srv.URL(), APIKey: ws.TestKey, APISecret: ws.TestSecret})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range r.Checks {
		fmt.Printf("%-4s %-16s %s\n", c.Level, c.Name, c.Detail)
	}
	fmt.Println("failed:", r.Failed())
	// Output:
	// ok   credentials      accepted: a test key (test wallet and data)
	// ok   scope.sms        granted (inferred: the server checked the scope, then refused the empty body with 400)
	// ok   scope.otp        granted (inferred: the server checked the scope, then refused the empty body with 400)
	// ok   scope.campaigns  granted (inferred: the server checked the scope, then refused the empty body with 400)
	// ok   scope.sender_ids granted
	// ok   scope.balance    granted
	// ok   balance          10000.00 NGN
	// ok   sender_ids       1 active sender ID
	// ok   campaigns        0 campaigns on the first page
	// skip campaign_status  not checked: no campaign listed
	// skip keys             not checked: no dashboard token given
	// failed: false
}
