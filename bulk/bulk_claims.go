package bulk

import (
	"fmt"
	"github.com/seedsms/sms-go"
	"strconv"
	"sync"
)

// campaignClaims holds the campaign each batch of a bulk job was answered with. Every batch
// carries a reference of its own, so an answer naming a campaign already answered for another
// batch is not about this batch: what became of it is not known.
type campaignClaims struct {
	mu    sync.Mutex
	batch map[string]int // campaign ID -> the batch it was first answered for
}

// claim records that the answer of batch index names campaign id. It returns why the answer
// cannot be this batch's when another batch's answer named the same campaign (a batch
// answered again, as a retry is, names its own campaign again).
func (c *campaignClaims) claim(sent *sms.SendResult, ref string, index int) error {
	id := sent.Campaign.ID
	c.mu.Lock()
	defer c.mu.Unlock()
	if first, ok := c.batch[id]; ok && first != index {
		return unreadable(sent, ref, fmt.Errorf("the %d answer names campaign %s, already answered for batch %d of this job: it is not this batch's",
			statusOf(sent), strconv.Quote(printable(id)), first))
	}
	if c.batch == nil {
		c.batch = map[string]int{}
	}
	c.batch[id] = index
	return nil
}
