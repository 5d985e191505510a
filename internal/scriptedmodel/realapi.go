package scriptedmodel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/internal/models"
)

// What the real Messages API does that the scripted model reproduces, each
// with where it is stated.

// checkModel answers like the API for a model it does not serve: a retired
// or unknown id gets 404 not_found_error with the message "model: <id>"
// (docs "Errors": 404 not_found_error; "Model deprecations": requests to
// retired models fail).
func (m *model) checkModel(id string) (*models.Entry, bool) {
	e, err := m.catalog().Lookup(id)
	if err != nil || e.StatusAt(m.now()).State == "retired" {
		return nil, false
	}
	return e, true
}

func (m *model) catalog() *models.Catalog {
	if m.cfg.Catalog != nil {
		return m.cfg.Catalog
	}
	return models.Builtin()
}

func (m *model) now() time.Time {
	if m.cfg.Now != nil {
		return m.cfg.Now()
	}
	return time.Now()
}

// overloaded answers the configured burst of 529 overloaded_error (docs
// "Errors": 529 overloaded_error, the API is temporarily overloaded), with
// retry-after when configured. It reports whether it answered.
func (m *model) overloaded(w http.ResponseWriter) bool {
	if m.cfg.Overloaded <= 0 {
		return false
	}
	if n := m.overloads.Add(1); n > int64(m.cfg.Overloaded) {
		return false
	}
	if m.cfg.OverloadRetryAfter != "" {
		w.Header().Set("retry-after", m.cfg.OverloadRetryAfter)
	}
	apiError(w, 529, "overloaded_error", "Overloaded")
	return true
}

// maxBreakpoints is the API's limit of cache_control blocks per request
// (docs "Prompt caching": up to 4 cache breakpoints).
const maxBreakpoints = 4

// lookback is how many blocks before a breakpoint the API checks for an
// earlier cache entry (docs "Prompt caching": about 20 blocks).
const lookback = 20

// cacheBlock is one block of the prompt in the API's cache order: tools,
// then system, then messages (docs "Prompt caching": the prefix is tools,
// system, messages in that order, up to the block with cache_control).
type cacheBlock struct {
	hash   string // of the prefix up to and including this block
	tokens int64  // of the prefix up to and including this block
	ttl    time.Duration
	mark   bool
}

type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl"`
}

// promptCache is the scripted model's prompt cache: prefix hash → expiry.
// A hit refreshes the entry's lifetime at no cost (docs "Prompt caching":
// the cache is refreshed each time the cached content is used).
type promptCache struct {
	mu      sync.Mutex
	entries map[string]time.Time
}

// prefixBlocks lays req out as the cache sees it. The cache key of message
// blocks includes tool_choice (docs "Prompt caching", what invalidates the
// cache: changing tool_choice invalidates the message blocks, not tools or
// system); every key includes the model (caches are per model).
func prefixBlocks(req *request, raw func(any) []byte) ([]cacheBlock, error) {
	h := sha256.New()
	h.Write([]byte(req.Model))
	var out []cacheBlock
	var total int64
	marks := 0
	add := func(content []byte, cc json.RawMessage) error {
		h.Write(content)
		total += tokens(len(content))
		b := cacheBlock{hash: hex.EncodeToString(h.Sum(nil)), tokens: total}
		if len(cc) > 0 && string(cc) != "null" {
			var c cacheControl
			if err := json.Unmarshal(cc, &c); err != nil || c.Type != "ephemeral" {
				return fmt.Errorf("cache_control: type must be \"ephemeral\"")
			}
			switch c.TTL {
			case "", "5m":
				b.ttl = 5 * time.Minute
			case "1h":
				b.ttl = time.Hour
			default:
				return fmt.Errorf("cache_control.ttl: must be \"5m\" or \"1h\"")
			}
			b.mark = true
			marks++
		}
		out = append(out, b)
		return nil
	}
	for _, t := range req.Tools {
		cc := t.CacheControl
		t.CacheControl = nil
		if err := add(raw(t), cc); err != nil {
			return nil, err
		}
	}
	sys, _ := blocks(req.System)
	for _, b := range sys {
		cc := b.CacheControl
		b.CacheControl = nil
		if err := add(raw(b), cc); err != nil {
			return nil, err
		}
	}
	if req.ToolChoice != nil {
		h.Write(raw(req.ToolChoice))
	}
	for _, msg := range req.Messages {
		h.Write([]byte(msg.Role))
		bs, _ := blocks(msg.Content)
		for _, b := range bs {
			cc := b.CacheControl
			b.CacheControl = nil
			if err := add(raw(b), cc); err != nil {
				return nil, err
			}
		}
	}
	if marks > maxBreakpoints {
		return nil, fmt.Errorf("A maximum of %d blocks with cache_control may be provided. Found %d.", maxBreakpoints, marks)
	}
	return out, nil
}

func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSpace(buf.Bytes())
}

// cacheUsage is what the cache makes of a prompt: the tokens read from
// cache, and those written at each lifetime. A hit needs an identical
// prefix up to a breakpoint (or one of the lookback blocks before it) that
// was written within its lifetime; a write needs the prefix to be at least
// the model's minimum cacheable length (docs "Prompt caching": shorter
// prompts cannot be cached, even if marked), and counts the tokens after
// the hit up to the last breakpoint, each segment at its breakpoint's TTL.
func (pc *promptCache) use(bs []cacheBlock, minTokens int64, now time.Time) (read, w5m, w1h int64) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.entries == nil {
		pc.entries = map[string]time.Time{}
	}
	hit := -1
	for i := len(bs) - 1; i >= 0; i-- {
		if !bs[i].mark {
			continue
		}
		for j := i; j >= 0 && j >= i-lookback; j-- {
			if exp, ok := pc.entries[bs[j].hash]; ok && now.Before(exp) && j > hit {
				hit = j
				break
			}
		}
	}
	from := int64(0)
	if hit >= 0 {
		read = bs[hit].tokens
		from = read
		ttl := 5 * time.Minute
		for _, b := range bs[hit:] {
			if b.mark {
				ttl = b.ttl
				break
			}
		}
		pc.entries[bs[hit].hash] = now.Add(ttl) // refreshed by use
	}
	for i := hit + 1; i < len(bs); i++ {
		b := bs[i]
		if !b.mark || b.tokens < minTokens {
			continue
		}
		if b.ttl == time.Hour {
			w1h += b.tokens - from
		} else {
			w5m += b.tokens - from
		}
		from = b.tokens
		pc.entries[b.hash] = now.Add(b.ttl)
	}
	return read, w5m, w1h
}

// serveModels answers the Models API (docs "Models API": GET /v1/models
// lists the models the key may use; GET /v1/models/{model_id} takes an id or
// an alias and answers the model with its canonical id, else 404
// not_found_error). It checks the key like POST /v1/messages.
func (m *model) serveModels(w http.ResponseWriter, r *http.Request) {
	if m.cfg.APIKey != "" && r.Header.Get("x-api-key") != m.cfg.APIKey {
		apiError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return
	}
	type modelInfo struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
		CreatedAt   string `json:"created_at"`
	}
	info := func(e *models.Entry) modelInfo {
		return modelInfo{Type: "model", ID: e.ID, DisplayName: e.Name, CreatedAt: "2026-01-01T00:00:00Z"}
	}
	w.Header().Set("Content-Type", "application/json")
	_, id, found := strings.Cut(r.URL.Path, "/v1/models/")
	if found && id != "" {
		e, ok := m.checkModel(id)
		if !ok {
			apiError(w, http.StatusNotFound, "not_found_error", "model: "+id)
			return
		}
		_ = json.NewEncoder(w).Encode(info(e))
		return
	}
	var data []modelInfo
	for _, e := range m.catalog().Entries() {
		if _, ok := m.checkModel(e.ID); ok {
			data = append(data, info(e))
		}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "has_more": false})
}
