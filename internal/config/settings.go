package config

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// The settings each process reads, one struct per process (DESIGN §12),
// parsed from the environment (or CHAKSHU_CONFIG_FILE) by
// github.com/caarlos0/env. Each field's tags are the one source of truth:
//
//	env         the variable
//	envDefault  its default, as the library applies it
//	default     the default as --help and README state it, where no literal
//	            envDefault can (it follows another setting, or sandbox mode)
//	help        its meaning, for --help
//	want        what a valid value looks like, for the one-line error
//	min, max    bounds of a number or duration
//
// Web, Worker and All are what `chakshu web`, `worker` and `all` read;
// Config (config.go) is what they resolve to.

// Shared are the settings every process reads: the database, the GitHub
// App, the secret key, the logs, the internal listener and the drain.
type Shared struct {
	ConfigFile       string `env:"CHAKSHU_CONFIG_FILE" help:"a file of NAME=value lines setting the same names (the environment wins)"`
	Addr             string `env:"CHAKSHU_ADDR" envDefault:"127.0.0.1:8080" help:"listen address of web / all; the public URL follows it when unset"`
	PublicURL        string `env:"CHAKSHU_PUBLIC_URL" default:"http://<CHAKSHU_ADDR>" help:"URL GitHub and runners reach Chakshu at"`
	DataDir          string `env:"CHAKSHU_DATA_DIR" envDefault:"./data" help:"where the SQLite file and local state live"`
	DatabaseURL      string `env:"CHAKSHU_DATABASE_URL" help:"postgres://… for PostgreSQL; unset → SQLite in the data dir"`
	DatabaseMaxConns int    `env:"CHAKSHU_DATABASE_MAX_CONNS" envDefault:"20" min:"1" help:"PostgreSQL connections each process pools (it opens one more for LISTEN); size max_connections for all processes"`

	AppID             int64    `env:"CHAKSHU_APP_ID" default:"unset → sandbox" want:"a positive number" min:"1" help:"the GitHub App's id"`
	AppSlug           string   `env:"CHAKSHU_APP_SLUG" default:"unset → sandbox" help:"the GitHub App's slug"`
	PrivateKey        string   `env:"CHAKSHU_PRIVATE_KEY" default:"unset → sandbox" help:"the App's PEM key (\\n for newlines)"`
	PrivateKeyFile    string   `env:"CHAKSHU_PRIVATE_KEY_FILE" help:"a file holding the App's PEM key, instead of CHAKSHU_PRIVATE_KEY"`
	GitHubURL         string   `env:"CHAKSHU_GITHUB_URL" envDefault:"https://api.github.com/" help:"REST API base URL (GitHub Enterprise Server: https://HOST/api/v3/)"`
	GitHubGraphQLURL  string   `env:"CHAKSHU_GITHUB_GRAPHQL_URL" default:"follows CHAKSHU_GITHUB_URL" help:"GraphQL API URL"`
	SecretKey         string   `env:"CHAKSHU_SECRET_KEY" default:"sandbox: generated into the data dir" help:"32-byte key (base64) for sessions and credentials"`
	SecretKeyPrevious []string `env:"CHAKSHU_SECRET_KEY_PREVIOUS" help:"comma-separated keys CHAKSHU_SECRET_KEY replaced, still accepted while rotating (chakshu secrets rotate)"`
	ModelCatalog      string   `env:"CHAKSHU_MODEL_CATALOG" default:"the built-in catalogue" help:"a JSON model catalogue merged over the built-in one (re-read on change)"`
	ReviewAllowList   []string `env:"CHAKSHU_REVIEW_ALLOWLIST" help:"comma-separated GitHub logins who may ask for reviews without write access"`
	Sandbox           string   `env:"CHAKSHU_SANDBOX" default:"unset: sandbox on loopback and SQLite only" help:"1: run sandbox mode on purpose, even on a non-loopback address or with CHAKSHU_DATABASE_URL"`
	LogLevel          string   `env:"CHAKSHU_LOG_LEVEL" envDefault:"info" help:"debug, info, warn or error"`
	LogFormat         string   `env:"CHAKSHU_LOG_FORMAT" default:"json off a terminal" help:"json or text"`

	GitHubWritesPerMinute int `env:"CHAKSHU_GITHUB_WRITES_PER_MINUTE" envDefault:"80" min:"0" help:"content-creating writes to GitHub per installation and minute, shared by every worker process (0: off; set an Enterprise Server's own)"`
	GitHubWritesPerHour   int `env:"CHAKSHU_GITHUB_WRITES_PER_HOUR" envDefault:"500" min:"0" help:"the same per hour"`

	InternalAddr    string        `env:"CHAKSHU_INTERNAL_ADDR" envDefault:"127.0.0.1:9090" help:"internal listener of every process (web, worker, all): /metrics, /healthz, /readyz"`
	DrainTimeout    time.Duration `env:"CHAKSHU_DRAIN_TIMEOUT" envDefault:"60s" min:"1ns" want:"a duration such as 20s" help:"after SIGTERM: readiness answers 503 at once, in-flight requests and model streams get this long to finish"`
	DeadWorkerAfter time.Duration `env:"CHAKSHU_DEAD_WORKER_AFTER" envDefault:"90s" min:"1s" want:"a duration of 1s or more such as 90s" help:"a worker silent this long is dead: its runs and webhook events go back to the queue (a worker beats every 2/9 of it: 20s at 90s)"`
}

// WebOnly are the settings only the HTTP side reads: webhook intake, portal
// login, the runner API and the model gateway.
type WebOnly struct {
	RunnerDir         string   `env:"CHAKSHU_RUNNER_DIR" default:"runner/ beside the chakshu executable" help:"folder of the chakshu-action binaries served to workflows (scripts/runners.sh builds them)"`
	WebhookSecrets    []string `env:"CHAKSHU_WEBHOOK_SECRET" default:"sandbox: sandbox-secret" help:"comma-separated webhook secrets (rotation)"`
	OAuthClientID     string   `env:"CHAKSHU_OAUTH_CLIENT_ID" default:"unset → sandbox login" help:"portal login: the App's OAuth client id"`
	OAuthClientSecret string   `env:"CHAKSHU_OAUTH_CLIENT_SECRET" default:"unset → sandbox login" help:"portal login: the App's OAuth client secret"`
	OIDCIssuer        string   `env:"CHAKSHU_OIDC_ISSUER" default:"GitHub's issuer" help:"Actions token issuer"`
	OIDCAudience      string   `env:"CHAKSHU_OIDC_AUDIENCE" default:"the public URL" help:"audience the server requires of runners' tokens"`
	Admins            []string `env:"CHAKSHU_ADMINS" default:"sandbox: the sandbox user" help:"comma-separated GitHub logins with admin rights"`
	APITokenRate      int      `env:"CHAKSHU_API_TOKEN_RATE" envDefault:"600" min:"0" help:"requests per minute per API token (0: unlimited)"`
	APITokenBurst     int      `env:"CHAKSHU_API_TOKEN_BURST" envDefault:"60" min:"1" help:"requests one API token may make at once"`

	ModelURL          string        `env:"CHAKSHU_MODEL_URL" envDefault:"https://api.anthropic.com" help:"upstream of the model gateway (sandbox: the scripted model)"`
	ModelAPIKey       string        `env:"CHAKSHU_MODEL_API_KEY" help:"key for the model gateway's upstream"`
	ModelBetas        []string      `env:"CHAKSHU_MODEL_BETAS" default:"none" help:"comma-separated anthropic-beta values runners may send"`
	ModelInferenceGeo string        `env:"CHAKSHU_MODEL_INFERENCE_GEO" envDefault:"global" help:"the Anthropic workspace's default inference geo, global or us (US-only inference is metered at 1.1x on Opus 4.6 and later)"`
	ModelRetryHorizon time.Duration `env:"CHAKSHU_MODEL_RETRY_HORIZON" envDefault:"2m" min:"1s" max:"20m" want:"a duration from 1s to 20m such as 2m" help:"how long a runner retries the model after overload, rate limit and 5xx answers"`

	ModelProvider         string `env:"CHAKSHU_MODEL_PROVIDER" default:"anthropic" help:"provider of Anthropic's models: anthropic, bedrock, vertex, foundry or openai (README, Model providers)"`
	BedrockRegion         string `env:"CHAKSHU_BEDROCK_REGION" default:"AWS_REGION" help:"Amazon Bedrock's region; credentials from the AWS default chain"`
	BedrockURL            string `env:"CHAKSHU_BEDROCK_URL" default:"the regional endpoint" help:"Amazon Bedrock endpoint override"`
	VertexProject         string `env:"CHAKSHU_VERTEX_PROJECT" help:"Google Vertex AI project"`
	VertexRegion          string `env:"CHAKSHU_VERTEX_REGION" help:"Google Vertex AI region"`
	VertexURL             string `env:"CHAKSHU_VERTEX_URL" default:"the regional endpoint" help:"Google Vertex AI endpoint override"`
	VertexCredentialsFile string `env:"CHAKSHU_VERTEX_CREDENTIALS_FILE" default:"Application Default Credentials" help:"a service account key file for Vertex AI"`
	FoundryResource       string `env:"CHAKSHU_FOUNDRY_RESOURCE" help:"Microsoft Foundry resource"`
	FoundryURL            string `env:"CHAKSHU_FOUNDRY_URL" help:"Microsoft Foundry endpoint, instead of the resource"`
	FoundryAPIKey         string `env:"CHAKSHU_FOUNDRY_API_KEY" help:"Microsoft Foundry key"`
	FoundryAPIKeyFile     string `env:"CHAKSHU_FOUNDRY_API_KEY_FILE" help:"a file holding the Microsoft Foundry key"`
	OpenAIURL             string `env:"CHAKSHU_OPENAI_URL" help:"an OpenAI-compatible Chat Completions server (vLLM, Ollama, LiteLLM, Azure OpenAI), base URL ending in /v1"`
	OpenAIAPIKey          string `env:"CHAKSHU_OPENAI_API_KEY" help:"its key"`
	OpenAIAPIKeyFile      string `env:"CHAKSHU_OPENAI_API_KEY_FILE" help:"a file holding its key"`
}

// WorkerOnly are the settings only the background side reads: its timings,
// the limits on what it queues and dispatches, and retention.
type WorkerOnly struct {
	RunReportTimeout time.Duration `env:"CHAKSHU_RUN_REPORT_TIMEOUT" envDefault:"45m" min:"1ns" want:"a duration such as 20s" help:"a dispatched run that has not reported back this long fails"`

	ReplyLimitPerPR        int    `env:"CHAKSHU_REPLY_LIMIT_PER_PR" envDefault:"20" min:"1" help:"reply runs (answers in Chakshu's review threads) per pull request in any hour"`
	ReplyLimitPerUser      int    `env:"CHAKSHU_REPLY_LIMIT_PER_USER" envDefault:"10" min:"1" help:"reply runs per person in any hour"`
	MaxConcurrentRuns      int    `env:"CHAKSHU_MAX_CONCURRENT_RUNS" envDefault:"0" min:"0" help:"runs per installation dispatched at once; more stay queued (0: no cap)"`
	InfraFailureConclusion string `env:"CHAKSHU_INFRA_FAILURE_CONCLUSION" envDefault:"failure" help:"check conclusion when Chakshu itself fails (not a finding): failure or neutral"`

	RetainWebhookPayloads Age           `env:"CHAKSHU_RETAIN_WEBHOOK_PAYLOADS" envDefault:"24h" want:"a duration such as 30d or 36h, or 0 to keep for ever" help:"a handled webhook's payload is emptied after this (the row stays for deduplication); 0 keeps it"`
	RetainWebhookEvents   Age           `env:"CHAKSHU_RETAIN_WEBHOOK_EVENTS" envDefault:"8d" want:"a duration such as 30d or 36h, or 0 to keep for ever" help:"a handled webhook's row is deleted after this; at least GitHub's redelivery window (3d github.com, 7d Enterprise Server)"`
	RetainFailedEvents    Age           `env:"CHAKSHU_RETAIN_FAILED_EVENTS" envDefault:"30d" want:"a duration such as 30d or 36h, or 0 to keep for ever" help:"a failed webhook is deleted after this"`
	RetainRunEvents       Age           `env:"CHAKSHU_RETAIN_RUN_EVENTS" envDefault:"90d" want:"a duration such as 30d or 36h, or 0 to keep for ever" help:"finished runs' timeline entries are deleted after this"`
	RetainRuns            Age           `env:"CHAKSHU_RETAIN_RUNS" envDefault:"365d" want:"a duration such as 30d or 36h, or 0 to keep for ever" help:"finished runs (with findings and timeline) are deleted after this; cost figures stay exact"`
	RetainWorkers         Age           `env:"CHAKSHU_RETAIN_WORKERS" envDefault:"7d" want:"a duration such as 30d or 36h, or 0 to keep for ever" help:"rows of workers silent this long are deleted"`
	PruneInterval         time.Duration `env:"CHAKSHU_PRUNE_INTERVAL" envDefault:"1m" min:"1ns" want:"a duration such as 1m" help:"how often a worker prunes"`
	PruneBatch            int           `env:"CHAKSHU_PRUNE_BATCH" envDefault:"500" min:"1" help:"the most rows per pruning transaction"`
	PruneWriteTarget      time.Duration `env:"CHAKSHU_PRUNE_WRITE_TARGET" envDefault:"1ms" min:"1ns" want:"a duration such as 1ms" help:"how long one pruning transaction may hold the write lock: batches shrink while theirs take longer, grow while they take under half"`
}

// Web is what `chakshu web` reads.
type Web struct {
	Shared
	WebOnly
}

// Worker is what `chakshu worker` reads.
type Worker struct {
	Shared
	WorkerOnly
}

// All is what `chakshu all` (and the commands that are neither web nor
// worker: migrate, doctor, …) reads.
type All struct {
	Shared
	WebOnly
	WorkerOnly
}

// Age is a retention age: a Go duration (36h), whole days (30d), or 0 for
// ever (retention.go).
type Age time.Duration

var (
	durationType = reflect.TypeOf(time.Duration(0))
	ageType      = reflect.TypeOf(Age(0))
	listType     = reflect.TypeOf([]string(nil))
)

// parsers are the library's parsers for our types: lists drop blanks and
// spaces around commas ("new, old"), ages take days.
var parsers = map[reflect.Type]env.ParserFunc{
	listType: func(v string) (any, error) { return splitList(v), nil },
	ageType: func(v string) (any, error) {
		d, err := parseAge(v)
		return Age(d), err
	},
}

// parse reads the settings of s (a pointer to Web, Worker, All or a part of
// one) through look. A set but blank value counts as unset.
func parse(s any, look Lookup) error {
	fields, err := fieldsOf(s)
	if err != nil {
		return err
	}
	vars := map[string]string{}
	for _, f := range fields {
		if v, ok := look(f.Name); ok && strings.TrimSpace(v) != "" {
			vars[f.Name] = strings.TrimSpace(v)
		}
	}
	if err := env.ParseWithOptions(s, env.Options{Environment: vars, FuncMap: parsers}); err != nil {
		var pe env.ParseError
		if errors.As(err, &pe) {
			for _, f := range fields {
				if f.field == pe.Name {
					return f.bad(vars[f.Name])
				}
			}
		}
		return fmt.Errorf("settings: %w", err)
	}
	for _, f := range fields {
		if err := f.inBounds(reflect.ValueOf(s).Elem(), vars[f.Name]); err != nil {
			return err
		}
	}
	return nil
}

// Setting is one variable as --help and README state it.
type Setting struct {
	Name, Meaning, Default string

	field, want, min, max string
	index                 []int
	typ                   reflect.Type
}

// Settings lists the variables s (a pointer to Web, Worker or All) reads,
// from its tags, in order.
func Settings(s any) []Setting {
	fs, err := fieldsOf(s)
	if err != nil {
		panic(err) // our own structs: a bad tag is a programming error, caught by the tests
	}
	return fs
}

// SettingNames are the names every process reads, in order.
func SettingNames() []string {
	var out []string
	for _, s := range Settings(&All{}) {
		out = append(out, s.Name)
	}
	return out
}

// Help prints the settings s reads, for --help.
func Help(w io.Writer, s any) {
	fmt.Fprintln(w, "\nSettings (environment variables, or NAME=value lines in CHAKSHU_CONFIG_FILE):")
	for _, f := range Settings(s) {
		fmt.Fprintf(w, "  %s\n      %s (default: %s)\n", f.Name, f.Meaning, f.Default)
	}
}

// fieldsOf pairs the library's view of s's tags (env.GetFieldParams: the
// names and defaults it applies) with our own tags, found by name.
func fieldsOf(s any) ([]Setting, error) {
	params, err := env.GetFieldParams(s)
	if err != nil {
		return nil, err
	}
	byName := map[string]reflect.StructField{}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			sf.Index = append(slices.Clone(index), i)
			if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				walk(sf.Type, sf.Index)
				continue
			}
			if name, _, _ := strings.Cut(sf.Tag.Get("env"), ","); name != "" {
				byName[name] = sf
			}
		}
	}
	walk(reflect.TypeOf(s).Elem(), nil)
	var out []Setting
	for _, p := range params {
		sf, ok := byName[p.Key]
		if !ok {
			return nil, fmt.Errorf("settings: %s has no field", p.Key)
		}
		def := sf.Tag.Get("default")
		switch {
		case def != "":
		case p.HasDefaultValue:
			def = p.DefaultValue
		default:
			def = "unset"
		}
		if sf.Tag.Get("help") == "" {
			return nil, fmt.Errorf("settings: %s has no help", p.Key)
		}
		out = append(out, Setting{Name: p.Key, Meaning: sf.Tag.Get("help"), Default: def,
			field: sf.Name, want: sf.Tag.Get("want"), min: sf.Tag.Get("min"), max: sf.Tag.Get("max"), index: sf.Index, typ: sf.Type})
	}
	return out, nil
}

// bad is the one-line error for a value of s that does not parse or is out
// of bounds.
func (s Setting) bad(v string) error {
	want := s.want
	if want == "" && s.typ.Kind() == reflect.Int {
		want = "a whole number ≥ " + s.min
	}
	if want == "" {
		want = "a " + s.typ.String()
	}
	return fmt.Errorf("%s: want %s, got %q", s.Name, want, v)
}

// inBounds checks a number or duration of root (the parsed struct) against
// the setting's min and max tags.
func (s Setting) inBounds(root reflect.Value, raw string) error {
	if raw == "" || (s.min == "" && s.max == "") {
		return nil // a default is in bounds
	}
	bound := func(b string) int64 {
		if s.typ == durationType {
			d, err := time.ParseDuration(b)
			if err != nil {
				panic(fmt.Sprintf("settings: %s: bad bound %q", s.Name, b))
			}
			return int64(d)
		}
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil {
			panic(fmt.Sprintf("settings: %s: bad bound %q", s.Name, b))
		}
		return n
	}
	v := root.FieldByIndex(s.index).Int()
	if (s.min != "" && v < bound(s.min)) || (s.max != "" && v > bound(s.max)) {
		return s.bad(raw)
	}
	return nil
}
