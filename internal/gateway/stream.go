package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/redact"
)

// maxEventLine caps one line of the upstream's event stream (a delta is small;
// message_start carries no content).
const maxEventLine = 1 << 20

// streamUsage is the usage of a streamed answer: message_start carries the
// input side (and a first output count); each message_delta carries the
// cumulative counts of the fields it names, which replace the earlier ones.
type streamUsage struct {
	models.Usage
	seen bool
	// ended says a message_delta came: its counts are the answer's own.
	ended bool
	// deltas and deltaBytes count the content relayed (text, thinking,
	// tool input), to meter a stream cut before its message_delta.
	deltas, deltaBytes int64
}

// usageFields has every field optional so an absent one does not overwrite.
type usageFields struct {
	InputTokens              *int64                `json:"input_tokens"`
	OutputTokens             *int64                `json:"output_tokens"`
	CacheCreationInputTokens *int64                `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int64                `json:"cache_read_input_tokens"`
	CacheCreation            *models.CacheCreation `json:"cache_creation"`
	InferenceGeo             *string               `json:"inference_geo"`
}

func (u *streamUsage) apply(f *usageFields) {
	if f == nil {
		return
	}
	u.seen = true
	if f.CacheCreation != nil {
		cc := *f.CacheCreation
		u.CacheCreation = &cc
	}
	if f.InferenceGeo != nil {
		u.InferenceGeo = *f.InferenceGeo
	}
	for _, x := range []struct {
		from *int64
		to   *int64
	}{{f.InputTokens, &u.InputTokens}, {f.OutputTokens, &u.OutputTokens},
		{f.CacheCreationInputTokens, &u.CacheCreationInputTokens}, {f.CacheReadInputTokens, &u.CacheReadInputTokens}} {
		if x.from != nil {
			*x.to = *x.from
		}
	}
}

// event reads the usage out of one server-sent event's data.
func (u *streamUsage) event(data []byte) {
	var ev struct {
		Type    string `json:"type"`
		Message struct {
			Usage *usageFields `json:"usage"`
		} `json:"message"`
		Usage *usageFields `json:"usage"`
		Delta struct {
			Text        string `json:"text"`
			Thinking    string `json:"thinking"`
			PartialJSON string `json:"partial_json"`
		} `json:"delta"`
	}
	if json.Unmarshal(data, &ev) != nil {
		return
	}
	switch ev.Type {
	case "message_start":
		u.apply(ev.Message.Usage)
	case "content_block_delta":
		u.deltas++
		u.deltaBytes += int64(len(ev.Delta.Text) + len(ev.Delta.Thinking) + len(ev.Delta.PartialJSON))
	case "message_delta":
		u.ended = true
		u.apply(ev.Usage)
	}
}

// metered is the usage to meter: the stream's own counts when it ended,
// else (cut before its message_delta, whose counts message_start's first
// output count stands in for) at least what was relayed: a token per delta
// and one per bytesPerToken bytes of content, whichever is more.
func (u *streamUsage) metered() models.Usage {
	out := u.Usage
	if !u.ended {
		out.OutputTokens = max(out.OutputTokens, u.deltas, (u.deltaBytes+bytesPerToken-1)/bytesPerToken)
	}
	return out
}

// isEventStream reports whether resp is a successful server-sent event stream.
func isEventStream(resp *http.Response) bool {
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	return resp.StatusCode/100 == 2 && strings.HasPrefix(ct, "text/event-stream")
}

// relay passes the upstream's event stream to the client event by event
// (flushing after each), reads the usage from its message_start and
// message_delta events, and settles res with it once the stream ends — also
// when the client went away or the stream broke, for what was relayed. At most
// MaxResponseBytes are relayed; past that the client gets an error event.
func (g *Gateway) relay(ctx context.Context, w http.ResponseWriter, resp *http.Response, res *reservation, provider string, entry *models.Entry, geo string, log *slog.Logger) {
	for _, h := range forwarded {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no") // no proxy buffering in front of Chakshu either
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	_ = rc.Flush()

	var u streamUsage
	defer func() {
		if !u.seen {
			res.keep(log, "the stream has no usage")
			return
		}
		// Metered even when the client has gone: the upstream has answered.
		m := withGeo(u.metered(), geo)
		if err := res.settle(context.WithoutCancel(ctx), provider, m, entry.Cost(m)); err != nil {
			log.Error("meter model usage", "err", redact.Error(err))
		}
	}()

	br := bufio.NewReaderSize(resp.Body, 64<<10)
	var data bytes.Buffer // the current event's data lines
	var sent int64
	for {
		line, err := readLine(br)
		if len(line) > 0 || err == nil {
			if sent += int64(len(line)); sent > g.cfg.MaxResponseBytes {
				log.Warn("model stream too large", "limit", g.cfg.MaxResponseBytes)
				writeStreamError(w, "the model upstream answer is too large")
				_ = rc.Flush()
				return
			}
			if _, werr := w.Write(line); werr != nil {
				return // the client went away
			}
			switch t := bytes.TrimRight(line, "\r\n"); {
			case len(t) == 0: // end of an event
				if data.Len() > 0 {
					u.event(data.Bytes())
					data.Reset()
				}
				if ferr := rc.Flush(); ferr != nil {
					return
				}
			case bytes.HasPrefix(t, []byte("data:")):
				if data.Len() > 0 {
					data.WriteByte('\n')
				}
				data.Write(bytes.TrimPrefix(bytes.TrimPrefix(t, []byte("data:")), []byte(" ")))
			}
		}
		if err != nil {
			if data.Len() > 0 {
				u.event(data.Bytes())
			}
			if !errors.Is(err, io.EOF) {
				log.Warn("model stream read", "err", redact.Error(err))
				writeStreamError(w, "the model upstream stream broke off")
			}
			_ = rc.Flush()
			return
		}
	}
}

var errLineTooLong = errors.New("event stream line too long")

// readLine returns the next line with its newline (the last one may have none).
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > maxEventLine {
			return nil, errLineTooLong
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return out, err
		}
	}
}

// writeStreamError ends a relayed stream with the API's error event.
func writeStreamError(w io.Writer, msg string) {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": "api_error", "message": msg}})
	fmt.Fprintf(w, "\nevent: error\ndata: %s\n\n", b)
}
