// Package check renders and validates Chakshu's deploy artefacts offline: the
// Helm chart (Helm's own loader, linter and template engine, for several value
// sets, each object decoded strictly into the Kubernetes API types), the
// compose file (compose-go, the Compose Specification's loader and schema),
// and the systemd template unit. It is a module of its own so the Helm and
// Kubernetes packages stay out of Chakshu's build; `make test` runs it.
package check

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"helm.sh/helm/v3/pkg/chart"
	chartloader "helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

const chartDir = "../helm/chakshu"

// required are the values a real install must give (the chart refuses without them).
var required = map[string]any{
	"existingSecret": "chakshu-secrets",
	"config":         map[string]any{"CHAKSHU_PUBLIC_URL": "https://chakshu.example.com"},
}

func merge(over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range required {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// object is one rendered manifest: its kind and name, and the document.
type object struct {
	file, kind, name string
	doc              []byte
}

func render(t *testing.T, vals map[string]any) ([]object, error) {
	t.Helper()
	c, err := chartloader.Load(chartDir)
	if err != nil {
		t.Fatalf("load chart: %v", err)
	}
	rv, err := chartutil.ToRenderValues(c, vals, chartutil.ReleaseOptions{Name: "chakshu", Namespace: "review", Revision: 1, IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatalf("values: %v", err)
	}
	files, err := engine.Render(c, rv)
	if err != nil {
		return nil, err
	}
	return split(t, c, files), nil
}

func split(t *testing.T, c *chart.Chart, files map[string]string) []object {
	t.Helper()
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []object
	for _, n := range names {
		if !strings.HasSuffix(n, ".yaml") {
			continue
		}
		for _, d := range strings.Split(files[n], "\n---") {
			if strings.TrimSpace(strings.TrimPrefix(d, "---")) == "" {
				continue
			}
			var meta struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal([]byte(d), &meta); err != nil {
				t.Fatalf("%s: not YAML: %v\n%s", n, err, d)
			}
			out = append(out, object{file: n, kind: meta.Kind, name: meta.Metadata.Name, doc: []byte(d)})
		}
	}
	_ = c
	return out
}

// typed decodes every object strictly (no unknown field, every type right)
// into its Kubernetes API type.
func typed(t *testing.T, objs []object) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, o := range objs {
		var v any
		switch o.kind {
		case "Deployment":
			v = &appsv1.Deployment{}
		case "Service":
			v = &corev1.Service{}
		case "ServiceAccount":
			v = &corev1.ServiceAccount{}
		case "Job":
			v = &batchv1.Job{}
		case "PodDisruptionBudget":
			v = &policyv1.PodDisruptionBudget{}
		case "Ingress":
			v = &networkingv1.Ingress{}
		case "ServiceMonitor", "PrometheusRule":
			v = &map[string]any{} // a CRD: checked by shape below
		default:
			t.Fatalf("%s: unexpected kind %q", o.file, o.kind)
		}
		if err := yaml.UnmarshalStrict(o.doc, v); err != nil {
			t.Fatalf("%s %s/%s does not fit the Kubernetes API: %v\n%s", o.file, o.kind, o.name, err, o.doc)
		}
		out[o.kind+"/"+o.name] = v
	}
	return out
}

func TestChartLints(t *testing.T) {
	for _, vals := range []map[string]any{merge(nil), merge(map[string]any{"internal": map[string]any{"enabled": true}, "metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}})} {
		l := lint.All(chartDir, vals, "review", false)
		for _, m := range l.Messages {
			if m.Severity >= support.WarningSev {
				t.Errorf("helm lint: %s", m)
			}
		}
	}
}

func TestChartRendersWebAndWorkerSeparately(t *testing.T) {
	objs, err := render(t, merge(map[string]any{"web": map[string]any{"replicas": 3}, "worker": map[string]any{"replicas": 4}}))
	if err != nil {
		t.Fatal(err)
	}
	all := typed(t, objs)
	var kinds []string
	for k := range all {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	want := "Deployment/chakshu-web Deployment/chakshu-worker Job/chakshu-migrate PodDisruptionBudget/chakshu-web PodDisruptionBudget/chakshu-worker Service/chakshu-internal Service/chakshu-web ServiceAccount/chakshu"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("objects:\n got %s\nwant %s", got, want)
	}
	web, worker := all["Deployment/chakshu-web"].(*appsv1.Deployment), all["Deployment/chakshu-worker"].(*appsv1.Deployment)
	if *web.Spec.Replicas != 3 || *worker.Spec.Replicas != 4 {
		t.Fatalf("replicas web %d worker %d, want 3 and 4", *web.Spec.Replicas, *worker.Spec.Replicas)
	}
	for _, d := range []*appsv1.Deployment{web, worker} {
		c := d.Spec.Template.Spec.Containers[0]
		if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != "chakshu-secrets" {
			t.Errorf("%s: secrets must come from the existing Secret: %+v", d.Name, c.EnvFrom)
		}
		if !matches(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
			t.Errorf("%s: selector %v does not select its pods %v", d.Name, d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
		}
		if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("%s: root filesystem not read-only", d.Name)
		}
	}
	if a := web.Spec.Template.Spec.Containers[0].Args; len(a) != 1 || a[0] != "web" {
		t.Errorf("web args %v", a)
	}
	if a := worker.Spec.Template.Spec.Containers[0].Args; len(a) != 1 || a[0] != "worker" {
		t.Errorf("worker args %v", a)
	}
	// Probes, by default: /healthz and /readyz on the internal listener, web and worker alike;
	// the pods get longer to stop than the drain lasts.
	for _, d := range []*appsv1.Deployment{web, worker} {
		c := d.Spec.Template.Spec.Containers[0]
		if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" || c.LivenessProbe.HTTPGet.Port.String() != "internal" ||
			c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.ReadinessProbe.HTTPGet.Port.String() != "internal" {
			t.Errorf("%s probes: %+v %+v", d.Name, c.LivenessProbe, c.ReadinessProbe)
		}
		if !hasPort(c.Ports, "internal", 9090) || envOf(c)["CHAKSHU_INTERNAL_ADDR"] != "0.0.0.0:9090" {
			t.Errorf("%s: internal listener not on 0.0.0.0:9090: ports %+v env %v", d.Name, c.Ports, envOf(c))
		}
		if g := d.Spec.Template.Spec.TerminationGracePeriodSeconds; g == nil || time.Duration(*g)*time.Second <= drainTimeout(t, envOf(c)["CHAKSHU_DRAIN_TIMEOUT"]) {
			t.Errorf("%s: terminationGracePeriodSeconds %v does not exceed the drain timeout", d.Name, g)
		}
	}
	wc := web.Spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range wc.Env {
		env[e.Name] = e.Value
	}
	if env["CHAKSHU_PUBLIC_URL"] != "https://chakshu.example.com" || env["CHAKSHU_ADDR"] != "0.0.0.0:8080" {
		t.Errorf("web env %v", env)
	}
	// The migration runs as a hook before install and upgrade, with the same settings.
	job := all["Job/chakshu-migrate"].(*batchv1.Job)
	if job.Annotations["helm.sh/hook"] != "pre-install,pre-upgrade" || job.Spec.Template.Spec.Containers[0].Args[0] != "migrate" ||
		job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever || job.Spec.Template.Spec.ServiceAccountName != "" {
		t.Errorf("migrate job: %+v", job.ObjectMeta.Annotations)
	}
	for _, name := range []string{"web", "worker"} {
		pdb := all["PodDisruptionBudget/chakshu-"+name].(*policyv1.PodDisruptionBudget)
		d := all["Deployment/chakshu-"+name].(*appsv1.Deployment)
		if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() != 1 || !matches(pdb.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
			t.Errorf("pdb %s: %+v", name, pdb.Spec)
		}
	}
	svc := all["Service/chakshu-web"].(*corev1.Service)
	if !matches(svc.Spec.Selector, web.Spec.Template.Labels) || matches(svc.Spec.Selector, worker.Spec.Template.Labels) {
		t.Errorf("web service selects %v", svc.Spec.Selector)
	}
}

func TestChartInternalListenerAndServiceMonitor(t *testing.T) {
	objs, err := render(t, merge(map[string]any{"internal": map[string]any{"enabled": true},
		"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}, "migrations": map[string]any{"enabled": false}}))
	if err != nil {
		t.Fatal(err)
	}
	all := typed(t, objs)
	if _, ok := all["Job/chakshu-migrate"]; ok {
		t.Error("migrations.enabled=false still renders the Job")
	}
	worker := all["Deployment/chakshu-worker"].(*appsv1.Deployment).Spec.Template.Spec.Containers[0]
	if worker.LivenessProbe == nil || worker.LivenessProbe.HTTPGet.Port.String() != "internal" || worker.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("worker probes with the internal listener: %+v", worker.LivenessProbe)
	}
	sm := *all["ServiceMonitor/chakshu"].(*map[string]any)
	spec := sm["spec"].(map[string]any)
	ep := spec["endpoints"].([]any)[0].(map[string]any)
	if sm["apiVersion"] != "monitoring.coreos.com/v1" || ep["port"] != "internal" || ep["path"] != "/metrics" {
		t.Errorf("service monitor: %v", sm)
	}
	svc := all["Service/chakshu-internal"].(*corev1.Service)
	sel := spec["selector"].(map[string]any)["matchLabels"].(map[string]any)
	for k, v := range sel {
		if svc.Labels[k] != v {
			t.Errorf("the ServiceMonitor's selector %v does not select the internal service %v", sel, svc.Labels)
		}
	}
	// Without the internal listener (a version that lacks it) workers have no
	// probe (they serve no HTTP) and web's probes use its public port.
	objs, err = render(t, merge(map[string]any{"internal": map[string]any{"enabled": false}}))
	if err != nil {
		t.Fatal(err)
	}
	off := typed(t, objs)
	w := off["Deployment/chakshu-worker"].(*appsv1.Deployment).Spec.Template.Spec.Containers[0]
	if w.LivenessProbe != nil || len(w.Ports) != 0 {
		t.Errorf("worker without the internal listener: probe %+v ports %+v", w.LivenessProbe, w.Ports)
	}
	if wc := off["Deployment/chakshu-web"].(*appsv1.Deployment).Spec.Template.Spec.Containers[0]; wc.ReadinessProbe == nil || wc.ReadinessProbe.HTTPGet.Port.String() != "http" {
		t.Errorf("web without the internal listener: %+v", wc.ReadinessProbe)
	}
	if _, ok := off["Service/chakshu-internal"]; ok {
		t.Error("internal.enabled=false still renders the internal Service")
	}
}

func TestChartRefusesMissingSettings(t *testing.T) {
	cases := map[string]map[string]any{
		"existingSecret":            {"config": map[string]any{"CHAKSHU_PUBLIC_URL": "https://x.example"}},
		"config.CHAKSHU_PUBLIC_URL": {"existingSecret": "s"},
	}
	for want, vals := range cases {
		if _, err := render(t, vals); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("without %s: %v", want, err)
		}
	}
}

func matches(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

var composeEnv = map[string]string{
	"POSTGRES_PASSWORD": "pw", "CHAKSHU_PUBLIC_URL": "https://chakshu.example.com", "CHAKSHU_APP_ID": "1",
	"CHAKSHU_APP_SLUG": "chakshu", "CHAKSHU_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----\\n…", "CHAKSHU_WEBHOOK_SECRET": "s",
	"CHAKSHU_OAUTH_CLIENT_ID": "c", "CHAKSHU_OAUTH_CLIENT_SECRET": "cs", "CHAKSHU_SECRET_KEY": "k", "CHAKSHU_MODEL_API_KEY": "m",
}

func loadCompose(env map[string]string) (*types.Project, error) {
	return loadComposeFile("../compose.yaml", env)
}

func loadComposeFile(path string, env map[string]string) (*types.Project, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir: filepath.Dir(abs), ConfigFiles: []types.ConfigFile{{Filename: abs}}, Environment: env,
	})
}

func TestComposeTwoWebTwoWorkers(t *testing.T) {
	p, err := loadCompose(composeEnv)
	if err != nil {
		t.Fatalf("compose file: %v", err)
	}
	cmds := map[string][]string{}
	for name, s := range p.Services {
		cmds[strings.Join(s.Command, " ")] = append(cmds[strings.Join(s.Command, " ")], name)
	}
	for _, c := range cmds {
		sort.Strings(c)
	}
	if strings.Join(cmds["web"], ",") != "web-1,web-2" || strings.Join(cmds["worker"], ",") != "worker-1,worker-2" || strings.Join(cmds["migrate"], ",") != "migrate" {
		t.Fatalf("processes by command: %v", cmds)
	}
	if _, ok := p.Services["postgres"]; !ok {
		t.Fatal("no postgres service")
	}
	for _, name := range []string{"web-1", "web-2", "worker-1", "worker-2"} {
		s := p.Services[name]
		if dep, ok := s.DependsOn["migrate"]; !ok || dep.Condition != types.ServiceConditionCompletedSuccessfully {
			t.Errorf("%s starts before the migration succeeded: %+v", name, s.DependsOn)
		}
		if u := s.Environment["CHAKSHU_DATABASE_URL"]; u == nil || !strings.HasPrefix(*u, "postgres://chakshu:pw@postgres:5432/chakshu") {
			t.Errorf("%s database URL %v", name, u)
		}
		if !s.ReadOnly {
			t.Errorf("%s: root filesystem not read-only", name)
		}
		// Probed on the internal listener, which stays unpublished; stopped after the drain.
		if h := s.HealthCheck; h == nil || strings.Join(h.Test, " ") != "CMD /usr/local/bin/chakshu probe" {
			t.Errorf("%s healthcheck %+v: want `chakshu probe` (GET /readyz on the internal listener)", name, h)
		}
		if a := s.Environment["CHAKSHU_INTERNAL_ADDR"]; a == nil || *a != "0.0.0.0:9090" {
			t.Errorf("%s CHAKSHU_INTERNAL_ADDR %v", name, a)
		}
		for _, p := range s.Ports {
			if p.Target == 9090 {
				t.Errorf("%s publishes the internal listener: %+v", name, p)
			}
		}
		var drain string
		if d := s.Environment["CHAKSHU_DRAIN_TIMEOUT"]; d != nil {
			drain = *d
		}
		if s.StopGracePeriod == nil || time.Duration(*s.StopGracePeriod) <= drainTimeout(t, drain) {
			t.Errorf("%s stop_grace_period %v does not exceed the drain timeout", name, s.StopGracePeriod)
		}
	}
	if m := p.Services["migrate"].DependsOn["postgres"]; m.Condition != types.ServiceConditionHealthy {
		t.Errorf("migrate does not wait for a healthy postgres: %+v", m)
	}
	for _, name := range []string{"web-1", "web-2"} {
		ports := p.Services[name].Ports
		if len(ports) != 1 || ports[0].HostIP != "127.0.0.1" || ports[0].Target != 8080 {
			t.Errorf("%s ports %+v: want one, on loopback, to 8080", name, ports)
		}
	}
	if p.Services["web-1"].Ports[0].Published == p.Services["web-2"].Ports[0].Published {
		t.Error("the two web services publish the same host port")
	}
}

// drainTimeout is CHAKSHU_DRAIN_TIMEOUT as set, or the server's default.
func drainTimeout(t *testing.T, v string) time.Duration {
	t.Helper()
	if v == "" {
		return 60 * time.Second // config.DefaultDrainTimeout
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("CHAKSHU_DRAIN_TIMEOUT %q: %v", v, err)
	}
	return d
}

func envOf(c corev1.Container) map[string]string {
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	return env
}

func hasPort(ports []corev1.ContainerPort, name string, n int32) bool {
	for _, p := range ports {
		if p.Name == name && p.ContainerPort == n {
			return true
		}
	}
	return false
}

func TestComposeNamesAMissingSetting(t *testing.T) {
	env := map[string]string{}
	for k, v := range composeEnv {
		if k != "CHAKSHU_SECRET_KEY" {
			env[k] = v
		}
	}
	if _, err := loadCompose(env); err == nil || !strings.Contains(err.Error(), "CHAKSHU_SECRET_KEY") {
		t.Fatalf("without CHAKSHU_SECRET_KEY: %v", err)
	}
}

func TestSystemdTemplateUnit(t *testing.T) {
	b, err := os.ReadFile("../chakshu@.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	for _, want := range []string{
		"StateDirectory=chakshu/%i", "RuntimeDirectory=chakshu-%i", "Environment=CHAKSHU_DATA_DIR=%S/chakshu/%i",
		"Environment=UNIT_COMMAND=%i", "EnvironmentFile=/etc/chakshu/%i.env", "ExecStart=/usr/local/bin/chakshu ${UNIT_COMMAND}",
	} {
		if !strings.Contains(unit, "\n"+want+"\n") {
			t.Errorf("unit lacks %q", want)
		}
	}
	// The stop timeout outlasts the drain (CHAKSHU_DRAIN_TIMEOUT, default 60s).
	m := regexp.MustCompile(`\nTimeoutStopSec=(\S+)\n`).FindStringSubmatch(unit)
	if m == nil {
		t.Fatal("unit lacks TimeoutStopSec")
	}
	if stop, err := time.ParseDuration(m[1]); err != nil || stop <= drainTimeout(t, "") {
		t.Errorf("TimeoutStopSec=%s does not exceed the drain timeout (%v)", m[1], err)
	}
	if strings.Contains(unit, "ReadWritePaths=/var/lib/chakshu\n") {
		t.Error("a shared ReadWritePaths would let instances write each other's state")
	}
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed; the unit's text was checked above")
	}
	// Two instances, as systemd would load them (the binary need not exist:
	// verify checks the unit's syntax and directives).
	dir := t.TempDir()
	for _, inst := range []string{"web", "worker"} {
		if err := os.WriteFile(filepath.Join(dir, "chakshu@"+inst+".service"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(sa, "verify", "--man=no", filepath.Join(dir, "chakshu@web.service"), filepath.Join(dir, "chakshu@worker.service"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	for _, line := range strings.Split(out.String(), "\n") {
		// The binary is not installed here, and there is no chakshu user; everything else is a real complaint.
		if line == "" || strings.Contains(line, "/usr/local/bin/chakshu") || strings.Contains(line, "is not executable") ||
			strings.Contains(line, "Command ") || strings.Contains(line, "Failed to") && strings.Contains(line, "user") {
			continue
		}
		if strings.Contains(line, "chakshu@") {
			t.Errorf("systemd-analyze verify: %s", line)
		}
	}
}

func TestDockerfileInternalListener(t *testing.T) {
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	// Reachable from outside the container (probes, Prometheus), and exposed.
	if !regexp.MustCompile(`\n\s+CHAKSHU_INTERNAL_ADDR=0\.0\.0\.0:9090 `).MatchString(df) {
		t.Error("the image does not set CHAKSHU_INTERNAL_ADDR=0.0.0.0:9090")
	}
	if !regexp.MustCompile(`\nEXPOSE 8080 9090\n`).MatchString(df) {
		t.Error("the image does not expose 8080 and 9090")
	}
}
