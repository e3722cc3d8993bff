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

{{/* Worker pods: shards x replicas, or workers.replicas when `shards` is 0. */}}
{{- define "granite.workerCount" -}}
{{- if lt (int .Values.replicas) 1 }}{{ fail "replicas must be at least 1" }}{{ end -}}
{{- if gt (int .Values.shards) 0 -}}
{{ mul (int .Values.shards) (int .Values.replicas) }}
{{- else -}}
{{ int .Values.workers.replicas }}
{{- end -}}
{{- end -}}

{{/* Replicas per shard, as the coordinator's --replicas takes it. */}}
{{- define "granite.replicasPerShard" -}}
{{- if gt (int .Values.shards) 0 }}{{ int .Values.replicas }}{{ else }}1{{ end -}}
{{- end -}}

{{/* The coordinator's worker list: one DNS name per StatefulSet pod, in ordinal order. */}}
{{- define "granite.workerList" -}}
{{- $worker := printf "%s-worker" (include "granite.fullname" .) -}}
{{ $worker }}-{0..{{ sub (int (include "granite.workerCount" .)) 1 }}}.{{ $worker }}.$(POD_NAMESPACE).svc:{{ .Values.ports.worker }}
{{- end -}}

{{- define "granite.securityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}
