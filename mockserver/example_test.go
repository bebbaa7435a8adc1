package mockserver_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"

	"github.com/seedsms/sms-go/mockserver"
)

func ExampleNew() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ws := srv.Default()

	req, _ := http.NewRequest(http.MethodGet, srv.URL()+"/v1/balance", nil)
	req.Header.Set("X-API-Key", ws.TestKey)
	req.Header.Set("X-API-Secret", ws.TestSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, strings.Split(string(body), `,"requestId"`)[0])
	// Output: 200 {"data":{"balance":10000.00,"cashback":0.00,"currency":"NGN"}
}

func ExampleServer_AddFaults() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	ws := srv.Default()
	client := &http.Client{Transport: srv.Transport()} // in-process: no Start needed

	// The next two sends fail with 503; the third goes through.
	srv.AddFaults(mockserver.FaultRule{Method: "POST", Path: "/v1/sms/send", Status: 503, Times: 2})
	for range 3 {
		req, _ := http.NewRequest(http.MethodPost, "http://mock/v1/sms/send",
			strings.NewReader(`{"to":"08025671695","from":"MOCKSMS","message":"hi","reference":"order-7"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", ws.LiveKey)
		req.Header.Set("X-API-Secret", ws.LiveSecret)
		resp, err := client.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	kobo, _ := srv.Balance(ws.WorkspaceID, mockserver.ModeLive)
	fmt.Println("charged once:", mockserver.DefaultBalance-kobo, "kobo")
	// Output:
	// 503
	// 503
	// 202
	// charged once: 320 kobo
}

func ExampleServer_LatestOTP() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	ws := srv.Default()
	req, _ := http.NewRequest(http.MethodPost, "http://mock/v1/otp/send",
		strings.NewReader(`{"to":"08025671695","from":"MOCKSMS","message_text":"Your code: < 1234 >"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", ws.TestKey)
	req.Header.Set("X-API-Secret", ws.TestSecret)
	resp, err := (&http.Client{Transport: srv.Transport()}).Do(req)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()

	// What the phone received: the pin to verify with.
	pinID, pin, err := srv.LatestOTP("08025671695")
	fmt.Println(err == nil, pinID != "", len(pin))
	// Output: true true 6
}

// A Workspace never shows its secrets when printed, logged or marshalled; Credentials is the
// form that does, for where they are meant to be read.
func ExampleWorkspace_Credentials() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	ws := srv.Default()
	hidden, _ := json.Marshal(ws)
	shown, _ := json.Marshal(ws.Credentials())
	fmt.Println(strings.Contains(string(hidden), ws.LiveSecret), strings.Contains(string(hidden), "[REDACTED]"))
	fmt.Println(strings.Contains(string(shown), ws.LiveSecret))
	// Output:
	// false true
	// true
}
