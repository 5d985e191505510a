package ghsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// GitHub never redelivers a failed webhook by itself ("Handling failed
// webhook deliveries"); an App lists its recent deliveries and asks for the
// failed ones again. Shapes: @octokit/openapi apps/list-webhook-deliveries
// (hook-delivery-item, newest first, paged by an opaque cursor in the Link
// header) and apps/redeliver-webhook-delivery (202).

// hookDeliveryJSON is GitHub's hook-delivery-item for one attempt.
func (s *Sim) hookDeliveryJSON(d *Delivery) obj {
	status, code := "OK", d.Status
	switch {
	case d.Err != "":
		status = "failed to connect"
		if strings.Contains(d.Err, "Timeout") || strings.Contains(d.Err, "deadline") {
			status = "timed out"
		}
	case d.Status == 0:
		status = "No webhook URL"
	case d.Status >= 400:
		status = fmt.Sprintf("Invalid HTTP Response: %d", d.Status)
	}
	var inst any
	if d.InstallationID != 0 {
		inst = d.InstallationID
	}
	var repoID any
	var head struct {
		Repository struct {
			ID int64 `json:"id"`
		} `json:"repository"`
	}
	if json.Unmarshal(d.Payload, &head) == nil && head.Repository.ID != 0 {
		repoID = head.Repository.ID
	}
	var action any
	if d.Action != "" {
		action = d.Action
	}
	return obj{
		"id": d.Num, "guid": d.ID, "delivered_at": ts(d.At), "redelivery": d.Redelivery, "duration": 0.01,
		"status": status, "status_code": code, "event": d.Event, "action": action,
		"installation_id": inst, "repository_id": repoID, "throttled_at": nil,
	}
}

// failedDelivery is GitHub's "failure" class: no 2xx/3xx answer.
func failedDelivery(d *Delivery) bool { return d.Status < 200 || d.Status >= 400 }

func hListHookDeliveries(c *reqCtx) {
	q := c.r.URL.Query()
	per := c.perPage()
	status := q.Get("status")
	// The cursor names the first attempt of the page (exclusive of newer).
	start := int64(-1)
	if cur := q.Get("cursor"); cur != "" {
		n, err := strconv.ParseInt(strings.TrimPrefix(cur, "v1_"), 10, 64)
		if err != nil || !strings.HasPrefix(cur, "v1_") {
			c.fail(http.StatusBadRequest, "Invalid cursor")
			return
		}
		start = n
	}
	var page []any
	next := int64(0)
	for i := len(c.s.deliveries) - 1; i >= 0; i-- {
		d := c.s.deliveries[i]
		if start >= 0 && d.Num > start {
			continue
		}
		if status == "success" && failedDelivery(d) || status == "failure" && !failedDelivery(d) {
			continue
		}
		if len(page) == per {
			next = d.Num
			break
		}
		page = append(page, c.s.hookDeliveryJSON(d))
	}
	if next != 0 {
		u := *c.r.URL
		qq := u.Query()
		qq.Set("cursor", fmt.Sprintf("v1_%d", next))
		qq.Set("per_page", strconv.Itoa(per))
		u.RawQuery = qq.Encode()
		c.w.Header().Set("Link", fmt.Sprintf("<%s%s>; rel=%q", c.s.base, u.RequestURI(), "next"))
	}
	if page == nil {
		page = []any{}
	}
	c.json(http.StatusOK, page)
}

func hRedeliverHookDelivery(c *reqCtx) {
	n, _ := strconv.ParseInt(c.v("delivery_id"), 10, 64)
	for _, d := range c.s.deliveries {
		if d.Num == n {
			// Sent after this answer, like every event a request causes;
			// same X-GitHub-Delivery, redelivery true.
			c.s.pending = append(c.s.pending, &Delivery{ID: d.ID, Event: d.Event, Action: d.Action,
				InstallationID: d.InstallationID, Payload: d.Payload, Redelivery: true})
			c.json(http.StatusAccepted, obj{})
			return
		}
	}
	c.notFound()
}

// hMeta is GET /meta. Enterprise Server adds installed_version (docs "Meta",
// GHES); github.com has none.
func hMeta(c *reqCtx) {
	m := obj{"verifiable_password_authentication": false, "hooks": []string{"127.0.0.1/32"}, "web": []string{"127.0.0.1/32"},
		"api": []string{"127.0.0.1/32"}, "git": []string{"127.0.0.1/32"}, "actions": []string{"127.0.0.1/32"}}
	if v := c.s.opts.EnterpriseVersion; v != "" {
		m["installed_version"] = v
	}
	c.json(http.StatusOK, m)
}
