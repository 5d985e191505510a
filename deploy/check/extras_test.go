package check

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// What a platform team adds without forking the chart reaches every process
// (web, worker and the migration): extra environment and its sources, extra
// volumes and their mounts, pod annotations; the ServiceAccount carries its
// annotations (IRSA, Workload Identity); the pool size becomes the setting.
func TestChartExtras(t *testing.T) {
	objs, err := render(t, merge(map[string]any{
		"extraEnv": []any{
			map[string]any{"name": "AWS_REGION", "value": "eu-west-1"},
			map[string]any{"name": "CHAKSHU_MODEL_CATALOG", "value": "/etc/chakshu/models.json"},
		},
		"extraEnvFrom":      []any{map[string]any{"configMapRef": map[string]any{"name": "chakshu-ghes"}}},
		"extraVolumes":      []any{map[string]any{"name": "models", "configMap": map[string]any{"name": "chakshu-models"}}},
		"extraVolumeMounts": []any{map[string]any{"name": "models", "mountPath": "/etc/chakshu", "readOnly": true}},
		"podAnnotations":    map[string]any{"vault.example.com/inject": "true"},
		"serviceAccount":    map[string]any{"annotations": map[string]any{"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/chakshu"}},
		"database":          map[string]any{"maxConns": 35},
	}))
	if err != nil {
		t.Fatal(err)
	}
	all := typed(t, objs)
	pods := map[string]corev1.PodTemplateSpec{
		"web":     all["Deployment/chakshu-web"].(*appsv1.Deployment).Spec.Template,
		"worker":  all["Deployment/chakshu-worker"].(*appsv1.Deployment).Spec.Template,
		"migrate": all["Job/chakshu-migrate"].(*batchv1.Job).Spec.Template,
	}
	for name, pod := range pods {
		c := pod.Spec.Containers[0]
		env := envOf(c)
		if env["AWS_REGION"] != "eu-west-1" || env["CHAKSHU_MODEL_CATALOG"] != "/etc/chakshu/models.json" || env["CHAKSHU_DATABASE_MAX_CONNS"] != "35" {
			t.Errorf("%s env %v", name, env)
		}
		if len(c.EnvFrom) != 2 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[1].ConfigMapRef == nil || c.EnvFrom[1].ConfigMapRef.Name != "chakshu-ghes" {
			t.Errorf("%s envFrom %+v: want the Secret, then the extra source", name, c.EnvFrom)
		}
		var vol bool
		for _, v := range pod.Spec.Volumes {
			vol = vol || v.Name == "models" && v.ConfigMap != nil && v.ConfigMap.Name == "chakshu-models"
		}
		var mount bool
		for _, m := range c.VolumeMounts {
			mount = mount || m.Name == "models" && m.MountPath == "/etc/chakshu" && m.ReadOnly
		}
		if !vol || !mount {
			t.Errorf("%s: extra volume %v, mounted %v", name, vol, mount)
		}
		if pod.Annotations["vault.example.com/inject"] != "true" {
			t.Errorf("%s pod annotations %v", name, pod.Annotations)
		}
	}
	sa := all["ServiceAccount/chakshu"].(*corev1.ServiceAccount)
	if sa.Annotations["eks.amazonaws.com/role-arn"] != "arn:aws:iam::1:role/chakshu" {
		t.Errorf("service account annotations %v", sa.Annotations)
	}
	// The default pool size is the server's, set explicitly.
	objs, err = render(t, merge(nil))
	if err != nil {
		t.Fatal(err)
	}
	if env := envOf(typed(t, objs)["Deployment/chakshu-worker"].(*appsv1.Deployment).Spec.Template.Spec.Containers[0]); env["CHAKSHU_DATABASE_MAX_CONNS"] != "20" {
		t.Errorf("default pool size %q, want 20", env["CHAKSHU_DATABASE_MAX_CONNS"])
	}
}

// The optional Ingress routes the host to the web Service's public port, with
// the GraphQL WebSocket (/graphql) in an Ingress of its own carrying its
// timeouts; nothing routes to the internal listener; a missing host is named.
func TestChartIngress(t *testing.T) {
	objs, err := render(t, merge(map[string]any{"ingress": map[string]any{
		"enabled": true, "className": "nginx", "host": "chakshu.example.com",
		"annotations": map[string]any{"cert-manager.io/cluster-issuer": "letsencrypt"},
		"tls":         []any{map[string]any{"hosts": []any{"chakshu.example.com"}, "secretName": "chakshu-tls"}},
	}}))
	if err != nil {
		t.Fatal(err)
	}
	all := typed(t, objs)
	main, ws := all["Ingress/chakshu"].(*networkingv1.Ingress), all["Ingress/chakshu-graphql-ws"].(*networkingv1.Ingress)
	if main == nil || ws == nil {
		t.Fatalf("ingresses: %v", all)
	}
	route := func(ing *networkingv1.Ingress) (string, networkingv1.PathType, string, string) {
		r := ing.Spec.Rules[0]
		p := r.HTTP.Paths[0]
		return r.Host + p.Path, *p.PathType, p.Backend.Service.Name, p.Backend.Service.Port.Name
	}
	if h, pt, svc, port := route(main); h != "chakshu.example.com/" || pt != networkingv1.PathTypePrefix || svc != "chakshu-web" || port != "http" {
		t.Errorf("main ingress routes %s (%s) to %s:%s", h, pt, svc, port)
	}
	if h, pt, svc, port := route(ws); h != "chakshu.example.com/graphql" || pt != networkingv1.PathTypeExact || svc != "chakshu-web" || port != "http" {
		t.Errorf("websocket ingress routes %s (%s) to %s:%s", h, pt, svc, port)
	}
	if ws.Annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"] != "3600" || ws.Annotations["cert-manager.io/cluster-issuer"] != "letsencrypt" {
		t.Errorf("websocket ingress annotations %v: want its timeouts and the common ones", ws.Annotations)
	}
	if _, ok := main.Annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"]; ok {
		t.Errorf("the WebSocket timeouts leak to the main ingress: %v", main.Annotations)
	}
	for _, ing := range []*networkingv1.Ingress{main, ws} {
		if *ing.Spec.IngressClassName != "nginx" || len(ing.Spec.TLS) != 1 || ing.Spec.TLS[0].SecretName != "chakshu-tls" {
			t.Errorf("%s: class %v tls %+v", ing.Name, ing.Spec.IngressClassName, ing.Spec.TLS)
		}
	}
	if _, err := render(t, merge(map[string]any{"ingress": map[string]any{"enabled": true}})); err == nil || !strings.Contains(err.Error(), "ingress.host") {
		t.Errorf("an ingress without a host: %v", err)
	}
}

// The PrometheusRule holds every alert docs/production.md documents (the
// SQLite one aside: the chart runs PostgreSQL), at the documented thresholds.
func TestChartPrometheusRuleHasTheDocumentedAlerts(t *testing.T) {
	objs, err := render(t, merge(map[string]any{"metrics": map[string]any{"prometheusRule": map[string]any{"enabled": true}}}))
	if err != nil {
		t.Fatal(err)
	}
	rule := *typed(t, objs)["PrometheusRule/chakshu"].(*map[string]any)
	if rule["apiVersion"] != "monitoring.coreos.com/v1" {
		t.Fatalf("apiVersion %v", rule["apiVersion"])
	}
	got := map[string]bool{}
	for _, g := range rule["spec"].(map[string]any)["groups"].([]any) {
		for _, r := range g.(map[string]any)["rules"].([]any) {
			r := r.(map[string]any)
			if r["alert"] == nil || r["annotations"].(map[string]any)["summary"] == nil {
				t.Errorf("rule without a name or summary: %v", r)
			}
			got[squash(r["expr"].(string))] = true
		}
	}
	doc := documentedAlerts(t)
	if len(doc) < 8 {
		t.Fatalf("found only %d alerts in docs/production.md", len(doc))
	}
	for _, e := range doc {
		if strings.Contains(e, "chakshu_sqlite_") {
			continue
		}
		if !got[squash(e)] {
			t.Errorf("documented alert missing from the PrometheusRule: %s", e)
		}
	}
}

// documentedAlerts are the PromQL expressions of production.md's block of
// alerts: one a line, or a line continued by one that starts with an operator.
func documentedAlerts(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/production.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)Alerts worth having.*?```promql\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("no promql block after 'Alerts worth having' in docs/production.md")
	}
	var out []string
	for _, line := range strings.Split(string(m[1]), "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case len(out) > 0 && strings.ContainsAny(l[:1], "/*+-"):
			out[len(out)-1] += " " + l
		default:
			out = append(out, l)
		}
	}
	return out
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// Every line of deploy/.env reaches every Chakshu process (env_file), so a
// setting compose.yaml never names (Enterprise Server, a cap) is passed too;
// the values compose.yaml derives win.
func TestComposePassesTheWholeEnvFile(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "compose.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CHAKSHU_GITHUB_URL": "https://github.example.com/api/v3", "CHAKSHU_MAX_CONCURRENT_RUNS": "7",
		"CHAKSHU_INTERNAL_ADDR": "127.0.0.1:1"}
	for k, v := range composeEnv {
		env[k] = v
	}
	var lines []string
	for k, v := range env {
		lines = append(lines, k+"="+v)
	}
	sort.Strings(lines)
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := loadComposeFile(filepath.Join(dir, "compose.yaml"), env)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"migrate", "web-1", "web-2", "worker-1", "worker-2"} {
		s := p.Services[name]
		get := func(k string) string {
			if v := s.Environment[k]; v != nil {
				return *v
			}
			return ""
		}
		if get("CHAKSHU_GITHUB_URL") != "https://github.example.com/api/v3" || get("CHAKSHU_MAX_CONCURRENT_RUNS") != "7" {
			t.Errorf("%s: settings of .env not passed: %v", name, s.Environment)
		}
		if get("CHAKSHU_INTERNAL_ADDR") != "0.0.0.0:9090" {
			t.Errorf("%s: CHAKSHU_INTERNAL_ADDR %q: compose.yaml's value must win", name, get("CHAKSHU_INTERNAL_ADDR"))
		}
	}
}

// The systemd recipe gives each instance it starts its own file, and the
// instances on one host distinct internal (and public) addresses.
func TestSystemdInstancesHaveTheirOwnAddresses(t *testing.T) {
	b, err := os.ReadFile("../chakshu@.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	files := map[string]map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^#\s+(?:echo|printf) '?(.*?)'? \| install .* /etc/chakshu/(\S+)\.env$`).FindAllStringSubmatch(unit, -1) {
		kv := map[string]string{}
		for _, l := range strings.Split(strings.ReplaceAll(m[1], `\n`, "\n"), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				kv[k] = v
			}
		}
		files[m[2]] = kv
	}
	enabled := regexp.MustCompile(`systemctl enable --now ((?:chakshu@\S+ ?)+)`).FindStringSubmatch(unit)
	if enabled == nil {
		t.Fatal("the recipe enables no instance")
	}
	for _, inst := range strings.Fields(enabled[1]) {
		if _, ok := files[strings.TrimPrefix(inst, "chakshu@")]; !ok {
			t.Errorf("%s is enabled but the recipe writes no /etc/chakshu/%s.env (required by EnvironmentFile=)", inst, strings.TrimPrefix(inst, "chakshu@"))
		}
	}
	internal, public := map[string]string{}, map[string]string{}
	for inst, kv := range files {
		a := kv["CHAKSHU_INTERNAL_ADDR"]
		if a == "" {
			t.Errorf("%s.env sets no CHAKSHU_INTERNAL_ADDR", inst)
		} else if other, ok := internal[a]; ok {
			t.Errorf("%s and %s share the internal address %s", inst, other, a)
		}
		internal[a] = inst
		cmd := kv["UNIT_COMMAND"]
		if cmd == "" {
			cmd = inst
		}
		if cmd == "web" {
			p := kv["CHAKSHU_ADDR"]
			if p == "" {
				p = "127.0.0.1:8080" // the server's default
			}
			if other, ok := public[p]; ok {
				t.Errorf("webs %s and %s share CHAKSHU_ADDR %s", inst, other, p)
			}
			public[p] = inst
		}
	}
	if len(files) < 2 {
		t.Errorf("instance files in the recipe: %v", files)
	}
}
