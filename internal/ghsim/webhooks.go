package ghsim

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

type webhookConfig struct {
	url     string
	secrets []string
}

// Delivery is one webhook delivery (or redelivery).
type Delivery struct {
	// ID is the X-GitHub-Delivery uuid; a redelivery keeps it.
	ID string
	// Event is X-GitHub-Event (pull_request, issue_comment…).
	Event string
	// Action is the payload's "action", if any.
	Action string
	// InstallationID is the payload's installation.id (0 if none).
	InstallationID int64
	// Payload is the exact body sent.
	Payload []byte
	// Headers are the request headers sent.
	Headers http.Header
	// Status is the receiver's HTTP status (0 if not sent or failed).
	Status int
	// Err is the transport error, if any.
	Err string
	// Redelivery is true for a Redeliver.
	Redelivery bool
	// At is when it was sent.
	At time.Time
	// Num is the attempt's numeric id, the one GET /app/hook/deliveries
	// lists and POST /app/hook/deliveries/{id}/attempts takes.
	Num int64
}

// SetWebhook points the app's webhook at url. The first secret signs
// X-Hub-Signature-256 (and X-Hub-Signature). An empty url stops deliveries
// (events are still recorded with Status 0).
func (s *Sim) SetWebhook(url string, secrets ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = &webhookConfig{url: url, secrets: secrets}
}

// emit queues an event; the caller flushes after releasing s.mu.
// Events about repositories no installation covers are dropped: GitHub only
// sends an app the events of its installations.
func (s *Sim) emit(event string, instID int64, payload obj) {
	if instID == 0 {
		return
	}
	if instID != 0 {
		if in := s.installs[instID]; in != nil {
			payload["installation"] = obj{"id": in.id, "node_id": nodeID("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u", in.id)}
			if event == "installation" || event == "installation_repositories" {
				payload["installation"] = s.installationJSON(in)
			}
		}
	}
	if org := s.orgOf(payload); org != nil {
		payload["organization"] = org
	}
	hookShape(payload)
	if in, ok := payload["installation"].(obj); ok && (event == "installation" || event == "installation_repositories") {
		delete(in, "node_id")
		delete(in, "client_id")
		if acct, ok := in["account"].(obj); ok {
			for _, k := range []string{"name", "slug", "created_at", "updated_at"} {
				delete(acct, k)
			}
		}
	}
	if rv, ok := payload["review"].(obj); ok {
		rv["state"] = strings.ToLower(rv["state"].(string))
	}
	body, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	action, _ := payload["action"].(string)
	d := &Delivery{ID: deliveryGUID(), Event: event, Action: action, InstallationID: instID, Payload: body}
	s.pending = append(s.pending, d)
}

func (s *Sim) orgOf(payload obj) any {
	repoObj, ok := payload["repository"].(obj)
	if !ok {
		return nil
	}
	owner, _ := repoObj["owner"].(obj)
	if owner == nil || owner["type"] != "Organization" {
		return nil
	}
	login := owner["login"].(string)
	a := s.accounts[strings.ToLower(login)]
	u := s.api("/orgs/%s", login)
	return obj{"login": a.login, "id": a.id, "node_id": owner["node_id"], "url": u, "repos_url": u + "/repos", "events_url": u + "/events",
		"hooks_url": u + "/hooks", "issues_url": u + "/issues", "members_url": u + "/members{/member}",
		"public_members_url": u + "/public_members{/member}", "avatar_url": owner["avatar_url"], "description": nil}
}

// hookShape adjusts REST shapes to the webhook payload shapes where the two
// differ: repositories carry custom_properties, teams carry no type.
func hookShape(v any) { hookShapeIn(v, "") }

func hookShapeIn(v any, parent string) {
	switch x := v.(type) {
	case obj:
		if _, ok := x["full_name"]; ok && x["owner"] != nil && parent != "workflow_run" {
			if _, has := x["custom_properties"]; !has {
				x["custom_properties"] = obj{}
			}
		}
		if _, ok := x["members_url"]; ok && x["slug"] != nil {
			delete(x, "type")
		}
		for k, e := range x {
			if k == "repository" || k == "head_repository" {
				hookShapeIn(e, parent)
			} else {
				hookShapeIn(e, k)
			}
		}
	case []any:
		for _, e := range x {
			hookShapeIn(e, parent)
		}
	}
}

// flush delivers the queued events.
func (s *Sim) flush() {
	s.mu.Lock()
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	s.deliver(pending)
}

func (s *Sim) deliver(ds []*Delivery) {
	if len(ds) == 0 {
		return
	}
	hook, appID := s.hookTarget()
	send := func() {
		for _, d := range ds {
			s.send(hook, appID, d, s.opts.Validator)
		}
	}
	if s.opts.AsyncWebhooks {
		s.deliverWG.add()
		go func() {
			defer s.deliverWG.done()
			// One batch at a time keeps deliveries in the order of the changes.
			s.deliverMu.Lock()
			defer s.deliverMu.Unlock()
			send()
		}()
		return
	}
	// Synchronous: in the caller's goroutine, holding no lock, so a receiver
	// may call back into the simulator (even one that sends webhooks).
	send()
}

func (s *Sim) hookTarget() (*webhookConfig, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	appID := int64(0)
	for id := range s.apps {
		if appID == 0 || id < appID {
			appID = id
		}
	}
	return s.hook, appID
}

func (s *Sim) send(hook *webhookConfig, appID int64, d *Delivery, v Validator) {
	if v != nil {
		if err := v.Webhook(d.Event, d.Action, d.Payload); err != nil {
			s.validationError(fmt.Errorf("webhook %s.%s does not match GitHub's webhook schema: %v", d.Event, d.Action, err))
		}
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "GitHub-Hookshot/sim")
	h.Set("X-GitHub-Event", d.Event)
	h.Set("X-GitHub-Delivery", d.ID)
	h.Set("X-GitHub-Hook-ID", "1")
	h.Set("X-GitHub-Hook-Installation-Target-ID", strconv.FormatInt(appID, 10))
	h.Set("X-GitHub-Hook-Installation-Target-Type", "integration")
	if hook != nil && len(hook.secrets) > 0 {
		m := hmac.New(sha256.New, []byte(hook.secrets[0]))
		m.Write(d.Payload)
		h.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
		m1 := hmac.New(sha1.New, []byte(hook.secrets[0]))
		m1.Write(d.Payload)
		h.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(m1.Sum(nil)))
	}
	d.Headers = h
	d.At = s.now()
	if hook != nil && hook.url != "" {
		req, err := http.NewRequest(http.MethodPost, hook.url, bytes.NewReader(d.Payload))
		if err == nil {
			req.Header = h.Clone()
			resp, err2 := s.opts.WebhookClient.Do(req)
			if err2 != nil {
				err = err2
			} else {
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
				resp.Body.Close()
				d.Status = resp.StatusCode
			}
		}
		if err != nil {
			d.Err = err.Error()
		}
	}
	s.logf("ghsim: webhook %s.%s %s → %d %s", d.Event, d.Action, d.ID, d.Status, d.Err)
	s.mu.Lock()
	d.Num = s.id()
	s.deliveries = append(s.deliveries, d)
	s.mu.Unlock()
}

// Deliveries returns every delivery made so far (copies), oldest first.
func (s *Sim) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Delivery, len(s.deliveries))
	for i, d := range s.deliveries {
		out[i] = *d
	}
	return out
}

// DeliveriesOf returns the deliveries of one event (and action, if given).
func (s *Sim) DeliveriesOf(event string, action ...string) []Delivery {
	var out []Delivery
	for _, d := range s.Deliveries() {
		if d.Event == event && (len(action) == 0 || d.Action == action[0]) {
			out = append(out, d)
		}
	}
	return out
}

// WaitDeliveries waits until asynchronous deliveries queued so far are sent.
func (s *Sim) WaitDeliveries() { s.deliverWG.wait() }

// Redeliver sends delivery id again with the same X-GitHub-Delivery.
func (s *Sim) Redeliver(id string) error {
	s.mu.Lock()
	var orig *Delivery
	for _, d := range s.deliveries {
		if d.ID == id {
			orig = d
		}
	}
	s.mu.Unlock()
	if orig == nil {
		return fmt.Errorf("ghsim: no delivery %s", id)
	}
	d := &Delivery{ID: orig.ID, Event: orig.Event, Action: orig.Action, InstallationID: orig.InstallationID, Payload: orig.Payload, Redelivery: true}
	s.deliver([]*Delivery{d})
	return nil
}

// deliveryGUID makes an X-GitHub-Delivery value as GitHub does: a time-based
// (version 1) UUID. The OpenAPI description's hook-delivery example has guid
// 58474f00-b361-11eb-836d-0e4f3503ccbe beside delivered_at 2021-05-12T20:33:44Z,
// and the guid's timestamp is that second; deliveries integrators quote carry
// version 1 too (API.md, "Webhook requests").
func deliveryGUID() string {
	return uuid.Must(uuid.NewUUID()).String()
}

// newUUID makes a random (version 4) UUID.
func newUUID() string {
	b := []byte(randHex(16))
	return fmt.Sprintf("%s-%s-4%s-a%s-%s", b[0:8], b[8:12], b[13:16], b[17:20], b[20:32])
}

// emitPush queues a push event.
func (s *Sim) emitPush(r *repo, branch, before string, c *commit, forced, created bool) {
	pusher := s.ensureAccount(firstNonEmpty(c.author, r.owner), "User")
	shas, _ := trees(c.files)
	var base map[string]string
	if len(c.parents) > 0 {
		base = r.commits[c.parents[0]].files
	}
	added, removed, modified := []string{}, []string{}, []string{}
	for _, fd := range diffTrees(base, c.files) {
		switch fd.status {
		case "added":
			added = append(added, fd.path)
		case "removed":
			removed = append(removed, fd.path)
		default:
			modified = append(modified, fd.path)
		}
	}
	who := obj{"name": pusher.name, "email": pusher.email, "username": pusher.login}
	hc := obj{"id": c.sha, "tree_id": shas[""], "distinct": true, "message": c.message, "timestamp": ts(c.at),
		"url": s.html("/%s/commit/%s", r.fullName(), c.sha), "author": who, "committer": who,
		"added": added, "removed": removed, "modified": modified}
	repoObj := s.repoJSON(r)
	repoObj["pushed_at"] = r.pushed.Unix()
	repoObj["created_at"] = r.created.Unix()
	repoObj["stargazers"] = 0
	repoObj["master_branch"] = r.defaultBranch
	s.emit("push", s.instID(r), obj{
		"ref": "refs/heads/" + branch, "before": before, "after": c.sha, "created": created, "deleted": false, "forced": forced,
		"base_ref": nil, "compare": s.html("/%s/compare/%s...%s", r.fullName(), before[:12], c.sha[:12]),
		"commits": []any{hc}, "head_commit": hc, "repository": repoObj,
		"pusher": obj{"name": pusher.login, "email": pusher.email}, "sender": s.userJSON(pusher),
	})
}

// DeliverPayload sends an arbitrary payload (e.g. one of GitHub's examples
// from internal/ghsim/examples) as event, signed and recorded like any
// other delivery, and returns the delivery. Its payload is not validated.
func (s *Sim) DeliverPayload(event string, payload []byte) Delivery {
	var a struct {
		Action       string `json:"action"`
		Installation struct {
			ID int64 `json:"id"`
		} `json:"installation"`
	}
	_ = json.Unmarshal(payload, &a)
	d := &Delivery{ID: deliveryGUID(), Event: event, Action: a.Action, InstallationID: a.Installation.ID, Payload: payload}
	hook, appID := s.hookTarget()
	s.send(hook, appID, d, nil)
	return *d
}
