package ghwrite

import (
	"context"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/internal/gh"
)

// AppHooks is the App's webhook delivery log as the webhook recovery uses
// it (worker.HookDeliveries): listing reads; asking GitHub to redeliver is a
// write (POST /app/hook/deliveries/{id}/attempts) and so lives here, with
// every other write to GitHub.
type AppHooks struct{ apps *github.AppsService }

// Hooks is the App's (JWT) delivery log of apps.
func Hooks(apps *gh.Apps) *AppHooks { return &AppHooks{apps: apps.App().Apps} }

// ListHookDeliveries lists the App's webhook deliveries.
func (h *AppHooks) ListHookDeliveries(ctx context.Context, opts *github.ListCursorOptions) ([]*github.HookDelivery, *github.Response, error) {
	return h.apps.ListHookDeliveries(ctx, opts)
}

// RedeliverHookDelivery asks GitHub to deliver delivery id again.
func (h *AppHooks) RedeliverHookDelivery(ctx context.Context, id int64) (*github.HookDelivery, *github.Response, error) {
	return h.apps.RedeliverHookDelivery(ctx, id)
}
