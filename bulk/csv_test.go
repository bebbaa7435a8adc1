package bulk_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
	"github.com/seedsms/sms-go/mockserver"
)

// csvRead reads in with a CSVReader and returns its recipients, its bad rows and the error
// that ended it.
func csvRead(t *testing.T, in io.Reader, phoneCol, nameCol, message string) (*bulk.CSVReader, []sms.Recipient, []bulk.CSVRowError, error) {
	t.Helper()
	r := bulk.NewCSVReader(in)
	r.PhoneColumn, r.NameColumn, r.Message = phoneCol, nameCol, message
	var ok []sms.Recipient
	var bad []bulk.CSVRowError
	for rcpt, err := range r.All() {
		var row *bulk.CSVRowError
		switch {
		case errors.As(err, &row):
			bad = append(bad, *row)
		case err != nil:
			return r, ok, bad, err
		default:
			ok = append(ok, rcpt)
		}
	}
	return r, ok, bad, nil
}

func TestReadCSV(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 101)
	const phoneRule = "must be 8-15 digits with an optional leading + and no leading 0, or a local Nigerian number (0 + 10 digits)"
	tests := []struct {
		name     string
		csv      string
		phoneCol string
		nameCol  string
		message  string
		want     []sms.Recipient
		cols     string
		bad      []bulk.CSVRowError
	}{
		{
			name: "phone and name without a header",
			csv:  "08025671695,Ada\n+2348031234567,Bola\n",
			cols: "no header row; numbers from column 1, names from column 2",
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Ada"}, {Phone: "2348031234567", Name: "Bola"}},
		},
		{
			name: "phone only, no header",
			csv:  "08025671695\n2348031234567\n",
			cols: "no header row; numbers from column 1, names from column 2",
			want: []sms.Recipient{{Phone: "2348025671695"}, {Phone: "2348031234567"}},
		},
		{
			name: "tabs",
			csv:  "08025671695\tAda\n",
			cols: "no header row; numbers from column 1, names from column 2",
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Ada"}},
		},
		{
			name: "a header without a name column sends no names",
			csv:  "msisdn,city\n08025671695,Lagos\n",
			cols: `a header row; numbers from column 1 ("msisdn"), no names`,
			want: []sms.Recipient{{Phone: "2348025671695"}},
		},
		{
			name: "a header naming neither column: the columns are where they are without one",
			csv:  "Cell,Who\n08025671695,Ada\n",
			cols: `a header row; numbers from column 1 ("Cell"), names from column 2 ("Who")`,
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Ada"}},
		},
		{
			name:     "a row without the phone column",
			csv:      "Ada,08025671695\nBola\n",
			phoneCol: "2", nameCol: "1",
			cols: "no header row; numbers from column 2, names from column 1",
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Ada"}},
			bad:  []bulk.CSVRowError{{Line: 2, Field: "Phone", Reason: "no phone number (column 2 is missing)"}},
		},
		{
			name:    "a message empty for a recipient without a name",
			csv:     "08025671695,Ada\n08031234567\n",
			message: "{{name}}",
			cols:    "no header row; numbers from column 1, names from column 2",
			want:    []sms.Recipient{{Phone: "2348025671695", Name: "Ada"}},
			bad:     []bulk.CSVRowError{{Line: 2, Field: "Name", Reason: "the message is empty without a name"}},
		},
		{
			name: "a header found by name, a byte order mark, spaces",
			csv:  "\uFEFFName, Phone Number\n Ada , 0802 567 1695 \n",
			cols: `a header row; numbers from column 2 ("Phone Number"), names from column 1 ("Name")`,
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Ada"}},
		},
		{
			name: "semicolons",
			csv:  "Name;Phone\n\"Lovelace, Ada\";08025671695\n",
			cols: `a header row; numbers from column 2 ("Phone"), names from column 1 ("Name")`,
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Lovelace, Ada"}},
		},
		{
			name:     "columns chosen by name and number",
			csv:      "id,cell,first\n1,08025671695,Ada\n",
			phoneCol: "CELL", nameCol: "3",
			cols: `a header row; numbers from column 2 ("cell"), names from column 3 ("first")`,
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Ada"}},
		},
		{
			name: "spreadsheet damage is named, with the value",
			csv:  "phone,name\n#REF!,Ada\n2.34803E+12,Bola\n#N/A,Chi\n08025671695,Dayo\n",
			cols: `a header row; numbers from column 1 ("phone"), names from column 2 ("name")`,
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Dayo"}},
			bad: []bulk.CSVRowError{
				{Line: 2, Field: "Phone", Value: "#REF!", Reason: `the cell holds the spreadsheet error "#REF!", not a number: fix the formula, then export again`},
				{Line: 3, Field: "Phone", Value: "2.34803E+12", Reason: `"2.34803E+12" is a number in scientific notation, its last digits lost: format the column as text, then export again`},
				{Line: 4, Field: "Phone", Value: "#N/A", Reason: `the cell holds the spreadsheet error "#N/A", not a number: fix the formula, then export again`},
			},
		},
		{
			name:    "line numbers count the lines of a quoted field; values are quoted, escaped and cut",
			csv:     "phone,name\n\"Ada\nLovelace\",x\n12345,Bad\n\n,Empty\n08031234567," + long + "\n\"0805\n1234567\",Quoted\n\x1b[31m" + strings.Repeat("9", 50) + ",Esc\n08051234567,Zed\n",
			message: "Hi {{name}}",
			cols:    `a header row; numbers from column 1 ("phone"), names from column 2 ("name")`,
			want:    []sms.Recipient{{Phone: "2348051234567", Name: "Zed"}},
			bad: []bulk.CSVRowError{
				{Line: 2, Field: "Phone", Value: "Ada\nLovelace", Reason: `invalid phone number "Ada\nLovelace": ` + phoneRule},
				{Line: 4, Field: "Phone", Value: "12345", Reason: `invalid phone number "12345": ` + phoneRule},
				{Line: 6, Field: "Phone", Reason: "no phone number"},
				{Line: 7, Field: "Name", Value: long[:40], Reason: `the name "` + long[:40] + `"… is 101 characters; at most 100 are allowed`},
				{Line: 8, Field: "Phone", Value: "0805\n1234567", Reason: `invalid phone number "0805\n1234567": ` + phoneRule},
				{Line: 10, Field: "Phone", Value: "\x1b[31m" + strings.Repeat("9", 35), Reason: `invalid phone number "\x1b[31m` + strings.Repeat("9", 35) + `"…: ` + phoneRule},
			},
		},
		{
			name:    "a name that makes the message too long, or empty",
			csv:     "08025671695,Ada\n08031234567," + strings.Repeat("€", 100) + "\n08051234567\n",
			message: strings.Repeat("x", 1400) + "{{name}}",
			cols:    "no header row; numbers from column 1, names from column 2",
			want:    []sms.Recipient{{Phone: "2348025671695", Name: "Ada"}, {Phone: "2348051234567"}},
			bad: []bulk.CSVRowError{{Line: 2, Field: "Name", Value: strings.Repeat("€", 13),
				Reason: "with this name the message takes 11 SMS parts; at most 10 are allowed"}},
		},
		{
			name: "CR-only line ends (Excel for Mac) without a header",
			csv:  "08025671695,Ade\r08031234567,Bola\r08051234567,Chi\r",
			cols: "no header row; numbers from column 1, names from column 2",
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Ade"}, {Phone: "2348031234567", Name: "Bola"}, {Phone: "2348051234567", Name: "Chi"}},
		},
		{
			name: "CR-only line ends with a header, semicolons, no final line end",
			csv:  "Name;Phone\rAda;08025671695\rBola;08031234567",
			cols: `a header row; numbers from column 2 ("Phone"), names from column 1 ("Name")`,
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Ada"}, {Phone: "2348031234567", Name: "Bola"}},
		},
		{
			name: "CR, LF and CRLF line ends mixed; blank CR lines counted",
			csv:  "08025671695,Ada\r\n08031234567,Bola\r\r12345,Bad\n08051234567,Chi\r",
			cols: "no header row; numbers from column 1, names from column 2",
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Ada"}, {Phone: "2348031234567", Name: "Bola"}, {Phone: "2348051234567", Name: "Chi"}},
			bad:  []bulk.CSVRowError{{Line: 4, Field: "Phone", Value: "12345", Reason: `invalid phone number "12345": ` + phoneRule}},
		},
		{
			name: "a name holding a line break is a bad row, whatever the line ends",
			csv:  "08025671695,\"Ada\nLovelace\"\n08031234567,Bola\n08051234567,\"Chi\r\nOkafor\"\n",
			cols: "no header row; numbers from column 1, names from column 2",
			want: []sms.Recipient{{Phone: "2348031234567", Name: "Bola"}},
			bad: []bulk.CSVRowError{
				{Line: 1, Field: "Name", Value: "Ada\nLovelace", Reason: `the name "Ada\nLovelace" holds a line break, which no SMS shows as written: put each recipient's name on one line`},
				{Line: 4, Field: "Name", Value: "Chi\nOkafor", Reason: `the name "Chi\nOkafor" holds a line break, which no SMS shows as written: put each recipient's name on one line`},
			},
		},
		{
			name: "a name holding a line break in a CR-only file",
			csv:  "phone,name\r08025671695,\"Ada\rLovelace\"\r08031234567,Bola\r",
			cols: `a header row; numbers from column 1 ("phone"), names from column 2 ("name")`,
			want: []sms.Recipient{{Phone: "2348031234567", Name: "Bola"}},
			bad: []bulk.CSVRowError{
				{Line: 2, Field: "Name", Value: "Ada\nLovelace", Reason: `the name "Ada\nLovelace" holds a line break, which no SMS shows as written: put each recipient's name on one line`},
			},
		},
		{
			name: "a Latin-1 name",
			csv:  "08025671695,Ren\xe9e\n",
			cols: "no header row; numbers from column 1, names from column 2",
			bad:  []bulk.CSVRowError{{Line: 1, Field: "Name", Value: "Ren\xe9e", Reason: `the name "Ren\xe9e" is not valid UTF-8: save the file as UTF-8`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, got, bad, err := csvRead(t, strings.NewReader(tt.csv), tt.phoneCol, tt.nameCol, tt.message)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.bad, bad)
			assert.Equal(t, tt.cols, r.Columns().String())
		})
	}
}

// An input that cannot be read as a whole ends the sequence with one error: ErrCSV, or a
// *ValidationError naming the column option.
func TestReadCSVRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, csv, phoneCol, nameCol string
		field                        string // of the *ValidationError; "" for ErrCSV
		want                         string
	}{
		{name: "an unknown column name", csv: "phone,name\n", phoneCol: "cell", field: "PhoneColumn", want: "sms: invalid PhoneColumn: no such column in the header row"},
		{name: "column numbers start at 1", csv: "08025671695\n", phoneCol: "0", field: "PhoneColumn", want: "sms: invalid PhoneColumn: column numbers start at 1"},
		{name: "the same column twice", csv: "08025671695\n", phoneCol: "1", nameCol: "1", field: "NameColumn", want: "sms: invalid NameColumn: the phone and name columns must differ"},
		{name: "not CSV", csv: "08025671695,\"Ada\n", want: "bulk: CSV: parse error on line 1, column 18: extraneous or missing \" in quoted-field"},
		{name: "an empty file", csv: "", want: "bulk: CSV: the file has no rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, _, err := csvRead(t, strings.NewReader(tt.csv), tt.phoneCol, tt.nameCol, "")
			require.Error(t, err)
			assert.EqualError(t, err, tt.want)
			var ve *sms.ValidationError
			if tt.field != "" {
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, tt.field, ve.Field)
				return
			}
			assert.ErrorIs(t, err, bulk.ErrCSV)
		})
	}
}

// A CSVReader reads its input once: a second loop says so rather than yield nothing.
func TestReadCSVOnce(t *testing.T) {
	t.Parallel()
	r := bulk.NewCSVReader(strings.NewReader("08025671695\n"))
	n := 0
	for _, err := range r.All() {
		require.NoError(t, err)
		n++
	}
	require.Equal(t, 1, n)
	for _, err := range r.All() {
		assert.ErrorIs(t, err, bulk.ErrCSV)
		n++
	}
	assert.Equal(t, 2, n)
}

// bulk.Send skips the rows a CSVReader found invalid, listing them with their lines, and sends
// the others; one that bulk.Send finds invalid itself names the bad value.
func TestSendBulkFromCSV(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	c := newClient(t, srv)
	in := "phone,name\n08025671695,Ada\n\"#REF!\",\"Bola\nOkafor\"\n2.34803E+12,Chi\n+234 803 123 4567,Dayo\n08025671695,Ada again\n"
	r, err := bulk.Send(context.Background(), c, &bulk.Params{
		JobID: "csv", From: "MOCKSMS", Message: "Hi {{name}}", Recipients: bulk.NewCSVReader(strings.NewReader(in)).All(),
	})
	require.NoError(t, err)
	assert.True(t, r.Complete)
	assert.Equal(t, 2, r.Sent)
	assert.Equal(t, 1, r.Duplicates)
	assert.Equal(t, 2, r.Invalid)
	require.Len(t, r.InvalidRecipients, 2)
	assert.Equal(t, bulk.InvalidRecipient{Position: 1, Line: 3, Field: "Phone",
		Reason: `the cell holds the spreadsheet error "#REF!", not a number: fix the formula, then export again`}, r.InvalidRecipients[0])
	assert.Equal(t, 5, r.InvalidRecipients[1].Line, "after a quoted field of two lines")
	assert.Equal(t, 2, r.InvalidRecipients[1].Position)

	r, err = bulk.Send(context.Background(), c, &bulk.Params{
		JobID: "slice", From: "MOCKSMS", Message: "Hi", DryRun: true,
		Recipients: bulk.RecipientsFrom([]sms.Recipient{{Phone: "0802\n5671695"}}),
	})
	require.NoError(t, err)
	assert.Equal(t, []bulk.InvalidRecipient{{Position: 0, Field: "Phone",
		Reason: `invalid phone number "0802\n5671695": must be 8-15 digits with an optional leading + and no leading 0, or a local Nigerian number (0 + 10 digits)`}},
		r.InvalidRecipients)
}

// repeatReader yields n copies of a byte without holding them: a line of any length in a few
// bytes of memory.
type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.n)
	for i := range p[:n] {
		p[i] = r.b
	}
	r.n -= n
	return n, nil
}

// csvLines reads in and returns the line of each data row, negative for a row that is too
// long, and the reasons of the other bad rows by line.
func csvLines(t *testing.T, in io.Reader) ([]int, map[int]string) {
	t.Helper()
	r := bulk.NewCSVReader(in)
	r.Message = "Hi {{name}}"
	var lines []int
	reasons := map[int]string{}
	line := 1 // the header's
	for _, err := range r.All() {
		var row *bulk.CSVRowError
		switch {
		case errors.As(err, &row) && row.Reason == "the row is longer than 64 KiB":
			require.Empty(t, row.Field)
			lines = append(lines, -row.Line)
			line = row.Line
			continue
		case errors.As(err, &row):
			reasons[row.Line] = row.Reason
			line = row.Line
		default:
			require.NoError(t, err)
			line = 0 // a valid row: its line is not known, checked by its neighbours
		}
		lines = append(lines, line)
	}
	return lines, reasons
}

// A row longer than 64 KiB cannot be sent: it is reported with its line, and the rows after
// it are read as usual, with their own line numbers, whatever the quotes and line breaks.
func TestCSVRowLimit(t *testing.T) {
	t.Parallel()
	s := strings.NewReader
	x := func(n int) io.Reader { return &repeatReader{b: 'x', n: n} }
	const head = "phone,name\n08025671695,Ada\n"
	const bad = "12\n" // a bad row after the long one: its line is reported
	tests := []struct {
		name    string
		in      io.Reader
		want    []int // the line of each row; negative when it is too long, 0 for a valid row
		problem map[int]string
	}{
		{"a 4 MiB line", io.MultiReader(s(head+"08031234567,"), x(4<<20), s("\n"+bad)), []int{0, -3, 4}, nil},
		{"a row of exactly 64 KiB is read", io.MultiReader(s(head+"08031234567,"), x(bulk.MaxCSVRowBytes-len("08031234567,")), s("\n"+bad)), []int{0, 3, 4},
			map[int]string{3: `the name "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… is 65524 characters; at most 100 are allowed`}},
		{"a row of 64 KiB and 1 byte", io.MultiReader(s(head+"08031234567,"), x(bulk.MaxCSVRowBytes-len("08031234567,")+1), s("\n"+bad)), []int{0, -3, 4}, nil},
		{"CRLF line ends", io.MultiReader(s("phone,name\r\n08025671695,Ada\r\n08031234567,"), x(1<<20), s("\r\n12\r\n")), []int{0, -3, 4}, nil},
		{"a quoted field of 100,000 lines", io.MultiReader(s(head+"08031234567,\""), strings.NewReader(strings.Repeat("x\n", 100_000)), s("\"\n"+bad)),
			[]int{0, -3, 100_004}, nil},
		{"cut after half of a doubled quote", io.MultiReader(s(head+"08031234567,\""), x(bulk.MaxCSVRowBytes-len("08031234567,\"")-1), s("\"\"y\n,z\"\n"+bad)),
			[]int{0, -3, 5}, nil},
		{"cut after a doubled quote", io.MultiReader(s(head+"08031234567,\""), x(bulk.MaxCSVRowBytes-len("08031234567,\"")-2), s("\"\"y\n,z\"\n"+bad)),
			[]int{0, -3, 5}, nil},
		{"cut inside quotes, then more quoted fields", io.MultiReader(s(head+"08031234567,\""), x(1<<20), s("\",\"a\nb\",c\n"+bad)),
			[]int{0, -3, 5}, nil},
		{"the file ends in a long row", io.MultiReader(s(head+"08031234567,"), x(1<<20)), []int{0, -3}, nil},
		{"two long rows in a row", io.MultiReader(s(head), x(1<<20), s("\n"), x(1<<20), s("\n"+bad)), []int{0, -3, -4, 5}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, reasons := csvLines(t, tt.in)
			assert.Equal(t, tt.want, got)
			for line, want := range tt.problem {
				assert.Equal(t, want, reasons[line], "line %d", line)
			}
		})
	}
}

// A first row longer than 64 KiB is not a header: the file is refused, as one that is not CSV.
func TestCSVRowLimitFirstRow(t *testing.T) {
	t.Parallel()
	_, _, _, err := csvRead(t, io.MultiReader(&repeatReader{b: 'x', n: 1 << 20}, strings.NewReader("\n08051234567\n")), "", "", "")
	require.ErrorIs(t, err, bulk.ErrCSV)
	assert.EqualError(t, err, "bulk: CSV: line 1 is longer than 64 KiB: is it a CSV file?")
}

// Reading a 64 MiB line allocates about what a 64 KiB one does: memory stays flat. (Not
// parallel: it reads the process's allocation counter.)
func TestCSVRowLimitMemory(t *testing.T) {
	const line = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, _ := csvLines(t, io.MultiReader(strings.NewReader("phone,name\n08031234567,"), &repeatReader{b: 'x', n: line}, strings.NewReader("\n08051234567,Bola\n")))
	runtime.ReadMemStats(&after)
	require.Equal(t, []int{-2, 0}, got)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading a %d MiB line allocated %d KiB", line>>20, allocated>>10)
	assert.Less(t, allocated, uint64(2<<20), "at most a few rows' worth, whatever the line")
}

func ExampleCSVReader_All() {
	srv := startMock()
	defer srv.Close()
	ws := srv.Default()
	client, err := sms.NewClient(ws.TestKey, ws.TestSecret, sms.WithBaseURL(srv.URL()))
	if err != nil {
		log.Fatal(err)
	}
	// As a spreadsheet exports it: a header row, a rounded number, a broken formula.
	export := strings.NewReader("Name,Phone Number\nAda,0802 567 1695\nBola,2.34803E+12\nChi,#REF!\nDayo,+234 803 123 4567\n")
	report, err := bulk.Send(context.Background(), client, &bulk.Params{
		JobID: "export-2026-11", From: ws.SenderID, Message: "Hi {{name}}", Recipients: bulk.NewCSVReader(export).All(),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(report.Sent, "sent")
	for _, bad := range report.InvalidRecipients {
		fmt.Printf("line %d: %s\n", bad.Line, bad.Reason)
	}
	// Output:
	// 2 sent
	// line 3: "2.34803E+12" is a number in scientific notation, its last digits lost: format the column as text, then export again
	// line 4: the cell holds the spreadsheet error "#REF!", not a number: fix the formula, then export again
}

func ExampleNewCSVReader() {
	// A CRM export: the number is in "cell", the name in "first_name", the header row on line 1.
	export := strings.NewReader("id;cell;first_name\n7;+234 802 567 1695;Ada\n8;12345;Bola\n")
	r := bulk.NewCSVReader(export)
	r.PhoneColumn, r.NameColumn = "cell", "first_name"
	for rcpt, err := range r.All() {
		var bad *bulk.CSVRowError
		switch {
		case errors.As(err, &bad):
			fmt.Println("skipped:", bad)
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Println(rcpt.Phone, rcpt.Name)
		}
	}
	fmt.Println(r.Columns())
	// Output:
	// 2348025671695 Ada
	// skipped: line 3: invalid phone number "12345": must be 8-15 digits with an optional leading + and no leading 0, or a local Nigerian number (0 + 10 digits)
	// a header row; numbers from column 2 ("cell"), names from column 3 ("first_name")
}
