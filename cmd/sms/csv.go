package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"iter"
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

// maxRowBytes bounds a row of the file, and so each of its fields: a longer row cannot be
// sent (tooLong), and memory stays flat whatever the file holds. A row is a line, or several
// when a quoted field holds line breaks.
const maxRowBytes = 64 << 10

// tooLong is the problem of a row longer than maxRowBytes.
var tooLong = "the row is longer than " + strconv.Itoa(maxRowBytes>>10) + " KiB"

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
	return f.read(fh, fn)
}

// read is each on the file's content.
func (f *recipientsFile) read(in io.Reader, fn func(csvRow) bool) error {
	br := bufio.NewReaderSize(in, 64<<10)
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		_, _ = br.Discard(3) // a byte order mark, as spreadsheets write
	}
	comma := delimiter(br)
	rows := &rowLimiter{src: br, max: maxRowBytes}
	r := csv.NewReader(rows)
	r.Comma = comma
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
		if rows.wasCut(line) {
			if cols == nil {
				return usagef("--csv %s: line %d is longer than %d KiB: is it a CSV file?", f.path, line, maxRowBytes>>10)
			}
			if !fn(csvRow{line: line, problem: tooLong}) {
				return nil
			}
			continue
		}
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
		return sms.Recipient{}, "invalid phone number " + strconv.Quote(raw) + ": " + strings.TrimPrefix(err.Error(), "phone number ")
	}
	var name string
	if cols.name >= 0 && cols.name < len(rec) {
		name = strings.TrimSpace(rec[cols.name])
	}
	if !utf8.ValidString(name) {
		return sms.Recipient{}, "the name is not valid UTF-8: save the file as UTF-8"
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

// rowLimiter passes a CSV file on to encoding/csv, which holds a whole row in memory, cutting
// every row at max bytes: the rest of the row is dropped, and the cut row is closed (a quote
// when it was cut inside a quoted field, then a line feed) so that it still parses. The line
// breaks dropped with it are passed on as blank lines, which encoding/csv counts but skips:
// the line numbers of the rows that follow stay those of the file. wasCut tells which rows
// were cut.
//
// Quotes are tracked by parity: in valid CSV a quote opens or closes a quoted field, or is
// one of a doubled pair inside one, so an odd count means inside. A stray quote makes the row
// invalid CSV, which encoding/csv reports.
type rowLimiter struct {
	src *bufio.Reader
	max int

	n       int   // bytes of the current row passed on; 0 between rows
	quoted  bool  // inside a quoted field
	line    int   // lines ended so far: the byte being read is on line+1
	start   int   // the line the current row started on
	cut     []int // lines where the cut rows not yet asked about start, in order
	drop    bool  // dropping the rest of a cut row
	cutIn   bool  // the row was cut inside a quoted field
	dropped int   // line breaks dropped with the rest of the row

	// The close of a cut row, to pass on before reading more.
	owedQuote bool
	owedLines int
}

// Read passes the file on, with its rows cut at max bytes.
func (l *rowLimiter) Read(p []byte) (int, error) {
	for {
		if l.owedQuote || l.owedLines > 0 {
			n := 0
			if l.owedQuote {
				p[n], n, l.owedQuote = '"', n+1, false
			}
			for ; n < len(p) && l.owedLines > 0; n++ {
				p[n] = '\n'
				l.owedLines--
			}
			return n, nil
		}
		if _, err := l.src.Peek(1); err != nil {
			if l.drop { // the file ends inside the cut row
				l.close()
				continue
			}
			return 0, err
		}
		buf, _ := l.src.Peek(l.src.Buffered())
		if l.drop {
			l.skip(buf)
			continue
		}
		n := l.pass(buf[:min(len(buf), len(p))])
		copy(p, buf[:n])
		_, _ = l.src.Discard(n)
		if n > 0 {
			return n, nil
		}
	}
}

// pass returns how many bytes of buf go on before the current row reaches max bytes; when it
// does, the row is cut there.
func (l *rowLimiter) pass(buf []byte) int {
	for i, c := range buf {
		if c == '\n' && !l.quoted { // the row ends
			l.line++
			l.n = 0
			continue
		}
		if l.n == l.max {
			l.cut = append(l.cut, l.start)
			l.drop, l.cutIn, l.dropped = true, l.quoted, 0
			return i
		}
		if l.n == 0 {
			l.start = l.line + 1
		}
		l.n++
		switch c {
		case '"':
			l.quoted = !l.quoted
		case '\n':
			l.line++
		}
	}
	return len(buf)
}

// skip drops the bytes of buf that belong to the cut row, and closes it at its end.
func (l *rowLimiter) skip(buf []byte) {
	for i, c := range buf {
		switch {
		case c == '"':
			l.quoted = !l.quoted
		case c == '\n' && l.quoted:
			l.dropped++
		case c == '\n':
			_, _ = l.src.Discard(i + 1)
			l.close()
			return
		}
	}
	_, _ = l.src.Discard(len(buf))
}

// close ends the cut row: its closing quote when cut inside a quoted field, its line feed,
// and a blank line for each line break dropped with it.
func (l *rowLimiter) close() {
	l.owedQuote, l.owedLines = l.cutIn, l.dropped+1
	l.line += l.dropped + 1
	l.n, l.quoted, l.drop = 0, false, false
}

// wasCut reports whether the row that starts on line was cut. Rows are asked about in order.
func (l *rowLimiter) wasCut(line int) bool {
	for len(l.cut) > 0 && l.cut[0] < line {
		l.cut = l.cut[1:]
	}
	if len(l.cut) > 0 && l.cut[0] == line {
		l.cut = l.cut[1:]
		return true
	}
	return false
}
