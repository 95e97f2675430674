{{/*
One stage's StatefulSet: call with (dict "root" $ "component" "node"|"coordinator").
Stable pod names (<fullname>-node-0, ...) are the processes' ids ($HOSTNAME); every pod is a
Hazelcast member bound to its pod IP ($POD_IP) and found through the headless Service.
*/}}
{{- define "skewer.statefulset" -}}
{{- $root := .root }}
{{- $component := .component }}
{{- $v := index $root.Values $component }}
{{- $fullname := include "skewer.fullname" $root }}
{{- $k := $root.Values.kafka }}
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ $fullname }}-{{ $component }}
  labels:
    {{- include "skewer.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ $component }}
spec:
  {{- if not (and (eq $component "node") $v.autoscaling.enabled) }}
  replicas: {{ $v.replicas }}
  {{- end }}
  serviceName: {{ include "skewer.headlessName" $root }}
  # all pods at once: a member needs no predecessor to start, and one rebalance beats N
  podManagementPolicy: Parallel
  updateStrategy:
    type: RollingUpdate
  selector:
    matchLabels:
      {{- include "skewer.componentSelectorLabels" (dict "root" $root "component" $component) | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "skewer.componentSelectorLabels" (dict "root" $root "component" $component) | nindent 8 }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # a changed job or client configuration rolls the pods
        checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "skewer.serviceAccountName" $root }}
      automountServiceAccountToken: false
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ $component }}
          image: {{ include "skewer.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args: ["{{ $component }}"]
          env:
            - name: POD_IP
              valueFrom:
                fieldRef:
                  fieldPath: status.podIP
            # Hazelcast and HTTP listen on every interface of the pod (so that kubectl
            # port-forward, which connects to the pod's loopback, reaches /health, /metrics and the
            # API); the member advertises the pod IP to the others
            - name: SKEWER_BIND_ADDRESS
              value: "0.0.0.0"
            - name: SKEWER_PUBLIC_ADDRESS
              value: "$(POD_IP)"
            - name: SKEWER_JOB
              value: {{ include "skewer.configDir" $root }}/job.yaml
            - name: SKEWER_BOOTSTRAP
              value: {{ $k.bootstrap | quote }}
            - name: SKEWER_KAFKA_CONFIG
              value: {{ include "skewer.configDir" $root }}/kafka.properties
            - name: SKEWER_HZ_PORT
              value: {{ $root.Values.cluster.port | quote }}
            {{- if eq $root.Values.cluster.discovery "kubernetes" }}
            - name: SKEWER_HZ_K8S_SERVICE_DNS
              value: {{ include "skewer.headlessDns" $root }}
            {{- else }}
            - name: SKEWER_HZ_MEMBERS
              value: {{ join "," $root.Values.cluster.members | quote }}
            {{- end }}
            {{- with $root.Values.cluster.name }}
            - name: SKEWER_HZ_CLUSTER_NAME
              value: {{ . | quote }}
            {{- end }}
            - name: SKEWER_HTTP_PORT
              value: {{ $v.httpPort | quote }}
            {{- with $v.group }}
            - name: SKEWER_GROUP
              value: {{ . | quote }}
            {{- end }}
            - name: SKEWER_CHECKPOINT_INTERVAL
              value: {{ $root.Values.checkpoint.interval | quote }}
            {{- with $root.Values.checkpoint.topic }}
            - name: SKEWER_CHECKPOINT_TOPIC
              value: {{ . | quote }}
            {{- end }}
            {{- with $root.Values.checkpoint.chunkBytes }}
            - name: SKEWER_CHECKPOINT_CHUNK_BYTES
              value: {{ . | int64 | toString | quote }}
            {{- end }}
            {{- if not $k.provisionTopics }}
            - name: SKEWER_NO_PROVISION
              value: "true"
            {{- end }}
            {{- if and (eq $component "coordinator") (not $v.hotKeys) }}
            - name: SKEWER_NO_HOT_KEYS
              value: "true"
            {{- end }}
            {{- if eq $component "coordinator" }}
            - name: SKEWER_HOT_KEY_MIN_RATE
              value: {{ include "skewer.scalar" $v.hotKeyMinRate | quote }}
            - name: SKEWER_HOT_KEY_TARGET_SHARE
              value: {{ include "skewer.scalar" $v.hotKeyTargetShare | quote }}
            {{- end }}
            - name: SKEWER_LOG_FORMAT
              value: {{ $root.Values.logFormat | quote }}
            - name: JDK_JAVA_OPTIONS
              value: {{ trim (printf "%s %s" $root.Values.jvmOptions ($v.jvmOptions | default "")) | quote }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          ports:
            - name: http
              containerPort: {{ $v.httpPort }}
              protocol: TCP
            - name: hazelcast
              containerPort: {{ $root.Values.cluster.port }}
              protocol: TCP
          startupProbe:
            httpGet:
              path: /health/live
              port: http
            periodSeconds: {{ $v.probes.startup.periodSeconds }}
            failureThreshold: {{ $v.probes.startup.failureThreshold }}
          livenessProbe:
            httpGet:
              path: /health/live
              port: http
            periodSeconds: {{ $v.probes.liveness.periodSeconds }}
            failureThreshold: {{ $v.probes.liveness.failureThreshold }}
            timeoutSeconds: {{ $v.probes.liveness.timeoutSeconds }}
          readinessProbe:
            httpGet:
              path: /health/ready
              port: http
            periodSeconds: {{ $v.probes.readiness.periodSeconds }}
            failureThreshold: {{ $v.probes.readiness.failureThreshold }}
            timeoutSeconds: {{ $v.probes.readiness.timeoutSeconds }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: config
              mountPath: {{ include "skewer.configDir" $root }}
              readOnly: true
            - name: tmp
              mountPath: /tmp
            {{- with (include "skewer.kafkaVolumeMounts" $root) }}
            {{- . | nindent 12 }}
            {{- end }}
      volumes:
        - name: config
          configMap:
            name: {{ include "skewer.configName" $root }}
        - name: tmp
          emptyDir:
            sizeLimit: 256Mi
        {{- with (include "skewer.kafkaVolumes" $root) }}
        {{- . | nindent 8 }}
        {{- end }}
      {{- $affinity := deepCopy $v.affinity }}
      {{- if and (ne $v.podAntiAffinity "none") (not $affinity.podAntiAffinity) }}
      {{- $term := dict "topologyKey" "kubernetes.io/hostname" "labelSelector" (dict "matchLabels" (include "skewer.componentSelectorLabels" (dict "root" $root "component" $component) | fromYaml)) }}
      {{- if eq $v.podAntiAffinity "hard" }}
      {{- $_ := set $affinity "podAntiAffinity" (dict "requiredDuringSchedulingIgnoredDuringExecution" (list $term)) }}
      {{- else }}
      {{- $_ := set $affinity "podAntiAffinity" (dict "preferredDuringSchedulingIgnoredDuringExecution" (list (dict "weight" 100 "podAffinityTerm" $term))) }}
      {{- end }}
      {{- end }}
      {{- with $affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
