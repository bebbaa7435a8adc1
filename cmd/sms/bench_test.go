package main

import (
	"context"
	"crypto/rand"
	"encoding/csv"
	"errors"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

// benchRecipients is the size of the benchmarks' CSV file.
const benchRecipients = 10_000

// jobSeq makes every benchmark job new, so that none is answered by replays.
var (
	jobPrefix = rand.Text()[:8]
	jobSeq    atomic.Int64
)

func newJobID(kind string) string {
	return kind + "-" + jobPrefix + "-" + strconv.FormatInt(jobSeq.Add(1), 10)
}

// BenchmarkBulk sends a CSV file of 10,000 named recipients to the mock (over loopback HTTP,
// in 10 batches of 1,000, 4 at a time), through the command and through bulk.Send alone:
//
//   - command: sms bulk run in-process, with its three passes over the file (check every row,
//     count the job with a dry run, send), a new client and transport, and plain progress
//     lines;
//   - sdk: the baseline doing the same sends: the file parsed with encoding/csv straight into
//     bulk.Send, with the same batch size and concurrency, on one client.
//
// Each iteration runs both, in alternating order, so that they share the machine's load; the
// benchmark reports the time of each (cmd-ns/op, sdk-ns/op) and their ratio (cmd/sdk). Its
// ns/op is the time of the pair. Every job is new: nothing is answered by a replay.
func BenchmarkBulk(b *testing.B) {
	srv := mockserver.NewTest(b, mockserver.WithBalances(1<<50, 1<<50))
	ws := srv.Default()
	file := peopleCSV(b, benchRecipients, 0, 0)
	env := map[string]string{envBaseURL: srv.URL(), envAPIKey: ws.TestKey, envAPISecret: ws.TestSecret}
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()
	c, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		b.Fatal(err)
	}
	command := func() {
		args := []string{"bulk", "--csv", file, "--from", ws.SenderID, "--message", "Hi {{name}}",
			"--job-id", newJobID("cmd"), "--batch-size", "1000", "--concurrency", "4"}
		if code := run(ctx, args, strings.NewReader(""), io.Discard, io.Discard, getenv); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	baseline := func() {
		rep, err := bulk.Send(ctx, c, &bulk.Params{
			JobID: newJobID("sdk"), From: ws.SenderID, Message: "Hi {{name}}",
			Recipients: csvRecipients(file), BatchSize: 1000, Concurrency: 4,
		})
		if err != nil || rep.Sent != benchRecipients {
			b.Fatalf("sent %v: %v", rep, err)
		}
	}
	timed := func(f func()) time.Duration {
		start := time.Now()
		f()
		return time.Since(start)
	}
	var cmdTime, sdkTime time.Duration
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if n%2 == 0 {
			cmdTime += timed(command)
			sdkTime += timed(baseline)
		} else {
			sdkTime += timed(baseline)
			cmdTime += timed(command)
		}
		n++
	}
	b.ReportMetric(float64(cmdTime.Nanoseconds())/float64(n), "cmd-ns/op")
	b.ReportMetric(float64(sdkTime.Nanoseconds())/float64(n), "sdk-ns/op")
	b.ReportMetric(float64(cmdTime)/float64(sdkTime), "cmd/sdk")
}

// BenchmarkBulkPasses measures the passes sms bulk makes over the file before it sends, over
// the same 10,000 rows as BenchmarkBulk: check checks every row (numbers, names, the message's
// parts with each name), dryrun counts the job with bulk.Send's dry run, reading the file again.
func BenchmarkBulkPasses(b *testing.B) {
	file := peopleCSV(b, benchRecipients, 0, 0)
	f := &recipientsFile{path: file, message: "Hi {{name}}"}
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if sum, err := f.validate(); err != nil || sum.Valid != benchRecipients {
				b.Fatalf("%+v, %v", sum, err)
			}
		}
	})
	b.Run("dryrun", func(b *testing.B) {
		b.ReportAllocs()
		c, err := sms.NewClient("pk_test_x", "sk_test_x", sms.WithBaseURL("http://127.0.0.1:1"))
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			rep, err := bulk.Send(context.Background(), c, &bulk.Params{
				JobID: "dry", From: "ACME", Message: "Hi {{name}}", Recipients: f.recipients(),
				BatchSize: 1000, DryRun: true,
			})
			if err != nil || rep.Recipients != benchRecipients {
				b.Fatalf("%v, %v", rep, err)
			}
		}
	})
}

// csvRecipients reads phone,name rows after a header, as a program without the command would.
func csvRecipients(path string) iter.Seq2[sms.Recipient, error] {
	return func(yield func(sms.Recipient, error) bool) {
		f, err := os.Open(path)
		if err != nil {
			yield(sms.Recipient{}, err)
			return
		}
		defer f.Close()
		r := csv.NewReader(f)
		r.ReuseRecord = true
		if _, err := r.Read(); err != nil { // the header
			yield(sms.Recipient{}, err)
			return
		}
		for {
			rec, err := r.Read()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(sms.Recipient{}, err)
				return
			}
			if !yield(sms.Recipient{Phone: rec[0], Name: rec[1]}, nil) {
				return
			}
		}
	}
}
