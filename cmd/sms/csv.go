package main

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/bulk"
)

// recipientsFile reads recipients from a CSV file with bulk.CSVReader, which finds the
// columns and reports the rows that cannot be sent. The file is read again for each pass (to
// validate it, to count the job, to send it) rather than held in memory.
type recipientsFile struct {
	path     string
	phoneCol string // a header name or a 1-based column number; "" finds it
	nameCol  string // likewise; "" finds it, or column 2 without a header
	message  string // the message, to check each recipient's parts after {{name}}

	cols bulk.CSVColumns // the columns read, once the file was read
}

// badRow is a row that cannot be sent, by its line number in the file.
type badRow struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// csvRow is one data row of the file: its line and recipient, or why it cannot be sent.
type csvRow struct {
	line    int
	rcpt    sms.Recipient
	problem string
}

// each calls fn for every data row of the file, in order, until fn returns false. A file that
// is not valid CSV, or whose columns cannot be found, is an error.
func (f *recipientsFile) each(fn func(csvRow) bool) error {
	if f.path == "-" {
		return usagef("--csv: give a file, not stdin: it is read once to check it and again to send")
	}
	fh, err := os.Open(f.path)
	if err != nil {
		return usagef("--csv: %w", err)
	}
	defer fh.Close()
	return f.read(fh, fn)
}

// read is each on the file's content.
func (f *recipientsFile) read(in io.Reader, fn func(csvRow) bool) error {
	r := bulk.NewCSVReader(in)
	r.PhoneColumn, r.NameColumn, r.Message = f.phoneCol, f.nameCol, f.message
	defer func() { f.cols = r.Columns() }()
	for rcpt, err := range r.All() {
		var row *bulk.CSVRowError
		var ve *sms.ValidationError
		switch {
		case errors.As(err, &row):
			if !fn(csvRow{line: row.Line, problem: row.Reason}) {
				return nil
			}
		case errors.As(err, &ve) && ve.Field == "PhoneColumn":
			return usagef("--phone-column %q: %s", f.phoneCol, ve.Reason)
		case errors.As(err, &ve) && ve.Field == "NameColumn":
			return usagef("--name-column %q: %s", f.nameCol, ve.Reason)
		case err != nil:
			return usagef("--csv %s: %s", f.path, strings.TrimPrefix(err.Error(), "bulk: CSV: "))
		default:
			if !fn(csvRow{rcpt: rcpt}) {
				return nil
			}
		}
	}
	return nil
}

// csvSummary is what validating the file found. Duplicate numbers are not its concern:
// bulk.Send removes them, and its dry run counts them.
type csvSummary struct {
	Rows     int      // data rows
	Valid    int      // rows that can be sent, duplicates included
	Bad      []badRow // the first maxBadRows rows that cannot be sent
	BadCount int      // all of them
}

// maxBadRows bounds the bad rows kept to list.
const maxBadRows = 1000

// validate reads the whole file and reports its bad rows. It holds no row.
func (f *recipientsFile) validate() (*csvSummary, error) {
	s := &csvSummary{}
	err := f.each(func(row csvRow) bool {
		s.Rows++
		if row.problem == "" {
			s.Valid++
			return true
		}
		s.BadCount++
		if len(s.Bad) < maxBadRows {
			s.Bad = append(s.Bad, badRow{Line: row.line, Reason: row.problem})
		}
		return true
	})
	return s, err
}

// recipients yields the rows that can be sent, in file order, and then an error reading the
// file (which validate read fine: it changed, or the disk failed), wrapped with its path,
// which stops the job.
func (f *recipientsFile) recipients() iter.Seq2[sms.Recipient, error] {
	return func(yield func(sms.Recipient, error) bool) {
		stopped := false
		err := f.each(func(row csvRow) bool {
			if row.problem != "" {
				return true
			}
			stopped = !yield(row.rcpt, nil)
			return !stopped
		})
		if err != nil && !stopped {
			yield(sms.Recipient{}, &failure{fmt.Errorf("reading %s: %w", f.path, err)})
		}
	}
}
