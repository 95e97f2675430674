{{/* Names: <release>-skewer unless the release name already holds the chart name. */}}
{{- define "skewer.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "skewer.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "skewer.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels every object carries. */}}
{{- define "skewer.labels" -}}
helm.sh/chart: {{ include "skewer.chart" . }}
{{ include "skewer.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: skewer
{{- end }}

{{/* The release's pods, nodes and coordinators alike. */}}
{{- define "skewer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "skewer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* One component's pods: call with (dict "root" $ "component" "node"). */}}
{{- define "skewer.componentSelectorLabels" -}}
{{ include "skewer.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "skewer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "skewer.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "skewer.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The headless Service: Hazelcast DNS discovery and the StatefulSets' stable pod names. */}}
{{- define "skewer.headlessName" -}}
{{- printf "%s-hazelcast" (include "skewer.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "skewer.headlessDns" -}}
{{- printf "%s.%s.svc.%s" (include "skewer.headlessName" .) .Release.Namespace .Values.clusterDomain }}
{{- end }}

{{- define "skewer.configName" -}}
{{- printf "%s-config" (include "skewer.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Where the container sees its files. */}}
{{- define "skewer.configDir" -}}/etc/skewer{{- end }}
{{- define "skewer.saslDir" -}}/etc/skewer/kafka-sasl{{- end }}
{{- define "skewer.caDir" -}}/etc/skewer/kafka-ca{{- end }}
{{- define "skewer.clientTlsDir" -}}/etc/skewer/kafka-client{{- end }}

{{/* The job file: the job values as they are. */}}
{{- define "skewer.jobYaml" -}}
{{- toYaml .Values.job }}
{{- end }}

{{/*
The Kafka client properties file. Secret values are never written here: they are references
(${dir:<mounted Secret>:<key>}) that Kafka's DirectoryConfigProvider resolves inside the process.
*/}}
{{- define "skewer.kafkaProperties" -}}
# Kafka client properties for Skewer (rendered by the chart; secrets are ${dir:...} references)
{{- $k := .Values.kafka }}
{{- $protocol := "PLAINTEXT" }}
{{- if and $k.sasl.mechanism $k.tls.enabled }}{{ $protocol = "SASL_SSL" }}
{{- else if $k.sasl.mechanism }}{{ $protocol = "SASL_PLAINTEXT" }}
{{- else if $k.tls.enabled }}{{ $protocol = "SSL" }}
{{- end }}
security.protocol={{ $protocol }}
{{- if or $k.sasl.mechanism $k.tls.clientSecretName }}
config.providers=dir
config.providers.dir.class=org.apache.kafka.common.config.provider.DirectoryConfigProvider
{{- end }}
{{- if $k.sasl.mechanism }}
sasl.mechanism={{ $k.sasl.mechanism }}
sasl.jaas.config=${dir:{{ include "skewer.saslDir" . }}:{{ $k.sasl.jaasConfigKey }}}
{{- end }}
{{- if and $k.tls.enabled $k.tls.caSecretName }}
ssl.truststore.type=PEM
ssl.truststore.location={{ include "skewer.caDir" . }}/{{ $k.tls.caKey }}
{{- end }}
{{- if and $k.tls.enabled $k.tls.clientSecretName }}
ssl.keystore.type=PKCS12
ssl.keystore.location={{ include "skewer.clientTlsDir" . }}/{{ $k.tls.keystoreKey }}
ssl.keystore.password=${dir:{{ include "skewer.clientTlsDir" . }}:{{ $k.tls.keystorePasswordKey }}}
{{- end }}
{{- range $key, $value := $k.properties }}
{{ $key }}={{ include "skewer.scalar" $value }}
{{- end }}
{{- end }}

{{/* Fails the render with a clear message on values the schema cannot express. */}}
{{- define "skewer.validate" -}}
{{- if not .Values.kafka.bootstrap }}
{{- fail "kafka.bootstrap is required: your Kafka cluster's bootstrap servers (host:port,...)" }}
{{- end }}
{{- if and .Values.kafka.sasl.mechanism (not .Values.kafka.sasl.secretName) }}
{{- fail "kafka.sasl.secretName is required when kafka.sasl.mechanism is set" }}
{{- end }}
{{- if and .Values.kafka.tls.clientSecretName (not .Values.kafka.tls.enabled) }}
{{- fail "kafka.tls.clientSecretName needs kafka.tls.enabled=true" }}
{{- end }}
{{- range $key, $_ := .Values.kafka.properties }}
{{- if or (hasPrefix "sasl." $key) (hasPrefix "ssl." $key) (eq $key "security.protocol") (hasPrefix "config.providers" $key) }}
{{- fail (printf "kafka.properties.%s: security settings come from kafka.sasl and kafka.tls (secrets from Secrets), not from plain properties" $key) }}
{{- end }}
{{- end }}
{{- $events := int .Values.job.topics.eventsPartitions }}
{{- $partials := int .Values.job.topics.partialsPartitions }}
{{- if gt (int .Values.node.replicas) $events }}
{{- fail (printf "node.replicas (%d) > job.topics.eventsPartitions (%d): the extra nodes would own no partition" (int .Values.node.replicas) $events) }}
{{- end }}
{{- if and .Values.node.autoscaling.enabled (gt (int .Values.node.autoscaling.maxReplicas) $events) }}
{{- fail (printf "node.autoscaling.maxReplicas (%d) > job.topics.eventsPartitions (%d): the extra nodes would own no partition" (int .Values.node.autoscaling.maxReplicas) $events) }}
{{- end }}
{{- if and .Values.node.autoscaling.enabled (gt (int .Values.node.autoscaling.minReplicas) (int .Values.node.autoscaling.maxReplicas)) }}
{{- fail "node.autoscaling.minReplicas must be <= node.autoscaling.maxReplicas" }}
{{- end }}
{{- if gt (int .Values.coordinator.replicas) $partials }}
{{- fail (printf "coordinator.replicas (%d) > job.topics.partialsPartitions (%d): the extra coordinators would own no partition" (int .Values.coordinator.replicas) $partials) }}
{{- end }}
{{- if and (eq .Values.cluster.discovery "members") (not .Values.cluster.members) }}
{{- fail "cluster.members must list host:port entries when cluster.discovery=members" }}
{{- end }}
{{- if and .Values.loadgen.enabled (or (ne .Values.job.input.keyPointer "/key") (ne .Values.job.input.timePointer "/ts")) }}
{{- fail (printf "loadgen.enabled: the load generator's events carry the key at /key and the time at /ts, but job.input reads them at %s and %s (use a job like examples/demo.yaml)" .Values.job.input.keyPointer .Values.job.input.timePointer) }}
{{- end }}
{{- if eq .Values.node.httpPort .Values.cluster.port }}
{{- fail "node.httpPort and cluster.port must differ" }}
{{- end }}
{{- if eq .Values.coordinator.httpPort .Values.cluster.port }}
{{- fail "coordinator.httpPort and cluster.port must differ" }}
{{- end }}
{{- end }}

{{/* The Kafka Secrets' mounts (only those configured), for a container's volumeMounts. */}}
{{- define "skewer.kafkaVolumeMounts" -}}
{{- if .Values.kafka.sasl.mechanism }}
- name: kafka-sasl
  mountPath: {{ include "skewer.saslDir" . }}
  readOnly: true
{{- end }}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.caSecretName }}
- name: kafka-ca
  mountPath: {{ include "skewer.caDir" . }}
  readOnly: true
{{- end }}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.clientSecretName }}
- name: kafka-client
  mountPath: {{ include "skewer.clientTlsDir" . }}
  readOnly: true
{{- end }}
{{- end }}

{{/* The Kafka Secrets as volumes (only the keys Skewer reads). */}}
{{- define "skewer.kafkaVolumes" -}}
{{- if .Values.kafka.sasl.mechanism }}
- name: kafka-sasl
  secret:
    secretName: {{ .Values.kafka.sasl.secretName }}
    items:
      - key: {{ .Values.kafka.sasl.jaasConfigKey }}
        path: {{ .Values.kafka.sasl.jaasConfigKey }}
{{- end }}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.caSecretName }}
- name: kafka-ca
  secret:
    secretName: {{ .Values.kafka.tls.caSecretName }}
    items:
      - key: {{ .Values.kafka.tls.caKey }}
        path: {{ .Values.kafka.tls.caKey }}
{{- end }}
{{- if and .Values.kafka.tls.enabled .Values.kafka.tls.clientSecretName }}
- name: kafka-client
  secret:
    secretName: {{ .Values.kafka.tls.clientSecretName }}
    items:
      - key: {{ .Values.kafka.tls.keystoreKey }}
        path: {{ .Values.kafka.tls.keystoreKey }}
      - key: {{ .Values.kafka.tls.keystorePasswordKey }}
        path: {{ .Values.kafka.tls.keystorePasswordKey }}
{{- end }}
{{- end }}

{{/* A value as text; a whole number stays whole (Helm reads numbers as floats: 33554432 would print as 3.3554432e+07). */}}
{{- define "skewer.scalar" -}}
{{- if and (kindIs "float64" .) (eq . (float64 (int64 .))) }}{{ int64 . }}{{ else }}{{ . }}{{ end }}
{{- end }}
