package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/seedsms/sms-go/internal/rules"
	"github.com/seedsms/sms-go/mockserver/internal/store"
	"github.com/seedsms/sms-go/mockserver/internal/wire"
)

// sendSMS is POST /v1/sms/send.
func sendSMS(a *API, rq *request) (int, any, error) { return a.send(rq, false) }

// createCampaign is POST /v1/sms/campaigns.
func createCampaign(a *API, rq *request) (int, any, error) { return a.send(rq, true) }

// send checks the shared members and hands the send to the store, which prices it, debits
// the wallet and creates the campaign in one step.
func (a *API) send(rq *request, campaign bool) (int, any, error) {
	in, targets, err := wire.ReadSend(rq.send, rq.body, campaign)
	if err != nil {
		return 0, nil, err
	}
	if err := checkSender(in.From); err != nil {
		return 0, nil, err
	}
	if in.Message == nil || *in.Message == "" {
		return 0, nil, badRequest("message", "message is required.")
	}
	channel := store.Generic
	if in.Channel != nil {
		switch *in.Channel {
		case "generic":
		case "dnd":
			channel = store.DND
		default:
			return 0, nil, badRequest("channel", "channel must be generic or dnd.")
		}
	}
	ref := ""
	if in.Reference != nil {
		if !rules.ValidReference(*in.Reference) {
			return 0, nil, badRequest("reference", "reference must be 1 to %d printable ASCII characters.", rules.MaxReferenceLen)
		}
		ref = *in.Reference
	}
	acc, err := rq.st.store.Send(rq.caller, store.SendParams{From: *in.From, Message: *in.Message, Channel: channel,
		Reference: ref, Personalize: campaign, Targets: targets, ProviderFailure: rq.providerFailure,
		RequestID: requestID(rq.id)}, rq.now)
	if err != nil {
		return 0, nil, err
	}
	out := sentJSON{Message: "SMS request accepted.", Campaign: sentCampaignJSON{
		ID: acc.ID.String(), Status: acc.Status.String(), Recipients: acc.Recipients,
		Amount: wire.NairaNumber(acc.Amount), Currency: "NGN", SMSParts: int(acc.Parts),
	}}
	if acc.HasMessageID() {
		out.Campaign.MessageID = wire.OptString(acc.MessageID())
	}
	return http.StatusAccepted, out, nil
}

// sentJSON is the answer of POST /v1/sms/send and /v1/sms/campaigns.
type sentJSON struct {
	Message  string           `json:"message"`
	Campaign sentCampaignJSON `json:"campaign"`
}

// sentCampaignJSON is the campaign a send created.
type sentCampaignJSON struct {
	ID         string      `json:"id"`
	Status     string      `json:"status"`
	MessageID  *string     `json:"message_id"`
	Recipients int         `json:"recipients"`
	Amount     json.Number `json:"amount"` // wire.NairaNumber, as a campaign listed
	Currency   string      `json:"currency"`
	SMSParts   int         `json:"sms_parts"`
}

func checkSender(from *string) error {
	if from == nil || *from == "" {
		return badRequest("from", "from is required.")
	}
	if !rules.ValidSenderID(*from) {
		return badRequest("from", "from must be 3 to 11 ASCII letters and digits.")
	}
	return nil
}
