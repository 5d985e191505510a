package logging

// The fixed keys (STYLE.md "Errors and logs"): one key per fact, added once
// per request or job. A synonym of one of them in a log call is drift, and
// TestOneKeyPerFact fails on it.
const (
	KeyDelivery     = "delivery_id"
	KeyInstallation = "installation_id"
	KeyRepo         = "repo"
	KeyPR           = "pr"
	KeyRun          = "run_id"
	KeyReviewer     = "reviewer"
)

// Synonyms maps keys seen drifting to the fixed key that says the same fact.
var Synonyms = map[string]string{
	"installation": KeyInstallation, "installationID": KeyInstallation, "installation-id": KeyInstallation, "inst": KeyInstallation,
	"delivery": KeyDelivery, "deliveryID": KeyDelivery, "delivery-id": KeyDelivery,
	"repository": KeyRepo, "repo_name": KeyRepo, "full_name": KeyRepo,
	"pr_number": KeyPR, "pull_request": KeyPR, "prNumber": KeyPR, "number": KeyPR,
	"run": KeyRun, "runID": KeyRun, "run-id": KeyRun,
	"reviewer_name": KeyReviewer, "reviewerName": KeyReviewer,
}
