package bulk

import (
	"cmp"
	"fmt"
	"github.com/seedsms/sms-go"
	"strconv"
	"strings"

	"github.com/seedsms/sms-go/internal/rules"
)

// bulkReader cuts a job's input into batches. It normalizes and de-duplicates numbers over
// the whole input, skips invalid recipients, and ends a batch at BatchSize recipients or when
// the next one would take its request body past 1 MiB, so that the same input always gives
// the same batches. It fills the batches of its shard and only counts the others'.
//
// One goroutine uses it, Send's: its counters are its own, and join the report once the
// workers are done.
type bulkReader struct {
	message  string
	size     int // recipients per batch, at most
	shard    Shard
	personal bool   // the message holds {{name}}
	fallback string // the name of a recipient without one, in a personal message
	msgParts int    // the message's parts, when not personal
	overhead int    // the body size of a batch without its recipients, at most
	pool     *batchPool

	seen       numberSet
	sentBefore *numberSet     // numbers to skip, sent by earlier jobs; nil for none
	partsOf    map[string]int // the message's parts by name, for the batch being filled

	pos         int // of the next pair of the input, from 0
	duplicates  int
	nameless    int // recipients of a personal message sent without a name
	skipped     int // distinct numbers in sentBefore
	invalid     int
	invalidList []InvalidRecipient

	index int        // of the batch being filled
	count int        // its recipients
	bytes int        // its body size, at most
	parts int        // the largest parts of its recipients' messages
	cur   *bulkBatch // nil when the batch is another shard's
}

// maxBatchDigits is the most digits of a batch index: JobID + ":" + index fits the
// reference's 100 characters.
const maxBatchDigits = rules.MaxReferenceLen - maxJobIDLen - 1

func newBulkReader(p *Params, pool *batchPool) *bulkReader {
	rd := &bulkReader{
		message:  p.Message,
		size:     cmp.Or(p.BatchSize, MaxBatchSize),
		shard:    Shard{Index: p.Shard.Index, Count: max(p.Shard.Count, 1)},
		personal: strings.Contains(p.Message, nameTag),
		fallback: p.NameFallback,
		overhead: bodyOverhead(p),
		pool:     pool,
		partsOf:  make(map[string]int),
	}
	if !rd.personal {
		rd.msgParts, _ = rules.CountParts(p.Message)
	}
	rd.start()
	return rd
}

// add reads the next recipient of the input. It returns the batch of this shard that the
// recipient ended, if any, and an error when the input holds more batches than references
// can number.
func (rd *bulkReader) add(r sms.Recipient) (*bulkBatch, error) {
	pos := rd.pos
	rd.pos++
	blank := rd.personal && strings.TrimSpace(r.Name) == ""
	if blank && rd.fallback != "" {
		r.Name, blank = rd.fallback, false
	}
	phone, reason := checkPhone(r.Phone)
	if reason != "" {
		rd.skip(InvalidRecipient{Position: pos, Field: "Phone", Reason: reason})
		return nil, nil
	}
	parts, reason := rd.checkName(r.Name)
	if reason != "" {
		rd.skip(InvalidRecipient{Position: pos, Field: "Name", Reason: reason})
		return nil, nil
	}
	n, _ := strconv.ParseUint(phone, 10, 64) // at most 15 digits
	if !rd.seen.add(n) {
		rd.duplicates++
		return nil, nil
	}
	if rd.sentBefore != nil && rd.sentBefore.has(n) {
		rd.skipped++
		return nil, nil
	}
	if blank {
		rd.nameless++
	}
	var done *bulkBatch
	size := recipientSize(phone, r.Name)
	if rd.count > 0 && (rd.count == rd.size || rd.bytes+1+size > rules.MaxBodyBytes) {
		done = rd.end()
		if rd.index++; len(strconv.Itoa(rd.index)) > maxBatchDigits {
			return done, fmt.Errorf("more than %d batches; split the input into several jobs", rd.index)
		}
		rd.start()
	}
	if rd.count > 0 {
		rd.bytes++ // the comma
	}
	rd.count, rd.bytes, rd.parts = rd.count+1, rd.bytes+size, max(rd.parts, parts)
	if rd.cur != nil {
		rd.cur.to = append(rd.cur.to, sms.Recipient{Phone: phone, Name: r.Name})
		rd.cur.total += parts
	}
	return done, nil
}

// checkName returns the parts of the message with name, or why name makes its recipient
// invalid.
func (rd *bulkReader) checkName(name string) (parts int, reason string) {
	if reason := checkNameText(name); reason != "" {
		return 0, reason
	}
	if !rd.personal {
		return rd.msgParts, ""
	}
	parts, ok := rd.partsOf[name]
	if !ok {
		parts, _ = rules.CountPartsWith(rd.message, nameTag, name)
		rd.partsOf[name] = parts
	}
	if reason := partsReason(parts, name); reason != "" {
		return 0, reason
	}
	return parts, ""
}

// skip reports an invalid recipient.
func (rd *bulkReader) skip(r InvalidRecipient) {
	rd.invalid++
	if len(rd.invalidList) < maxReportedInvalid {
		rd.invalidList = append(rd.invalidList, r)
	}
}

// skipRow reports a row that the input's reader found invalid, at the next position.
func (rd *bulkReader) skipRow(e *CSVRowError) {
	rd.skip(InvalidRecipient{Position: rd.pos, Line: e.Line, Field: e.Field, Reason: e.Reason})
	rd.pos++
}

// start begins batch rd.index.
func (rd *bulkReader) start() {
	rd.count, rd.bytes, rd.parts, rd.cur = 0, rd.overhead, 0, nil
	clear(rd.partsOf)
	if rd.index%rd.shard.Count == rd.shard.Index {
		rd.cur = &bulkBatch{index: rd.index, to: rd.pool.get()}
	}
}

// end ends the batch being filled and returns it, or nil when it is another shard's.
func (rd *bulkReader) end() *bulkBatch {
	b := rd.cur
	if b != nil {
		b.parts = rd.parts
	}
	rd.cur = nil
	return b
}

// flush ends the input: it returns the last batch, when it has recipients and is this
// shard's.
func (rd *bulkReader) flush() *bulkBatch {
	if rd.count == 0 {
		if rd.cur != nil {
			rd.pool.put(rd.cur.to)
			rd.cur = nil
		}
		return nil
	}
	return rd.end()
}
