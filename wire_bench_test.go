package sms

import (
	"encoding/json"
	"strconv"
	"testing"
)

// BenchmarkCampaignBody encodes the body of a campaign of 10,000 recipients as every
// campaign request does, without and with names.
func BenchmarkCampaignBody(b *testing.B) {
	for _, named := range []bool{false, true} {
		to := make([]wireRecipient, 10_000)
		for i := range to {
			to[i].Phone = "23480" + strconv.Itoa(10_000_000+i)
			if named {
				to[i].Name = "Customer " + strconv.Itoa(i)
			}
		}
		b.Run("named="+strconv.FormatBool(named), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				body := sendBody[any]{To: campaignTo(to), From: "MOCKSMS", Message: "Your order has shipped.", Reference: "ref-1"}
				if _, err := json.Marshal(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
