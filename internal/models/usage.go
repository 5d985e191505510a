package models

// Usage is the token count of one Messages answer, as Anthropic reports it.
// CacheCreation splits CacheCreationInputTokens by cache lifetime
// (usage.cache_creation.ephemeral_5m_input_tokens / ephemeral_1h_input_tokens,
// Messages API reference; anthropic-sdk-go v2.15.0 CacheCreation).
type Usage struct {
	InputTokens              int64          `json:"input_tokens"`
	OutputTokens             int64          `json:"output_tokens"`
	CacheCreationInputTokens int64          `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64          `json:"cache_read_input_tokens"`
	CacheCreation            *CacheCreation `json:"cache_creation,omitempty"`
	// InferenceGeo is where inference ran: "global" or "us"
	// (usage.inference_geo; docs "Data residency").
	InferenceGeo string `json:"inference_geo,omitempty"`
}

// GeoUS is the inference_geo of US-only inference.
const GeoUS = "us"

// CacheCreation is the split of cache writes by lifetime.
type CacheCreation struct {
	Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
}

// Writes returns the 5-minute and 1-hour cache writes of u. Without a split
// every write is a 5-minute one (the API's default lifetime); a split that
// accounts for fewer tokens than the total leaves the rest at 5 minutes.
func (u Usage) Writes() (w5m, w1h int64) {
	if u.CacheCreation == nil {
		return u.CacheCreationInputTokens, 0
	}
	w1h = u.CacheCreation.Ephemeral1h
	w5m = max(u.CacheCreation.Ephemeral5m, u.CacheCreationInputTokens-w1h)
	return w5m, w1h
}

// PromptTokens is the request's prompt length as tiered prices count it:
// input, cache reads and cache writes.
func (u Usage) PromptTokens() int64 {
	w5m, w1h := u.Writes()
	return u.InputTokens + u.CacheReadInputTokens + w5m + w1h
}

// Cost is the price of u on e, in US dollars: the tier of the request's
// prompt length applies to every token of it, output included, and
// US-only inference multiplies the whole by the model's USOnlyMultiplier.
func (e *Entry) Cost(u Usage) float64 {
	c := e.PriceFor(u.PromptTokens()).Cost(u)
	if u.InferenceGeo == GeoUS && e.USOnlyMultiplier > 0 {
		c *= e.USOnlyMultiplier
	}
	return c
}

// Cost is the price of u at p, in US dollars.
func (p Price) Cost(u Usage) float64 {
	w5m, w1h := u.Writes()
	return (float64(u.InputTokens)*p.Input +
		float64(u.OutputTokens)*p.Output +
		float64(w5m)*p.CacheWrite5m +
		float64(w1h)*p.CacheWrite1h +
		float64(u.CacheReadInputTokens)*p.CacheRead) / 1e6
}
