{{/* Name prefix of every object: the release name. */}}
{{- define "granite.fullname" -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "granite.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "granite.labels" -}}
app.kubernetes.io/part-of: granite
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "granite.metricsAnnotations" -}}
{{- if .Values.metrics.annotations }}
annotations:
  prometheus.io/scrape: "true"
  prometheus.io/port: {{ .Values.ports.metrics | quote }}
  prometheus.io/path: /metrics
{{- end }}
{{- end -}}

{{/* The coordinator's worker list: one DNS name per StatefulSet pod, in ordinal order. */}}
{{- define "granite.workerList" -}}
{{- $worker := printf "%s-worker" (include "granite.fullname" .) -}}
{{ $worker }}-{0..{{ sub (int .Values.workers.replicas) 1 }}}.{{ $worker }}.$(POD_NAMESPACE).svc:{{ .Values.ports.worker }}
{{- end -}}

{{- define "granite.securityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}
