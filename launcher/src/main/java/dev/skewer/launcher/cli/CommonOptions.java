package dev.skewer.launcher.cli;

import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.kafka.KafkaSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Options shared by the long-running processes (node, coordinator): the job, Kafka, the process's
 * name and addresses, Hazelcast membership, HTTP, consumer group, checkpoints, provisioning and log
 * format. Defaults that depend on the role or the job are resolved by the methods below.
 */
public final class CommonOptions {

  /** The two long-running roles and their role-specific defaults. */
  public enum Role {
    NODE("node", 8081),
    COORDINATOR("coordinator", 8080);

    private final String name;
    private final int httpPort;

    Role(String name, int httpPort) {
      this.name = name;
      this.httpPort = httpPort;
    }

    /** {@code node} or {@code coordinator}. */
    public String roleName() {
      return name;
    }
  }

  /** The environment variable {@code --bind-address} defaults to (Kubernetes' downward API). */
  public static final String POD_IP = "POD_IP";

  /** The environment variable {@code --id} defaults to (a pod's name in Kubernetes). */
  public static final String HOSTNAME = "HOSTNAME";

  @Option(
      names = "--job",
      required = true,
      paramLabel = "FILE",
      description = "The job file (YAML); SKEWER_<FIELD> variables override its fields.")
  Path job;

  @Mixin KafkaOptions kafka;

  @Option(
      names = "--id",
      paramLabel = "NAME",
      description =
          "This process's name (logs, metric tags, Hazelcast member). Default: $HOSTNAME when set,"
              + " else node-1 / coordinator-1.")
  String id;

  @Option(
      names = "--bind-address",
      paramLabel = "ADDR",
      description =
          "The IP address Hazelcast and HTTP listen on (0.0.0.0 = every interface, then"
              + " --public-address is required). Default: $POD_IP when set, else 127.0.0.1.")
  String bindAddress;

  @Option(
      names = "--public-address",
      paramLabel = "ADDR",
      description =
          "The address this Hazelcast member advertises to the others. Default: the bind address.")
  String publicAddress;

  @Option(
      names = "--hz-port",
      paramLabel = "PORT",
      defaultValue = "5701",
      description = "Hazelcast member port (0 = no Hazelcast member). Default: ${DEFAULT-VALUE}.")
  int hazelcastPort;

  @Option(
      names = "--hz-member",
      paramLabel = "HOST:PORT",
      split = ",",
      description =
          "A Hazelcast member to join; repeatable (SKEWER_HZ_MEMBERS: comma-separated). Default:"
              + " this member only.")
  List<String> hazelcastMembers = new ArrayList<>();

  @Option(
      names = "--hz-k8s-service-dns",
      paramLabel = "NAME",
      description =
          "Discover Hazelcast members through the Kubernetes DNS records of this headless service"
              + " (no RBAC needed) instead of --hz-member.")
  String kubernetesServiceDns;

  @Option(
      names = "--hz-cluster-name",
      paramLabel = "NAME",
      description = "Hazelcast cluster name. Default: skewer-<job name>.")
  String hazelcastClusterName;

  @Option(
      names = "--http-port",
      paramLabel = "PORT",
      description =
          "HTTP port of /health/live, /health/ready, /metrics (and the coordinator's API);"
              + " 0 = no HTTP server. Default: coordinator 8080, node 8081.")
  Integer httpPort;

  @Option(
      names = "--group",
      paramLabel = "GROUP",
      description = "Consumer group. Default: skewer-<job>-nodes / skewer-<job>-coordinators.")
  String group;

  @Option(
      names = "--checkpoint-interval",
      paramLabel = "DURATION",
      defaultValue = "5s",
      converter = DurationConverter.class,
      description =
          "How often owned partitions are checkpointed (and offsets committed)."
              + " Default: ${DEFAULT-VALUE}.")
  Duration checkpointInterval;

  @Option(
      names = "--checkpoint-topic",
      paramLabel = "TOPIC",
      description = "Compacted topic mirroring the checkpoints. Default: skewer.<job>.checkpoints.")
  String checkpointTopic;

  @Option(
      names = "--checkpoint-chunk-bytes",
      paramLabel = "BYTES",
      defaultValue = "524288",
      description =
          "Checkpoint state larger than this is written in chunks of this size (Hazelcast entries"
              + " and checkpoint-topic records of at most this plus 65536 bytes), in [1024,"
              + " 67108864]. Default: ${DEFAULT-VALUE}.")
  int checkpointChunkBytes;

  @Option(
      names = "--no-provision",
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "true|false",
      description =
          "Create nothing: fail, naming them, when topics are missing. Default: false (missing"
              + " topics are created).")
  boolean noProvision;

  @Mixin LogOptions log;

  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  /** The environment: flags' defaults, job overrides, {@code $HOSTNAME}, {@code $POD_IP}. */
  public Map<String, String> env() {
    return command == null ? System.getenv() : EnvironmentDefaults.of(command);
  }

  /** Loads the job file with the {@code SKEWER_*} job overrides of the environment. */
  public JobSpec loadJob() {
    return JobSpecLoader.load(job, env());
  }

  /** Kafka settings: bootstrap, {@code --kafka-config}, {@code -X}. */
  public KafkaSettings kafka() {
    return kafka.settings();
  }

  /** The process name: {@code --id}, else {@code $HOSTNAME}, else {@code <role>-1}. */
  public String id(Role role, Map<String, String> env) {
    if (id != null && !id.isBlank()) {
      return id;
    }
    String host = env.get(HOSTNAME);
    return host == null || host.isBlank() ? role.roleName() + "-1" : host;
  }

  /**
   * The bind address as an IP literal: {@code --bind-address}, else {@code $POD_IP}, else loopback.
   */
  public String bindAddress(Map<String, String> env) {
    String address = bindAddress;
    if (address == null || address.isBlank()) {
      String pod = env.get(POD_IP);
      address = pod == null || pod.isBlank() ? ClusterSettings.DEFAULT_BIND_ADDRESS : pod;
    }
    if (ClusterSettings.isWildcard(address)) {
      return address;
    }
    try {
      return InetAddress.getByName(address).getHostAddress();
    } catch (UnknownHostException e) {
      throw new CliException("--bind-address " + address + ": unknown host");
    }
  }

  /** The HTTP port, or 0 for none. */
  public int httpPort(Role role) {
    int port = httpPort == null ? role.httpPort : httpPort;
    if (port < 0 || port > 65_535) {
      throw new CliException("--http-port must be in [0, 65535], was " + port);
    }
    return port;
  }

  /** Whether topics may be created. */
  public boolean provision() {
    return !noProvision;
  }

  /** The checkpoint topic: {@code --checkpoint-topic}, else {@code skewer.<job>.checkpoints}. */
  public String checkpointTopic(JobSpec job) {
    return checkpointTopic == null || checkpointTopic.isBlank()
        ? JobNames.of(job).checkpointsTopic()
        : checkpointTopic;
  }

  /** The consumer group, or null for the job's default. */
  public String group() {
    return group == null || group.isBlank() ? null : group;
  }

  /** The checkpoint chunk size, checked against the store's bounds. */
  public int checkpointChunkBytes() {
    if (checkpointChunkBytes < HazelcastCheckpointStore.MIN_CHUNK_BYTES
        || checkpointChunkBytes > HazelcastCheckpointStore.MAX_CHUNK_BYTES) {
      throw new CliException(
          "--checkpoint-chunk-bytes must be in ["
              + HazelcastCheckpointStore.MIN_CHUNK_BYTES
              + ", "
              + HazelcastCheckpointStore.MAX_CHUNK_BYTES
              + "], was "
              + checkpointChunkBytes);
    }
    return checkpointChunkBytes;
  }

  public Duration checkpointInterval() {
    if (checkpointInterval.isNegative() || checkpointInterval.isZero()) {
      throw new CliException("--checkpoint-interval must be > 0, was " + checkpointInterval);
    }
    return checkpointInterval;
  }

  /**
   * Switches the log format ({@code --log-format}), after refusing a {@code SKEWER_LOG_LEVEL} that
   * logback would read as DEBUG.
   */
  public void applyLogFormat() {
    LogOptions.checkLevel(env());
    log.apply();
  }

  /**
   * How this process's Hazelcast member binds and finds the others, or null without a member
   * ({@code --hz-port 0}).
   */
  public ClusterSettings cluster(JobSpec job, Map<String, String> env) {
    if (hazelcastPort == 0) {
      return null;
    }
    String bind = bindAddress(env);
    String name =
        hazelcastClusterName == null || hazelcastClusterName.isBlank()
            ? JobNames.of(job).hazelcastClusterName()
            : hazelcastClusterName;
    String dns =
        kubernetesServiceDns == null || kubernetesServiceDns.isBlank()
            ? null
            : kubernetesServiceDns;
    try {
      ClusterSettings probe =
          new ClusterSettings(name, bind, publicAddress, hazelcastPort, hazelcastMembers, dns);
      List<String> members = new ArrayList<>(probe.members());
      if (dns == null) {
        HazelcastMembers.joinTimeoutSeconds(); // a bad -D value fails here, before anything starts
        if (!members.contains(probe.self())) {
          members.add(probe.self());
        }
      }
      return new ClusterSettings(name, bind, publicAddress, hazelcastPort, members, dns);
    } catch (IllegalArgumentException e) {
      throw new CliException("Hazelcast: " + e.getMessage(), e);
    }
  }
}
