package graph

import (
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/graph/model"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// modelStatus is a reviewer's model as the catalogue sees it now.
func (h *api) modelStatus(rv *ent.Reviewer) *model.ModelStatus {
	id := reviewerconfig.Defaults().Model
	id = reviewerconfig.FromEnt(rv).Model
	out := &model.ModelStatus{Model: id, State: "unknown"}
	cat, _ := h.cfg.Models.Catalog()
	e, err := cat.Lookup(id)
	if err != nil {
		w := err.Error()
		out.Warning = &w
		return out
	}
	st := e.StatusAt(time.Now())
	out.Provider, out.State = e.Provider, st.State
	served, serr := e.Serve(h.cfg.Settings.Platform) // the provider runs go to (CHAKSHU_MODEL_PROVIDER)
	if serr == nil {
		out.Provider = served.Provider
	}
	if !st.RetiresOn.IsZero() {
		d := st.RetiresOn.Format(time.DateOnly)
		out.RetiresOn = &d
	}
	if st.Replacement != "" {
		r := st.Replacement
		out.Replacement = &r
	}
	switch {
	case serr != nil:
		w := serr.Error()
		out.Warning = &w
	case st.State == "retired":
		w := "retired: runs fail until model: in reviewer.yaml names an active model (" + st.Sentence() + ")"
		out.Warning = &w
	case st.Warn:
		w := st.Sentence() + "; change model: in reviewer.yaml before " + st.RetiresOn.Format(time.DateOnly)
		out.Warning = &w
	}
	return out
}
