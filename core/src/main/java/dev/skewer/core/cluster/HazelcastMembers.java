package dev.skewer.core.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts embedded Hazelcast members with Skewer's settings: listening on the bind address only and
 * advertising the public address; TCP-IP join over the listed members (multicast and auto-detection
 * off; a {@value #JOIN_TIMEOUT_SECONDS} s join timeout) or Kubernetes DNS discovery of a headless
 * service; no phone-home; Hazelcast's own metrics collection off; SLF4J logging; a 1 s heartbeat
 * with a 5 s no-heartbeat timeout (so a frozen member is noticed in seconds, not the default
 * minute); a {@value #BACKUP_TIMEOUT_MILLIS} ms wait for a backup's acknowledgement; member
 * attributes {@value #ROLE_ATTRIBUTE}, {@value #NAME_ATTRIBUTE} and {@value #JOB_ATTRIBUTE}.
 * Blocking: call it off the event loop.
 *
 * <p>Each {@code hazelcast.*} property Skewer sets gives way to the same JVM system property
 * ({@code -Dhazelcast.max.no.heartbeat.seconds=10}), and {@value #JOIN_TIMEOUT_PROPERTY} replaces
 * the join timeout: operators can tune a member without a new build.
 */
public final class HazelcastMembers {

  /** Member attribute with the role: {@code node} or {@code coordinator}. */
  public static final String ROLE_ATTRIBUTE = "skewer.role";

  /** Member attribute with the member name, e.g. {@code node-1}. */
  public static final String NAME_ATTRIBUTE = "skewer.name";

  /** Member attribute with the name of the job the member runs. */
  public static final String JOB_ATTRIBUTE = "skewer.job";

  /**
   * Seconds a starting member asks the listed members for a master before it claims mastership
   * itself (TCP-IP join). Members launched together all wait this long before the cluster forms:
   * Hazelcast's default of 5 s made three members started at once take ~6 s to form one cluster, 1
   * s takes ~2 s ({@code skewer bench join}, docs/benchmarks.md). A member that starts while a
   * cluster exists learns the master from the first answer and does not wait; one that wrongly
   * believes itself alone for longer forms its own cluster, which the split-brain merge folds back
   * within {@code hazelcast.merge.first.run.delay.seconds} (5 s here).
   */
  public static final int JOIN_TIMEOUT_SECONDS = 1;

  /** System property overriding {@link #JOIN_TIMEOUT_SECONDS}. */
  public static final String JOIN_TIMEOUT_PROPERTY = "skewer.hazelcast.join.timeout.seconds";

  /**
   * Milliseconds a Hazelcast call waits for the acknowledgement of its synchronous backup before it
   * returns without it ({@value #BACKUP_TIMEOUT_PROPERTY}; Hazelcast's default is 5,000). Hazelcast
   * checks once a second, so a backup that is never acknowledged holds a call 1–2 s, not 5–6 s.
   */
  public static final long BACKUP_TIMEOUT_MILLIS = 1_000;

  /** Hazelcast's property for {@link #BACKUP_TIMEOUT_MILLIS}. */
  public static final String BACKUP_TIMEOUT_PROPERTY = "hazelcast.operation.backup.timeout.millis";

  /** System property that turns Hazelcast's own metrics collection back on (Hazelcast's). */
  public static final String METRICS_PROPERTY = "hazelcast.metrics.enabled";

  private static final Logger LOG = LoggerFactory.getLogger(HazelcastMembers.class);

  private HazelcastMembers() {}

  /** The configuration {@link #start} uses, without a job attribute. */
  public static Config config(ClusterSettings settings, String memberName, String role) {
    return config(settings, memberName, role, null);
  }

  /**
   * The configuration {@link #start} uses (exposed so it can be inspected and tested).
   *
   * @param jobName the job this member runs ({@value #JOB_ATTRIBUTE} attribute); null = none
   */
  public static Config config(
      ClusterSettings settings, String memberName, String role, String jobName) {
    if (memberName == null || memberName.isBlank()) {
      throw new IllegalArgumentException("memberName must be non-blank, was " + memberName);
    }
    if (role == null || role.isBlank()) {
      throw new IllegalArgumentException("role must be non-blank, was " + role);
    }
    Config config = new Config();
    config.setClusterName(settings.clusterName());
    property(config, "hazelcast.phone.home.enabled", "false");
    // checkpoints, their chunks and fencing epochs (maps skewer.<job>.checkpoints,
    // skewer.<job>.checkpoint-chunks, skewer.<job>.epochs) must survive the loss of one member
    config.addMapConfig(new MapConfig("skewer.*.checkpoints").setBackupCount(1));
    config.addMapConfig(new MapConfig("skewer.*.checkpoint-chunks").setBackupCount(1));
    config.addMapConfig(new MapConfig("skewer.*.epochs").setBackupCount(1));
    property(config, "hazelcast.logging.type", "slf4j");
    property(config, "hazelcast.heartbeat.interval.seconds", "1");
    // heal a split brain (e.g. a member frozen past the heartbeat timeout) within seconds, not
    // minutes: until then the frozen member reads stale epochs and checkpoints
    property(config, "hazelcast.merge.first.run.delay.seconds", "5");
    property(config, "hazelcast.merge.next.run.delay.seconds", "5");
    property(config, "hazelcast.max.no.heartbeat.seconds", "5");
    property(config, "hazelcast.wait.seconds.before.join", "1");
    // how long a call waits for its backup's acknowledgement before it returns anyway (Hazelcast's
    // default 5 s). A member drops a backup that reaches it before its partition table or its
    // start-up has caught up, without acknowledging it: while members joined, such a timeout held
    // a coordinator's hot keys ~6 s, and the take-overs that were held ~5.5 s fit it
    // (docs/benchmarks.md). The call's own result is unaffected, and a checkpoint's copy in Kafka
    // covers a Hazelcast copy that is lost.
    property(config, BACKUP_TIMEOUT_PROPERTY, Long.toString(BACKUP_TIMEOUT_MILLIS));
    property(config, "hazelcast.shutdownhook.enabled", "false");
    // Hazelcast's own metrics (collected every 5 s for JMX and Management Center, which Skewer
    // does not use): a few per cent of a W1 run's CPU (docs/benchmarks.md); Skewer's Hazelcast
    // gauges read the maps' statistics, which do not need them. -Dhazelcast.metrics.enabled=true
    // turns them on
    if (System.getProperty(METRICS_PROPERTY) == null) {
      config.getMetricsConfig().setEnabled(false);
    }
    config.getMemberAttributeConfig().setAttribute(ROLE_ATTRIBUTE, role);
    config.getMemberAttributeConfig().setAttribute(NAME_ATTRIBUTE, memberName);
    if (jobName != null) {
      config.getMemberAttributeConfig().setAttribute(JOB_ATTRIBUTE, jobName);
    }

    NetworkConfig network = config.getNetworkConfig();
    network.setPort(settings.port()).setPortAutoIncrement(false);
    if (ClusterSettings.isWildcard(settings.bindAddress())) {
      config.setProperty("hazelcast.socket.bind.any", "true");
    } else {
      // listen on the bind address only (Hazelcast's default is every interface)
      config.setProperty("hazelcast.socket.bind.any", "false");
      network.getInterfaces().setEnabled(true).addInterface(settings.bindAddress());
    }
    if (settings.publicAddress() != null) {
      network.setPublicAddress(settings.self());
    }
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    if (settings.kubernetes()) {
      join.getTcpIpConfig().setEnabled(false);
      join.getKubernetesConfig()
          .setEnabled(true)
          .setProperty("service-dns", settings.kubernetesServiceDns())
          .setProperty("service-port", Integer.toString(settings.port()));
    } else {
      join.getTcpIpConfig().setEnabled(true).setConnectionTimeoutSeconds(joinTimeoutSeconds());
      for (String member : settings.members()) {
        join.getTcpIpConfig().addMember(member);
      }
    }
    return config;
  }

  /**
   * {@value #JOIN_TIMEOUT_PROPERTY}, else {@link #JOIN_TIMEOUT_SECONDS}. Refuses anything but a
   * whole number of seconds from 1: with 0 the TCP-IP join never asks the listed members for a
   * master, and members launched together did not form a cluster at all (docs/benchmarks.md).
   */
  public static int joinTimeoutSeconds() {
    String value = System.getProperty(JOIN_TIMEOUT_PROPERTY);
    if (value == null) {
      return JOIN_TIMEOUT_SECONDS;
    }
    int seconds;
    try {
      seconds = Integer.parseInt(value.strip());
    } catch (NumberFormatException e) {
      seconds = 0;
    }
    if (seconds < 1) {
      throw new IllegalArgumentException(
          "-D"
              + JOIN_TIMEOUT_PROPERTY
              + " must be a whole number of seconds, at least 1; was '"
              + value
              + "'");
    }
    return seconds;
  }

  /**
   * Sets a Hazelcast property to Skewer's default unless the JVM has it as a system property
   * ({@code -Dhazelcast.wait.seconds.before.join=0}): the operator's value then applies.
   */
  private static void property(Config config, String name, String value) {
    if (System.getProperty(name) == null) {
      config.setProperty(name, value);
    }
  }

  /**
   * Starts an embedded member named {@code memberName} with role {@code role}; blocks until it has
   * joined (or formed) its cluster.
   */
  public static HazelcastInstance start(ClusterSettings settings, String memberName, String role) {
    return start(settings, memberName, role, null);
  }

  /** As {@link #start(ClusterSettings, String, String)}, with the job's name as an attribute. */
  public static HazelcastInstance start(
      ClusterSettings settings, String memberName, String role, String jobName) {
    Config config = config(settings, memberName, role, jobName);
    LOG.info(
        "Starting Hazelcast member name=[{}] role=[{}] job=[{}] cluster=[{}] bind=[{}:{}]"
            + " public=[{}] discovery=[{}]",
        memberName,
        role,
        jobName,
        settings.clusterName(),
        settings.bindAddress(),
        settings.port(),
        settings.self(),
        settings.kubernetes()
            ? "kubernetes:" + settings.kubernetesServiceDns()
            : settings.members());
    return Hazelcast.newHazelcastInstance(config);
  }
}
