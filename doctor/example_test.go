package doctor_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/seedsms/sms-go/doctor"
	"github.com/seedsms/sms-go/mockserver"
)

// Check the mock server with its test key, with GET requests only: every check passes, except
// those with nothing to read (no campaign yet) or nothing to read with (no dashboard token: the
// sms and otp scopes, which no GET shows, and the key list).
func ExampleRun() {
	srv := mockserver.New()
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
	// skip scope.sms        not checked: no GET shows it; a dashboard token (the key list) or --probe-writes (an empty POST) checks it
	// skip scope.otp        not checked: no GET shows it; a dashboard token (the key list) or --probe-writes (an empty POST) checks it
	// ok   scope.campaigns  granted
	// ok   scope.sender_ids granted
	// ok   scope.balance    granted
	// ok   balance          10000.00 NGN
	// ok   sender_ids       1 active sender ID
	// ok   campaigns        0 campaigns on the first page
	// skip campaign_status  not checked: no campaign listed
	// skip keys             not checked: no dashboard token given
	// failed: false
}

// Keep every answer of a run, redacted, for a bug report or new test fixtures: one file per
// request, in the order sent.
func ExampleRun_saveDir() {
	srv := mockserver.New()
	if err := srv.Start(); err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ws := srv.Default()
	dir, err := os.MkdirTemp("", "doctor")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	_, err = doctor.Run(context.Background(), doctor.Config{
		BaseURL: srv.URL(), APIKey: ws.TestKey, APISecret: ws.TestSecret, DashboardToken: ws.DashboardToken,
		SaveDir: dir,
	})
	if err != nil {
		log.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// 01-get-v1-balance.json
	// 02-get-v1-sender-ids.json
	// 03-get-v1-sms-campaigns.json
	// 04-get-v1-keys.json
}
