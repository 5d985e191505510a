{{/* Name of the release's objects. */}}
{{- define "chakshu.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "chakshu.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component (web, worker, migrate). */}}
{{- define "chakshu.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "chakshu.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "chakshu.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{ .Values.serviceAccount.name | default (include "chakshu.fullname" .) }}
{{- else -}}
{{ .Values.serviceAccount.name | default "default" }}
{{- end -}}
{{- end -}}

{{/* The environment every process gets: settings, then the existing Secret. */}}
{{- define "chakshu.env" -}}
{{- $secret := required "existingSecret: name the Secret holding CHAKSHU_DATABASE_URL and the App's secrets" .Values.existingSecret -}}
{{- $_ := required "config.CHAKSHU_PUBLIC_URL: the https URL GitHub and runners reach Chakshu at" .Values.config.CHAKSHU_PUBLIC_URL -}}
env:
  - name: CHAKSHU_ADDR
    value: "0.0.0.0:8080"
  - name: CHAKSHU_DATA_DIR
    value: /data
{{- if .Values.internal.enabled }}
  - name: CHAKSHU_INTERNAL_ADDR
    value: {{ printf "0.0.0.0:%d" (int .Values.internal.port) | quote }}
{{- end }}
  - name: CHAKSHU_DATABASE_MAX_CONNS
    value: {{ .Values.database.maxConns | int | toString | quote }}
{{- range $k, $v := .Values.config }}
{{- if not (has $k (list "CHAKSHU_ADDR" "CHAKSHU_DATABASE_MAX_CONNS")) }}
  - name: {{ $k }}
    value: {{ $v | toString | quote }}
{{- end }}
{{- end }}
{{- with .Values.extraEnv }}
{{- toYaml . | nindent 2 }}
{{- end }}
envFrom:
  - secretRef:
      name: {{ $secret }}
{{- with .Values.extraEnvFrom }}
{{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Annotations of every pod: the chart's own values, then podAnnotations. */}}
{{- define "chakshu.podAnnotations" -}}
{{- with .Values.podAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Pod-level settings shared by every component. */}}
{{/* (The migration hook runs before the chart's ServiceAccount exists, so
it names none; web and worker add serviceAccountName.) */}}
{{- define "chakshu.podCommon" -}}
automountServiceAccountToken: {{ .Values.serviceAccount.automountToken }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumes:
  - name: data
    emptyDir: {}
  - name: tmp
    emptyDir: {}
{{- with .Values.extraVolumes }}
{{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "chakshu.mounts" -}}
volumeMounts:
  - name: data
    mountPath: /data
  - name: tmp
    mountPath: /tmp
{{- with .Values.extraVolumeMounts }}
{{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
