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

// The prompt caching rules below are those of Anthropic's "Prompt caching"
// page (platform docs, build-with-claude/prompt-caching): sections "How
// automatic prefix checking works", "When to use multiple breakpoints",
// "Cache limitations", "What can be cached", "What invalidates the cache",
// "Tracking cache performance" and "Mixing different TTLs".

// maxBreakpoints is the API's limit of cache_control blocks per request
// ("You can define up to 4 cache breakpoints").
const maxBreakpoints = 4

// lookback is how many block boundaries before a breakpoint the API checks
// for an earlier cache entry ("up to approximately 20 blocks before your
// explicit breakpoint"; content further back is found only through another
// breakpoint).
const lookback = 20

// cacheBlock is one block of the prompt in the API's cache order: tools,
// then system, then messages ("Prompt caching references the entire prompt -
// tools, system, and messages (in that order) up to and including the block
// designated with cache_control").
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
// A hit refreshes the entry's lifetime at no cost ("The cache is refreshed
// for no additional cost each time the cached content is used").
type promptCache struct {
	mu      sync.Mutex
	entries map[string]time.Time
}

// messageOverhead is what one message's framing (its role and the turn
// around its content) adds to the prompt, in tokens.
const messageOverhead = 4

// prefixBlocks lays req out as the cache sees it and says how long the whole
// prompt is. Each block is counted in its canonical form (the content, not
// the escapes a JSON encoder chose: the API bills the prompt's tokens, not
// its bytes on the wire). Per "What invalidates the cache", the key of the
// message blocks also covers tool_choice, the thinking parameters and
// whether the prompt holds images (each invalidates the messages cache only),
// and every key covers the model (caches are per model). Requests the API
// refuses are refused: more than 4 breakpoints, a cache_control on an empty
// text block or a thinking block ("What cannot be cached"), a ttl other than
// 5m or 1h, and a 1-hour breakpoint after a 5-minute one ("Cache entries
// with longer TTL must appear before shorter TTLs").
func prefixBlocks(req *request, raw func(any) []byte) ([]cacheBlock, int64, error) {
	h := sha256.New()
	h.Write([]byte(req.Model))
	var out []cacheBlock
	var total int64
	marks := 0
	seen5m := false
	// add appends one block: its canonical content, its type and text (for
	// the blocks that cannot carry cache_control) and its cache_control.
	add := func(content []byte, b block, cc json.RawMessage, where string) error {
		h.Write(content)
		total += tokens(len(content))
		cb := cacheBlock{hash: hex.EncodeToString(h.Sum(nil)), tokens: total}
		if len(cc) > 0 && string(cc) != "null" {
			var c cacheControl
			if err := json.Unmarshal(cc, &c); err != nil || c.Type != "ephemeral" {
				return fmt.Errorf("%s.cache_control: type must be \"ephemeral\"", where)
			}
			switch {
			case b.Type == "text" && b.Text == "":
				return fmt.Errorf("%s: cache_control cannot be set for empty text blocks", where)
			case b.Type == "thinking" || b.Type == "redacted_thinking":
				return fmt.Errorf("%s: cache_control cannot be set on thinking blocks", where)
			}
			switch c.TTL {
			case "", "5m":
				cb.ttl = 5 * time.Minute
				seen5m = true
			case "1h":
				if seen5m {
					return fmt.Errorf("%s.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block", where)
				}
				cb.ttl = time.Hour
			default:
				return fmt.Errorf("%s.cache_control.ttl: must be \"5m\" or \"1h\"", where)
			}
			cb.mark = true
			marks++
		}
		out = append(out, cb)
		return nil
	}
	for i, t := range req.Tools {
		cc := t.CacheControl
		t.CacheControl = nil
		if err := add(raw(t), block{Type: "tool"}, cc, fmt.Sprintf("tools.%d", i)); err != nil {
			return nil, 0, err
		}
	}
	sys, _ := blocks(req.System)
	for i, b := range sys {
		cc := b.CacheControl
		b.CacheControl = nil
		if err := add(raw(b), b, cc, fmt.Sprintf("system.%d", i)); err != nil {
			return nil, 0, err
		}
	}
	if req.ToolChoice != nil {
		h.Write(raw(req.ToolChoice))
	}
	if len(req.Thinking) > 0 {
		h.Write(raw(req.Thinking))
	}
	images := false
	for _, msg := range req.Messages {
		bs, _ := blocks(msg.Content)
		for _, b := range bs {
			images = images || b.Type == "image"
		}
	}
	fmt.Fprintf(h, "images=%v", images)
	for i, msg := range req.Messages {
		h.Write([]byte(msg.Role))
		total += messageOverhead
		bs, _ := blocks(msg.Content)
		for j, b := range bs {
			cc := b.CacheControl
			b.CacheControl = nil
			if err := add(raw(b), b, cc, fmt.Sprintf("messages.%d.content.%d", i, j)); err != nil {
				return nil, 0, err
			}
		}
	}
	if marks > maxBreakpoints {
		return nil, 0, fmt.Errorf("A maximum of %d blocks with cache_control may be provided. Found %d.", maxBreakpoints, marks)
	}
	return out, total, nil
}

// marshal is v's canonical JSON: raw fields decoded (so "\u003c" and "<"
// are the same content), keys sorted, nothing escaped that JSON allows as is.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return b
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(x)
	return bytes.TrimSpace(buf.Bytes())
}

// cachePlan is what the cache makes of a prompt when its request starts:
// the tokens read from cache, those written at each lifetime, and the
// entries the writes make, which commit adds once the answer begins.
type cachePlan struct {
	read, w5m, w1h int64
	writes         map[string]time.Time // prefix hash → expiry
}

// lookup plans a request's use of the cache at its start. A hit needs an
// identical prefix up to a breakpoint (or one of the lookback blocks before
// it) that an answered request wrote within its lifetime, and refreshes
// that entry; a write needs the prefix to be at least the model's minimum
// cacheable length (docs "Prompt caching": shorter prompts cannot be
// cached, even if marked), and counts the tokens after the hit up to the
// last breakpoint, each segment at its breakpoint's TTL. Lifetimes run
// from the start of the request ("measured from the start of the request
// that writes or reads the cache entry").
func (pc *promptCache) lookup(bs []cacheBlock, minTokens int64, now time.Time) cachePlan {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.entries == nil {
		pc.entries = map[string]time.Time{}
	}
	var p cachePlan
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
		p.read = bs[hit].tokens
		from = p.read
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
			p.w1h += b.tokens - from
		} else {
			p.w5m += b.tokens - from
		}
		from = b.tokens
		if p.writes == nil {
			p.writes = map[string]time.Time{}
		}
		p.writes[b.hash] = now.Add(b.ttl)
	}
	return p
}

// commit makes a request's cache writes readable: "a cache entry only
// becomes available after the first response begins" (docs "Prompt
// caching", Cache limitations), so a request sent while the writer is
// still waiting for its answer misses and writes the prefix again.
func (pc *promptCache) commit(p cachePlan) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for h, exp := range p.writes {
		if old, ok := pc.entries[h]; !ok || exp.After(old) {
			pc.entries[h] = exp
		}
	}
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
