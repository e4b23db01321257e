{{/*
Shared named templates of the rdm chart. Every service's Deployment, Service, PDB, HPA,
migration Job and NetworkPolicy is produced by ranging over .Values.services with these
helpers; nothing is written once per service.
*/}}

{{/* Prefix of every resource name: the release name (63-character safe). */}}
{{- define "rdm.prefix" -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels shared by everything. */}}
{{- define "rdm.commonLabels" -}}
app.kubernetes.io/part-of: rdm
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: dict "root" $ "name" <name> "component" service|infra|migration. */}}
{{- define "rdm.selector" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Full labels of one component (same dict as rdm.selector). */}}
{{- define "rdm.labels" -}}
{{ include "rdm.selector" . }}
app.kubernetes.io/part-of: rdm
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{/* Effective settings of one service: serviceDefaults merged under services.<name>. dict "root" $ "name" <svc>. */}}
{{- define "rdm.svc" -}}
{{- $own := index .root.Values.services .name | default dict -}}
{{- toYaml (mustMergeOverwrite (deepCopy .root.Values.serviceDefaults) (deepCopy $own)) -}}
{{- end -}}

{{/* The application image (one image for every service). */}}
{{- define "rdm.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* Name of the Secret the services read (the existing one or the chart's). */}}
{{- define "rdm.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "rdm.prefix" .)) -}}
{{- end -}}

{{/* In-cluster host names of the infrastructure. */}}
{{- define "rdm.postgresHost" -}}{{ include "rdm.prefix" . }}-postgresql{{- end -}}
{{- define "rdm.natsHost" -}}{{ include "rdm.prefix" . }}-nats{{- end -}}
{{- define "rdm.minioHost" -}}{{ include "rdm.prefix" . }}-minio{{- end -}}
{{- define "rdm.opensearchHost" -}}{{ include "rdm.prefix" . }}-opensearch{{- end -}}

{{/* NATS URL: in-cluster or external (required when the in-cluster one is off). */}}
{{- define "rdm.natsUrl" -}}
{{- if .Values.nats.enabled -}}
nats://{{ include "rdm.natsHost" . }}:4222
{{- else -}}
{{- required "nats.url is required when nats.enabled is false" .Values.nats.url -}}
{{- end -}}
{{- end -}}

{{/* S3 endpoint: explicit, else the in-cluster MinIO. */}}
{{- define "rdm.s3Endpoint" -}}
{{- if .Values.storage.s3.endpoint -}}
{{- .Values.storage.s3.endpoint -}}
{{- else if .Values.minio.enabled -}}
http://{{ include "rdm.minioHost" . }}:9000
{{- else if eq .Values.storage.engine "s3" -}}
{{- fail "storage.s3.endpoint is required when storage.engine is s3 and minio.enabled is false" -}}
{{- end -}}
{{- end -}}

{{/* Search URL: explicit, else the in-cluster OpenSearch. */}}
{{- define "rdm.searchUrl" -}}
{{- if .Values.search.url -}}
{{- .Values.search.url -}}
{{- else if .Values.opensearch.enabled -}}
http://{{ include "rdm.opensearchHost" . }}:9200
{{- else if ne .Values.search.engine "postgres" -}}
{{- fail "search.url is required when search.engine is not postgres and opensearch.enabled is false" -}}
{{- end -}}
{{- end -}}

{{/* host:port pairs a migration Job waits for before it starts (in-cluster infrastructure only). */}}
{{- define "rdm.waitFor" -}}
{{- $l := list -}}
{{- if .Values.postgresql.enabled }}{{ $l = append $l (printf "%s:5432" (include "rdm.postgresHost" .)) }}{{ end -}}
{{- if .Values.nats.enabled }}{{ $l = append $l (printf "%s:4222" (include "rdm.natsHost" .)) }}{{ end -}}
{{- join " " $l -}}
{{- end -}}

{{/* Pod-level security context of every pod (non-root, no privilege escalation). uid: dict "uid" <n>. */}}
{{- define "rdm.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .uid }}
runAsGroup: {{ .uid }}
fsGroup: {{ .uid }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Container security context; dict "readOnly" true|false. */}}
{{- define "rdm.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
readOnlyRootFilesystem: {{ .readOnly }}
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/* Environment of a service container (Deployment and migration Job): dict "root" $ "name" <svc> "svc" <settings>. */}}
{{- define "rdm.serviceEnv" -}}
- name: PORT
  value: "8080"
- name: IDENTITY_SECRET
  valueFrom: { secretKeyRef: { name: {{ include "rdm.secretName" .root }}, key: IDENTITY_SECRET } }
- name: DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ include "rdm.secretName" .root }}, key: DATABASE_URL } }
{{- if eq .root.Values.storage.engine "s3" }}
- name: S3_ACCESS_KEY
  valueFrom: { secretKeyRef: { name: {{ include "rdm.secretName" .root }}, key: S3_ACCESS_KEY } }
- name: S3_SECRET_KEY
  valueFrom: { secretKeyRef: { name: {{ include "rdm.secretName" .root }}, key: S3_SECRET_KEY } }
{{- end }}
{{- if or .root.Values.secrets.existingSecret .root.Values.secrets.searchUsername }}
- name: SEARCH_USERNAME
  valueFrom: { secretKeyRef: { name: {{ include "rdm.secretName" .root }}, key: SEARCH_USERNAME, optional: true } }
- name: SEARCH_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ include "rdm.secretName" .root }}, key: SEARCH_PASSWORD, optional: true } }
{{- end }}
{{- if eq .name "records" }}{{ include "rdm.smtpEnv" .root }}{{ end }}
{{- if eq .name "webhooks" }}
- name: WEBHOOKS_SECRET_KEY
  valueFrom: { secretKeyRef: { name: {{ include "rdm.secretName" .root }}, key: WEBHOOKS_SECRET_KEY } }
{{- /* The e-mails to owners of disabled webhooks: the real server only (records' development sink is in its own pod). */}}
{{- if .root.Values.smtp.host }}{{ include "rdm.smtpEnv" .root }}{{ end }}
{{- end }}
{{- if and (eq .name "records") (eq .root.Values.doi.provider "datacite") }}
- name: DATACITE_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ include "rdm.secretName" .root }}, key: DATACITE_PASSWORD } }
{{- end }}
{{- $env := .svc.env | default dict }}
{{- if and (eq .name "gateway") (not (hasKey $env "TRUST_PROXY_HOPS")) (not (hasKey $env "TRUSTED_PROXIES")) (not (hasKey $env "TRUST_PROXY")) }}
{{- /* The client address: the ingress controller is the trusted hop (values ingress.trustedHops). */}}
- name: TRUST_PROXY_HOPS
  value: {{ ternary .root.Values.ingress.trustedHops 0 .root.Values.ingress.enabled | toString | quote }}
{{- end }}
{{- range $k, $v := $env }}
- name: {{ $k }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- end -}}

{{/* Volume mounts of a service container (writable places only; the root fs is read-only). */}}
{{- define "rdm.serviceMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if and (eq .root.Values.storage.engine "local") (has .name (list "files" "communities")) }}
- name: data
  mountPath: /data/{{ .name }}
{{- end }}
{{- end -}}

{{/* Volumes matching rdm.serviceMounts. */}}
{{- define "rdm.serviceVolumes" -}}
- name: tmp
  emptyDir: { sizeLimit: 1Gi }
{{- if and (eq .root.Values.storage.engine "local") (has .name (list "files" "communities")) }}
- name: data
{{- if .root.Values.storage.local.persistence }}
  persistentVolumeClaim: { claimName: {{ include "rdm.prefix" .root }}-{{ .name }}-data }
{{- else }}
  emptyDir: {}
{{- end }}
{{- end }}
{{- end -}}

{{/* Infrastructure StatefulSet's PVC template: dict "name" <vol> "size" <size> "class" <storageClass>. */}}
{{- define "rdm.volumeClaim" -}}
- metadata:
    name: {{ .name }}
  spec:
    accessModes: ["ReadWriteOnce"]
    {{- if .class }}
    storageClassName: {{ .class | quote }}
    {{- end }}
    resources:
      requests:
        storage: {{ .size }}
{{- end -}}

{{/*
Mail of the records service: SMTP_URL from smtp.* (credentials from smtp.existingSecret, put into
the URL by Kubernetes' $(VAR) expansion, so they never appear in the rendered manifests), or
MAIL_SINK=true (development sink) when smtp.host is empty and smtp.devSink is true; neither: the
chart refuses to render.
*/}}
{{- define "rdm.smtpEnv" -}}
{{- $m := .Values.smtp -}}
{{- if $m.host }}
{{- $scheme := ternary "smtps" "smtp" (eq $m.tls "tls") -}}
{{- $query := ternary "?requireTLS=true" (ternary "?ignoreTLS=true" "" (eq $m.tls "none")) (eq $m.tls "starttls") -}}
{{- if $m.existingSecret }}
- name: SMTP_USERNAME
  valueFrom: { secretKeyRef: { name: {{ $m.existingSecret }}, key: {{ $m.usernameKey }} } }
- name: SMTP_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ $m.existingSecret }}, key: {{ $m.passwordKey }} } }
- name: SMTP_URL
  value: {{ printf "%s://$(SMTP_USERNAME):$(SMTP_PASSWORD)@%s:%d%s" $scheme $m.host (int $m.port) $query | quote }}
{{- else }}
- name: SMTP_URL
  value: {{ printf "%s://%s:%d%s" $scheme $m.host (int $m.port) $query | quote }}
{{- end }}
{{- else if $m.devSink }}
- name: MAIL_SINK
  value: "true"
{{- else }}
{{- fail "smtp.host is required (records sends mail), or smtp.devSink=true for a development cluster (its mail sink delivers nothing)" }}
{{- end }}
{{- end -}}
