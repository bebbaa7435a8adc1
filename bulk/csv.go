package bulk

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"github.com/seedsms/sms-go"
	"io"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seedsms/sms-go/internal/rules"
)

// maxCSVRowBytes bounds a row of a CSV input, and so each of its fields: a longer row cannot
// be sent (it is reported as a *CSVRowError), and memory stays flat whatever the file holds.
// A row is a line, or several when a quoted field holds line breaks.
const maxCSVRowBytes = 64 << 10

// maxCSVNames bounds the cache of names whose message was counted: at most about 1 MiB with
// names of 100 characters.
const maxCSVNames = 10_000

// maxShownValue bounds, in bytes, the bad value that a reason quotes.
const maxShownValue = 40

// Header names recognised for the phone and name columns, compared ignoring case, spaces,
// dashes and underscores.
var (
	phoneHeaders = []string{"phone", "phonenumber", "number", "msisdn", "mobile", "mobilenumber", "to", "tel", "telephone", "recipient"}
	nameHeaders  = []string{"name", "firstname", "fullname", "customer", "customername"}
)

// CSVReader reads the recipients of a bulk job from a CSV file as spreadsheets export it:
// phone[,name], one row per recipient, with or without a header row, separated by commas, or
// by semicolons or tabs when the first line has no comma. A byte order mark is skipped, and
// spaces around fields are trimmed. Lines end in LF, CRLF or CR alone (the "CSV (Macintosh)"
// of Excel for Mac). A name may not hold a line break (a quoted field can): its row is a
// *CSVRowError.
//
// The first row is a header when a column is given by name, when it names the phone column
// (phone, phone number, msisdn, mobile, number, to, tel, recipient, ...), or when its phone
// cell holds no digit. Without a header, numbers are read from column 1 and names from
// column 2; with one, from the columns it names (name, first name, full name, customer, ...),
// or from columns 1 and 2 when it names neither.
//
// Set the fields before calling All.
type CSVReader struct {
	// PhoneColumn is the phone column: a header name (ignoring case) or a 1-based column
	// number; "" finds it.
	PhoneColumn string
	// NameColumn is the name column, likewise; "" finds it, or none when a header names
	// none.
	NameColumn string
	// Message, when set, is the job's message: a row with whose name the message would be
	// empty or longer than 10 SMS parts is reported by its line. (Send checks this too,
	// but can only report the recipient's position in the input.)
	Message string

	r    io.Reader
	used bool
	cols CSVColumns
}

// NewCSVReader returns a reader of recipients from r.
func NewCSVReader(r io.Reader) *CSVReader { return &CSVReader{r: r} }

// CSVColumns says where a CSVReader read the phone numbers and names.
type CSVColumns struct {
	// Header is true when the first row was a header row, not a recipient.
	Header bool
	// Phone and Name are the 0-based columns of the numbers and names; Name is -1 when
	// none is read.
	Phone, Name int
	// Titles are the header row's cells, when there is one.
	Titles []string
}

// String says which columns are read, for people: `a header row; numbers from column 1
// ("phone"), names from column 2 ("name")`.
func (c CSVColumns) String() string {
	col := func(i int) string {
		s := "column " + strconv.Itoa(i+1)
		if c.Header && i < len(c.Titles) {
			s += " (" + strconv.Quote(c.Titles[i]) + ")"
		}
		return s
	}
	s := "no header row; "
	if c.Header {
		s = "a header row; "
	}
	s += "numbers from " + col(c.Phone)
	if c.Name >= 0 {
		return s + ", names from " + col(c.Name)
	}
	return s + ", no names"
}

// CSVRowError is a row of a CSV input that cannot be sent. CSVReader yields one for each
// such row and goes on; Send skips it and lists it in its report's InvalidRecipients,
// with its line, where any other error of the input stops the job.
type CSVRowError struct {
	// Line is the 1-based line of the file on which the row starts (a quoted field may
	// span lines).
	Line int
	// Field is "Phone" or "Name", or "" when the whole row is at fault (longer than
	// 64 KiB).
	Field string
	// Value is the field as the file holds it, trimmed of spaces and cut at 40 bytes.
	Value string
	// Reason says what is wrong, quoting the value, escaped and cut at 40 bytes, such as
	// `invalid phone number "12345": must be 8-15 digits ...`.
	Reason string
}

// Error returns "line <Line>: <Reason>".
func (e *CSVRowError) Error() string { return "line " + strconv.Itoa(e.Line) + ": " + e.Reason }

// ErrCSV matches the errors of a CSV input that cannot be read as a whole: not CSV, no
// rows, a first line longer than 64 KiB, or a column given by name that the header
// lacks.
var ErrCSV = errors.New("bulk: CSV")

// csvError is an error of the input as a whole, matching ErrCSV.
type csvError struct{ msg string }

func (e *csvError) Error() string        { return "bulk: CSV: " + e.msg }
func (e *csvError) Is(target error) bool { return target == ErrCSV }

// Columns returns the columns read; it is the zero CSVColumns until All has read the first
// row.
func (cr *CSVReader) Columns() CSVColumns { return cr.cols }

// All returns the recipients of the file, in order: for each data row, its recipient (the
// number normalized, the name trimmed) with a nil error, or a *CSVRowError that says why it
// cannot be sent. Duplicate numbers are yielded as they come (Send sends each once).
//
// An input that cannot be read as a whole ends the sequence with an error matching ErrCSV (or
// the reader's error); PhoneColumn and NameColumn are checked first, their error a
// *sms.ValidationError. The file is read once, row by row, as the loop asks: a second loop yields
// only an error.
func (cr *CSVReader) All() iter.Seq2[sms.Recipient, error] {
	return func(yield func(sms.Recipient, error) bool) {
		if cr.used {
			yield(sms.Recipient{}, &csvError{"the reader was read already; make a new one for each pass"})
			return
		}
		cr.used = true
		if err := cr.read(yield); err != nil {
			yield(sms.Recipient{}, err)
		}
	}
}

// read yields the file's rows; it returns the error that ends it, or nil at the end or when
// the loop breaks.
func (cr *CSVReader) read(yield func(sms.Recipient, error) bool) error {
	phoneNum, phoneIsNum, err := columnOption("PhoneColumn", cr.PhoneColumn)
	if err != nil {
		return err
	}
	nameNum, nameIsNum, err := columnOption("NameColumn", cr.NameColumn)
	if err != nil {
		return err
	}
	if phoneIsNum && nameIsNum && phoneNum == nameNum {
		return invalid("NameColumn", "the phone and name columns must differ")
	}
	br := bufio.NewReaderSize(cr.r, 64<<10)
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		_, _ = br.Discard(3) // a byte order mark, as spreadsheets write
	}
	comma := delimiter(br)
	rows := &rowLimiter{src: bufio.NewReaderSize(crLines{br}, 64<<10), max: maxCSVRowBytes}
	r := csv.NewReader(rows)
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	r.ReuseRecord = true
	var cols *CSVColumns
	names := make(map[string]bool) // names with which the message fits
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			if cols == nil {
				return &csvError{"the file has no rows"}
			}
			return nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return &csvError{pe.Error()}
		}
		if err != nil {
			return err
		}
		line, _ := r.FieldPos(0)
		if rows.wasCut(line) {
			if cols == nil {
				return &csvError{fmt.Sprintf("line %d is longer than %d KiB: is it a CSV file?", line, maxCSVRowBytes>>10)}
			}
			if !yield(sms.Recipient{}, &CSVRowError{Line: line, Reason: "the row is longer than " + strconv.Itoa(maxCSVRowBytes>>10) + " KiB"}) {
				return nil
			}
			continue
		}
		if cols == nil {
			c, err := cr.columns(rec, phoneNum, phoneIsNum, nameNum, nameIsNum)
			if err != nil {
				return err
			}
			if c.Header {
				c.Titles = slices.Clone(rec)
			}
			cols, cr.cols = &c, c
			if c.Header {
				continue
			}
		}
		rcpt, bad := cr.check(rec, cols, names)
		if bad != nil {
			bad.Line = line
			if !yield(sms.Recipient{}, bad) {
				return nil
			}
			continue
		}
		if !yield(rcpt, nil) {
			return nil
		}
	}
}

// check validates one row: its phone number, its name and the message filled with it.
func (cr *CSVReader) check(rec []string, cols *CSVColumns, names map[string]bool) (sms.Recipient, *CSVRowError) {
	if cols.Phone >= len(rec) {
		return sms.Recipient{}, &CSVRowError{Field: "Phone", Reason: "no phone number (column " + strconv.Itoa(cols.Phone+1) + " is missing)"}
	}
	raw := strings.TrimSpace(rec[cols.Phone])
	phone, reason := checkPhone(raw)
	if reason != "" {
		return sms.Recipient{}, &CSVRowError{Field: "Phone", Value: cutValue(raw), Reason: reason}
	}
	var name string
	if cols.Name >= 0 && cols.Name < len(rec) {
		name = strings.TrimSpace(rec[cols.Name])
	}
	bad := func(reason string) (sms.Recipient, *CSVRowError) {
		return sms.Recipient{}, &CSVRowError{Field: "Name", Value: cutValue(name), Reason: reason}
	}
	if !utf8.ValidString(name) {
		return bad(checkNameText(name) + ": save the file as UTF-8")
	}
	if reason := checkNameText(name); reason != "" {
		return bad(reason)
	}
	if strings.ContainsAny(name, "\r\n") {
		return bad("the name " + quoteValue(name) + " holds a line break, which no SMS shows as written: put each recipient's name on one line")
	}
	if cr.Message == "" || !strings.Contains(cr.Message, nameTag) {
		return sms.Recipient{Phone: phone, Name: name}, nil
	}
	if !names[name] {
		parts, _ := rules.CountPartsWith(cr.Message, nameTag, name)
		if reason := partsReason(parts, name); reason != "" {
			return bad(reason)
		}
		if len(names) < maxCSVNames {
			names[name] = true
		}
	}
	return sms.Recipient{Phone: phone, Name: name}, nil
}

// columns finds the phone and name columns from the first row.
func (cr *CSVReader) columns(first []string, phoneNum int, phoneIsNum bool, nameNum int, nameIsNum bool) (CSVColumns, error) {
	find := func(want []string) int {
		for i, cell := range first {
			key := strings.Map(func(r rune) rune {
				if r == ' ' || r == '_' || r == '-' {
					return -1
				}
				return unicode.ToLower(r)
			}, cell)
			if slices.Contains(want, key) {
				return i
			}
		}
		return -1
	}
	byName := func(field, v string) (int, error) {
		for i, cell := range first {
			if strings.EqualFold(strings.TrimSpace(cell), v) {
				return i, nil
			}
		}
		return 0, invalid(field, "no such column in the header row")
	}
	c := CSVColumns{Phone: -1, Name: -1}
	switch {
	case cr.PhoneColumn != "" && !phoneIsNum, cr.NameColumn != "" && !nameIsNum:
		c.Header = true
	case find(phoneHeaders) >= 0:
		c.Header = true
	default:
		p := 0
		if phoneIsNum {
			p = phoneNum
		}
		c.Header = p < len(first) && strings.TrimSpace(first[p]) != "" && !strings.ContainsFunc(first[p], unicode.IsDigit)
	}
	var err error
	switch {
	case phoneIsNum:
		c.Phone = phoneNum
	case cr.PhoneColumn != "":
		if c.Phone, err = byName("PhoneColumn", cr.PhoneColumn); err != nil {
			return c, err
		}
	case c.Header:
		c.Phone = max(find(phoneHeaders), 0)
	default:
		c.Phone = 0
	}
	switch {
	case nameIsNum:
		c.Name = nameNum
	case cr.NameColumn != "":
		if c.Name, err = byName("NameColumn", cr.NameColumn); err != nil {
			return c, err
		}
	case c.Header:
		c.Name = find(nameHeaders) // -1: no names
		if c.Name < 0 && find(phoneHeaders) < 0 && c.Phone == 0 && len(first) > 1 {
			c.Name = 1 // a header naming neither column: the columns are where they are without one
		}
	case c.Phone != 1:
		c.Name = 1
	default:
		c.Name = 0
	}
	if c.Name == c.Phone {
		return c, invalid("NameColumn", "the phone and name columns must differ")
	}
	return c, nil
}

// columnOption reads a column option: a 1-based number (returned 0-based), or a name.
func columnOption(field, s string) (int, bool, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false, nil
	}
	if n < 1 {
		return 0, false, invalid(field, "column numbers start at 1")
	}
	return n - 1, true, nil
}

// crLines passes a file on with each CR that is not followed by a LF turned into a LF: the
// line end of classic Mac OS, which Excel for Mac's "CSV (Macintosh)" still writes. A CRLF
// passes as it is (encoding/csv reads it as a line end).
type crLines struct{ src *bufio.Reader }

func (c crLines) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if _, err := c.src.Peek(1); err != nil {
		return 0, err
	}
	buf, _ := c.src.Peek(c.src.Buffered())
	n := copy(p, buf)
	if n < len(buf) {
		buf = buf[:n+1] // the byte after the last one passed, to tell a CRLF
	} else if buf[n-1] == '\r' {
		if n > 1 {
			n-- // the CR waits for the byte after it
		} else if next, _ := c.src.Peek(2); len(next) == 2 {
			buf = next
		}
	}
	for i := range n {
		if p[i] == '\r' && (i+1 >= len(buf) || buf[i+1] != '\n') {
			p[i] = '\n'
		}
	}
	_, _ = c.src.Discard(n)
	return n, nil
}

// delimiter guesses the field separator from the first line: a comma, unless the line has
// none but has semicolons (as spreadsheets write where the comma is the decimal point) or
// tabs.
func delimiter(br *bufio.Reader) rune {
	b, _ := br.Peek(br.Size())
	line := b
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		line = b[:i]
	}
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

// spreadsheetErrors are the error values spreadsheets write into a cell whose formula failed.
var spreadsheetErrors = []string{"#REF!", "#N/A", "#VALUE!", "#NAME?", "#DIV/0!", "#NUM!", "#NULL!", "#SPILL!", "#CALC!", "#FIELD!", "#BLOCKED!", "#UNKNOWN!", "#GETTING_DATA"}

// scientific matches a number written in scientific notation, as spreadsheets show a long
// number in a cell formatted as a number: 2.34803E+12.
var scientific = regexp.MustCompile(`^[+]?[0-9]+([.,][0-9]+)?[eE][+]?[0-9]+$`)

// checkPhone normalizes a phone number as written, or says why it is not one, quoting it.
func checkPhone(raw string) (phone, reason string) {
	if strings.TrimSpace(raw) == "" {
		return "", "no phone number"
	}
	phone, err := rules.NormalizePhone(raw)
	if err == nil {
		return phone, ""
	}
	q := quoteValue(raw)
	switch {
	case slices.ContainsFunc(spreadsheetErrors, func(e string) bool { return strings.EqualFold(strings.TrimSpace(raw), e) }):
		return "", "the cell holds the spreadsheet error " + q + ", not a number: fix the formula, then export again"
	case scientific.MatchString(strings.TrimSpace(raw)):
		return "", q + " is a number in scientific notation, its last digits lost: format the column as text, then export again"
	}
	return "", "invalid phone number " + q + ": " + strings.TrimPrefix(err.Error(), "phone number ")
}

// checkNameText says why a name cannot be sent whatever the message, or "".
func checkNameText(name string) string {
	if !utf8.ValidString(name) {
		return "the name " + quoteValue(name) + " is not valid UTF-8"
	}
	if n := utf8.RuneCountInString(name); n > rules.MaxNameLen {
		return fmt.Sprintf("the name %s is %d characters; at most %d are allowed", quoteValue(name), n, rules.MaxNameLen)
	}
	return ""
}

// partsReason says why a message of parts SMS parts, with name, cannot be sent, or "".
func partsReason(parts int, name string) string {
	switch {
	case parts == 0 && name == "":
		return "the message is empty without a name"
	case parts == 0:
		return "the message is empty with this name"
	case parts > rules.MaxParts:
		return "with this name the message takes " + strconv.Itoa(parts) + " SMS parts; at most " + strconv.Itoa(rules.MaxParts) + " are allowed"
	}
	return ""
}

// cutValue cuts s at maxShownValue bytes, on a character boundary.
func cutValue(s string) string {
	if len(s) <= maxShownValue {
		return s
	}
	n := maxShownValue
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// quoteValue quotes a bad value for a reason: escaped as a Go string, cut at maxShownValue
// bytes with an ellipsis.
func quoteValue(s string) string {
	if c := cutValue(s); len(c) < len(s) {
		return strconv.Quote(c) + "…"
	}
	return strconv.Quote(s)
}
