// Package bulk sends one message to any number of recipients, as jobs over an
// [sms.Client]: in campaigns of up to [MaxBatchSize] recipients, resumed by running the same
// job again, and waits for their delivery.
//
// [Send] streams the recipients of an iterator ([RecipientsFrom] makes one of a slice,
// [CSVReader] one of a spreadsheet export), normalizes and de-duplicates their numbers over
// the whole job, and sends batch k with the reference JobID:k, each batch one
// Campaigns.Create. Running the same job again sends only what an earlier run did not: given a
// server that deduplicates references (see [sms.WithReferenceDeduplication]), within the 24
// hours it keeps them; or, whatever the server does, with a [Journal] ([OpenFileJournal],
// [NewSQLJournal]) in which the job records each batch before and after its request. A batch
// whose request may or may not have been processed stays in doubt ([ErrBatchesInDoubt]) until
// a rerun or a person settles it ([Settle]). [Params].SkipSentBy finishes a job whose input
// changed. The [Report] counts what was sent, replayed, skipped and charged.
//
// [WaitCampaign] polls one campaign's delivery status until it is final, and [Wait] does so
// for every campaign of a report.
//
//	report, err := bulk.Send(ctx, client, &bulk.Params{
//		JobID: "black-friday-2026", From: "ACME", Message: "Hi {{name}}, 20% off today only.",
//		Recipients: bulk.NewCSVReader(file).All(),
//	})
//
// The package is built on package sms's exported API alone: every request is a call of the
// client's, retried as that call is, and its errors are the client's typed errors
// ([sms.Error], [sms.OutcomeError], [sms.ValidationError]) or this package's sentinels.
package bulk
