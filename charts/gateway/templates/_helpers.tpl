{{- define "svc.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: rdm
{{- end -}}
{{- define "svc.env" -}}
- name: PORT
  value: {{ .Values.port | quote }}
{{- range $k, $v := .Values.env }}
- name: {{ $k }}
  value: {{ $v | quote }}
{{- end }}
- name: DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ .Values.secretName }}, key: DATABASE_URL } }
- name: IDENTITY_SECRET
  valueFrom: { secretKeyRef: { name: {{ .Values.secretName }}, key: IDENTITY_SECRET } }
{{- end -}}
