package bulk

import "bufio"

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
