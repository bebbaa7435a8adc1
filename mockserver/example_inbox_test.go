package mockserver_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/seedsms/sms-go/mockserver"
)

// Waiting for the OTP an application sent: WaitMessage answers as soon as it arrives.
func ExampleServer_WaitMessage() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	ws := srv.Default()
	hc := &http.Client{Transport: srv.Transport()}

	go func() { // the application under test
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/v1/otp/send",
			strings.NewReader(`{"to":"08025671695","from":"MOCKSMS","message_text":"Your code is < 1234 >"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", ws.LiveKey)
		req.Header.Set("X-API-Secret", ws.LiveSecret)
		if res, err := hc.Do(req); err == nil {
			res.Body.Close()
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg, err := srv.WaitMessage(ctx, mockserver.Filter{To: "+2348025671695", Kind: "otp"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msg.To, msg.From, msg.Status)
	fmt.Println(msg.Text == "Your code is "+msg.Pin, len(msg.Pin))
	// Output:
	// 2348025671695 MOCKSMS delivered
	// true 6
}
