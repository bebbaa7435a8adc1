package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestRecipientsFile(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 101)
	tests := []struct {
		name      string
		csv       string
		phoneCol  string
		nameCol   string
		message   string
		want      []sms.Recipient
		cols      string // which columns are read, as told to people
		bad       []badRow
		wantError string
	}{
		{
			name:     "columns given by header name",
			csv:      "id,cell,first\n1,08025671695,Ada\n",
			cols:     `a header row; numbers from column 2 ("cell"), names from column 3 ("first")`,
			phoneCol: "cell", nameCol: "FIRST",
			want: []sms.Recipient{{Phone: "2348025671695", Name: "Ada"}},
		},
		{
			name:    "bad rows by line number; duplicates are not bad",
			csv:     "phone,name\n08025671695,Ada\n12345,Bad\n\n,Empty\n2348025671695,Again\n08031234567," + long + "\n\"0805\n1234567\",Quoted\n08051234567,Zed\n",
			message: "Hi {{name}}",
			cols:    `a header row; numbers from column 1 ("phone"), names from column 2 ("name")`,
			want: []sms.Recipient{
				{Phone: "2348025671695", Name: "Ada"}, {Phone: "2348025671695", Name: "Again"}, {Phone: "2348051234567", Name: "Zed"},
			},
			bad: []badRow{
				{Line: 3, Reason: `invalid phone number "12345": must be 8-15 digits with an optional leading + and no leading 0, or a local Nigerian number (0 + 10 digits)`},
				{Line: 5, Reason: "no phone number"},
				{Line: 7, Reason: `the name "` + long[:40] + `"… is 101 characters; at most 100 are allowed`},
				{Line: 8, Reason: "invalid phone number \"0805\\n1234567\": must be 8-15 digits with an optional leading + and no leading 0, or a local Nigerian number (0 + 10 digits)"},
			},
		},
		{name: "an unknown column name", csv: "phone,name\n", phoneCol: "cell", wantError: `--phone-column "cell": no such column`},
		{name: "column numbers start at 1", csv: "08025671695\n", phoneCol: "0", wantError: `--phone-column "0": column numbers start at 1`},
		{name: "the same column twice", csv: "08025671695\n", phoneCol: "1", nameCol: "1", wantError: `--name-column "1": the phone and name columns must differ`},
		{name: "not CSV", csv: "08025671695,\"Ada\n", wantError: "extraneous or missing \" in quoted-field"},
		{name: "an empty file", csv: "", wantError: "the file has no rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &recipientsFile{path: writeFile(t, "people.csv", tt.csv), phoneCol: tt.phoneCol, nameCol: tt.nameCol, message: tt.message}
			sum, err := f.validate()
			if tt.wantError != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantError)
				var ue *usageError
				assert.True(t, errors.As(err, &ue), "an input error")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.cols, f.cols.String())
			assert.Equal(t, tt.bad, sum.Bad)
			assert.Equal(t, len(tt.bad), sum.BadCount)
			assert.Equal(t, len(tt.want), sum.Valid)
			assert.Equal(t, len(tt.want)+len(tt.bad), sum.Rows)

			var got []sms.Recipient
			for r, err := range f.recipients() {
				require.NoError(t, err)
				got = append(got, r)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRecipientsFileMissing(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		filepath.Join(t.TempDir(), "nope.csv"): "--csv: open ",
		"-":                                    "--csv: give a file, not stdin",
	} {
		f := &recipientsFile{path: path}
		_, err := f.validate()
		var ue *usageError
		require.ErrorAs(t, err, &ue)
		assert.Contains(t, err.Error(), want)
	}
}

// Breaking out of the recipients stops reading the file.
func TestRecipientsFileStops(t *testing.T) {
	t.Parallel()
	f := &recipientsFile{path: writeFile(t, "people.csv", "08025671695\n08031234567\n08051234567\n")}
	n := 0
	for _, err := range f.recipients() {
		require.NoError(t, err)
		if n++; n == 2 {
			break
		}
	}
	assert.Equal(t, 2, n)
}

// A file that cannot be read when the job sends (it was read fine when checked) ends the
// input with an error naming it, which stops the job.
func TestRecipientsFileReadError(t *testing.T) {
	t.Parallel()
	f := &recipientsFile{path: writeFile(t, "people.csv", "08025671695\n08031234567\n")}
	_, err := f.validate()
	require.NoError(t, err)
	require.NoError(t, os.Remove(f.path))
	var errs []error
	n := 0
	for _, err := range f.recipients() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	assert.Zero(t, n)
	require.Len(t, errs, 1)
	assert.ErrorContains(t, errs[0], "reading "+f.path)
	var fe *failure
	assert.ErrorAs(t, errs[0], &fe, "an input error, exit status 1")
}

// csvRows is what sms.ReadCSV yields for data, with the columns and message of rf: each
// recipient or row error as a line, then the error that ended the file.
func csvRows(data []byte, phoneCol, nameCol, message string) []string {
	r := bulk.NewCSVReader(bytes.NewReader(data))
	r.PhoneColumn, r.NameColumn, r.Message = phoneCol, nameCol, message
	var out []string
	for rcpt, err := range r.All() {
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		out = append(out, rcpt.Phone+" "+strconv.Quote(rcpt.Name))
	}
	return append(out, r.Columns().String())
}

// Whatever the file holds, reading it never panics: it is refused as a whole with an input
// error, or each row is sent or listed as bad, and the pass that sends yields exactly the rows
// the check found valid, each a normalized number with a name of at most 100 characters. A
// file whose line ends are CRs alone (Excel for Mac) reads as the same file with LFs.
func FuzzRecipientsFile(f *testing.F) {
	f.Add([]byte("08025671695,Ade\n08031234567,Bola\n"), "", "")
	f.Add([]byte("Name;Phone\n\"Ada\n\",08025671695\n\n"), "", "")
	f.Add([]byte("phone,name\n08025671695,Ada\n"), "", "")
	f.Add([]byte("\uFEFFName;Phone\n\"Ada, Lovelace\",+2348025671695\n"), "2", "1")
	f.Add([]byte("msisdn\n12\n\n\"\"\n,,,,\n"), "msisdn", "")
	f.Add([]byte("08025671695,\"Ada\n"), "", "")
	f.Add([]byte("a,b\n0,1\n"), "b", "a")
	f.Fuzz(func(t *testing.T, data []byte, phoneCol, nameCol string) {
		if !bytes.ContainsRune(data, '\r') {
			lf := csvRows(data, phoneCol, nameCol, "Hi {{name}}")
			cr := csvRows(bytes.ReplaceAll(data, []byte("\n"), []byte("\r")), phoneCol, nameCol, "Hi {{name}}")
			require.Equal(t, lf, cr, "the same file with CR line ends")
		}
		p := filepath.Join(t.TempDir(), "people.csv")
		require.NoError(t, os.WriteFile(p, data, 0o600))
		rf := &recipientsFile{path: p, phoneCol: phoneCol, nameCol: nameCol, message: "Hi {{name}}"}
		sum, err := rf.validate()
		if err != nil {
			var ue *usageError
			require.ErrorAs(t, err, &ue)
			return
		}
		require.Equal(t, sum.Rows, sum.Valid+sum.BadCount)
		n := 0
		for r, err := range rf.recipients() {
			require.NoError(t, err)
			n++
			norm, err := sms.NormalizePhone(r.Phone)
			require.NoError(t, err)
			require.Equal(t, norm, r.Phone)
			require.LessOrEqual(t, len([]rune(r.Name)), 100)
		}
		require.Equal(t, sum.Valid, n)
	})
}
