package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	sms "github.com/seedsms/sms-go"
	"github.com/seedsms/sms-go/internal/rules"
)

// Header names recognised for the phone and name columns, compared ignoring case, spaces,
// dashes and underscores.
var (
	phoneHeaders = []string{"phone", "phonenumber", "number", "msisdn", "mobile", "mobilenumber", "to", "tel", "telephone", "recipient"}
	nameHeaders  = []string{"name", "firstname", "fullname", "customer", "customername"}
)

// recipientsFile reads recipients from a CSV file: phone[,name], with or without a header row,
// separated by commas, or by semicolons or tabs when the first line has no comma.
// The file is read again for each pass (to validate it, to count the job, to send it) rather
// than held in memory.
type recipientsFile struct {
	path     string
	phoneCol string // a header name or a 1-based column number; "" finds it
	nameCol  string // likewise; "" finds it, or column 2 without a header
	message  string // the message, to check each recipient's parts after {{name}}

	cols columns // the columns read, once the file was read
}

// maxNames bounds the cache of names whose message was counted: at most about 1 MiB with
// names of 100 characters.
const maxNames = 10_000

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

// columns is where the phone and name are; name is -1 when there is none.
type columns struct {
	header bool
	phone  int
	name   int
	titles []string // the header row's cells, when there is one
}

// String says which columns are read, for people.
func (c columns) String() string {
	col := func(i int) string {
		s := "column " + strconv.Itoa(i+1)
		if c.header && i < len(c.titles) {
			s += " (" + strconv.Quote(c.titles[i]) + ")"
		}
		return s
	}
	s := "no header row; "
	if c.header {
		s = "a header row; "
	}
	s += "numbers from " + col(c.phone)
	if c.name >= 0 {
		return s + ", names from " + col(c.name)
	}
	return s + ", no names"
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
	br := bufio.NewReaderSize(fh, 64<<10)
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		_, _ = br.Discard(3) // a byte order mark, as spreadsheets write
	}
	r := csv.NewReader(br)
	r.Comma = delimiter(br)
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	r.ReuseRecord = true
	var cols *columns
	names := make(map[string]bool) // names whose message fits 10 parts
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			if cols == nil {
				return usagef("--csv %s: the file has no rows", f.path)
			}
			return nil
		}
		if err != nil {
			return usagef("--csv %s: %w", f.path, err)
		}
		line, _ := r.FieldPos(0)
		if cols == nil {
			c, err := f.columns(rec)
			if err != nil {
				return err
			}
			cols = &c
			f.cols = c
			if c.header {
				c.titles = slices.Clone(rec)
				f.cols = c
				continue
			}
		}
		row := csvRow{line: line}
		row.rcpt, row.problem = f.check(rec, cols, names)
		if !fn(row) {
			return nil
		}
	}
}

// check validates one row: its phone number, its name and the message filled with it.
func (f *recipientsFile) check(rec []string, cols *columns, names map[string]bool) (sms.Recipient, string) {
	if cols.phone >= len(rec) {
		return sms.Recipient{}, "no phone number (column " + strconv.Itoa(cols.phone+1) + " is missing)"
	}
	raw := strings.TrimSpace(rec[cols.phone])
	if raw == "" {
		return sms.Recipient{}, "no phone number"
	}
	phone, err := rules.NormalizePhone(raw)
	if err != nil {
		return sms.Recipient{}, "invalid phone number " + strconv.Quote(raw) + ": " + err.Error()
	}
	var name string
	if cols.name >= 0 && cols.name < len(rec) {
		name = strings.TrimSpace(rec[cols.name])
	}
	if n := utf8.RuneCountInString(name); n > rules.MaxNameLen {
		return sms.Recipient{}, fmt.Sprintf("the name is %d characters; at most %d are allowed", n, rules.MaxNameLen)
	}
	if ok, seen := names[name]; seen && !ok {
		return sms.Recipient{}, "the message with this name takes more than " + strconv.Itoa(rules.MaxParts) + " SMS parts"
	} else if !seen && strings.Contains(f.message, "{{name}}") {
		text := strings.ReplaceAll(f.message, "{{name}}", name)
		parts, _ := rules.CountParts(text)
		fits := parts <= rules.MaxParts && parts > 0
		if len(names) < maxNames {
			names[name] = fits
		}
		if parts == 0 {
			return sms.Recipient{}, "the message is empty with this name"
		}
		if !fits {
			return sms.Recipient{}, fmt.Sprintf("the message with this name takes %d SMS parts; at most %d are allowed", parts, rules.MaxParts)
		}
	}
	return sms.Recipient{Phone: phone, Name: name}, ""
}

// columns finds the phone and name columns from the first row, which is a header when it
// names them or when its phone cell holds no digit.
func (f *recipientsFile) columns(first []string) (columns, error) {
	find := func(want []string) int {
		for i, cell := range first {
			key := strings.Map(func(r rune) rune {
				if r == ' ' || r == '_' || r == '-' {
					return -1
				}
				return unicode.ToLower(r)
			}, cell)
			for _, w := range want {
				if key == w {
					return i
				}
			}
		}
		return -1
	}
	byName := func(flag, v string) (int, error) {
		for i, cell := range first {
			if strings.EqualFold(strings.TrimSpace(cell), v) {
				return i, nil
			}
		}
		return 0, usagef("--%s %q: no such column in the header row of %s", flag, v, f.path)
	}
	c := columns{phone: -1, name: -1}
	phoneNum, phoneIsNum := colNumber(f.phoneCol)
	nameNum, nameIsNum := colNumber(f.nameCol)
	if phoneIsNum && phoneNum < 0 || nameIsNum && nameNum < 0 {
		return c, usagef("column numbers start at 1")
	}
	// The first row is a header when a column is given by name, when it names the phone
	// column, or when its phone cell holds no digit.
	switch {
	case f.phoneCol != "" && !phoneIsNum, f.nameCol != "" && !nameIsNum:
		c.header = true
	case find(phoneHeaders) >= 0:
		c.header = true
	default:
		p := 0
		if phoneIsNum {
			p = phoneNum
		}
		c.header = p < len(first) && strings.TrimSpace(first[p]) != "" && !strings.ContainsFunc(first[p], unicode.IsDigit)
	}
	var err error
	switch {
	case phoneIsNum:
		c.phone = phoneNum
	case f.phoneCol != "":
		if c.phone, err = byName("phone-column", f.phoneCol); err != nil {
			return c, err
		}
	case c.header:
		if c.phone = find(phoneHeaders); c.phone < 0 {
			c.phone = 0
		}
	default:
		c.phone = 0
	}
	switch {
	case nameIsNum:
		c.name = nameNum
	case f.nameCol != "":
		if c.name, err = byName("name-column", f.nameCol); err != nil {
			return c, err
		}
	case c.header:
		c.name = find(nameHeaders) // -1: no names
		if c.name < 0 && find(phoneHeaders) < 0 && c.phone == 0 && len(first) > 1 {
			c.name = 1 // a header naming neither column: the columns are where they are without one
		}
	case c.phone != 1:
		c.name = 1
	default:
		c.name = 0
	}
	if c.name == c.phone {
		return c, usagef("the phone and name columns must differ")
	}
	return c, nil
}

// delimiter guesses the field separator from the first line: a comma, unless the line has
// none but has semicolons (as spreadsheets write where the comma is the decimal point) or
// tabs.
func delimiter(br *bufio.Reader) rune {
	b, _ := br.Peek(br.Size())
	line, _, _ := bytes.Cut(b, []byte("\n"))
	switch {
	case bytes.ContainsRune(line, ','):
		return ','
	case bytes.ContainsRune(line, ';'):
		return ';'
	case bytes.ContainsRune(line, '\t'):
		return '\t'
	}
	return ','
}

// colNumber reads a 1-based column number, returned 0-based.
func colNumber(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return n - 1, true
}

// csvSummary is what validating the file found. Duplicate numbers are not its concern:
// SendBulk removes them, and its dry run counts them.
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

// recipients yields the rows that can be sent, in file order. An error reading the file
// (which validate read fine) is kept in *errp.
func (f *recipientsFile) recipients(errp *error) func(func(sms.Recipient) bool) {
	return func(yield func(sms.Recipient) bool) {
		*errp = f.each(func(row csvRow) bool {
			if row.problem != "" {
				return true
			}
			return yield(row.rcpt)
		})
	}
}
