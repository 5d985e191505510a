package gateway

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// features is the part of a Messages request that can cost more than its
// tokens at the model's base price. Each is refused unless Chakshu prices it:
//   - "speed": "fast" (fast mode, billed at a multiple of the base price;
//     docs "Fast mode (beta: research preview)", pricing page);
//   - "service_tier" other than "standard_only" (priority tier, its own prices);
//   - server tools, i.e. any tool with a "type" other than "custom"
//     (web search and code execution are billed per use; pricing page,
//     "Feature-specific pricing");
//   - "mcp_servers" and "container" (MCP connector, code execution containers).
//
// The agent uses none of them; a runner sending one is refused, not metered
// at the base rate.
type features struct {
	Speed       string            `json:"speed"`
	ServiceTier string            `json:"service_tier"`
	Tools       []json.RawMessage `json:"tools"`
	MCPServers  json.RawMessage   `json:"mcp_servers"`
	Container   json.RawMessage   `json:"container"`
}

// unpriced says which feature of body Chakshu cannot price, or "".
func unpriced(body []byte) string {
	var f features
	if json.Unmarshal(body, &f) != nil {
		return ""
	}
	switch {
	case f.Speed != "" && f.Speed != "standard":
		return fmt.Sprintf("speed %q", f.Speed)
	case f.ServiceTier != "" && f.ServiceTier != "standard_only":
		return fmt.Sprintf("service_tier %q", f.ServiceTier)
	case len(f.MCPServers) > 0 && string(f.MCPServers) != "null":
		return "mcp_servers"
	case len(f.Container) > 0 && string(f.Container) != "null":
		return "container"
	}
	for _, raw := range f.Tools {
		var t struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Type != "" && t.Type != "custom" {
			return fmt.Sprintf("server tool %q", t.Type)
		}
	}
	return ""
}

// betaRefused returns the first anthropic-beta value of header that is not
// in allowed (values are comma separated, as the SDKs send them).
func betaRefused(header string, allowed []string) string {
	for _, v := range strings.Split(header, ",") {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(allowed, v) {
			return v
		}
	}
	return ""
}
