package dev.skewer.launcher.cli;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.coordinator.CoordinatorRuntime;
import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.coordinator.hotkey.HotKeySettings;
import dev.skewer.coordinator.query.QuerySettings;
import dev.skewer.coordinator.stream.CoordinatorTopicFacts;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.launcher.cli.CommonOptions.Role;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code skewer coordinator}: one stage-2 process with the HTTP API. */
@Command(
    name = "coordinator",
    mixinStandardHelpOptions = true,
    description = "Run a coordinator: merge partials, emit final results, serve the HTTP API.")
public final class CoordinatorCommand implements Callable<Integer> {

  @Mixin CommonOptions common;

  @Option(
      names = "--no-hot-keys",
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "true|false",
      description = "Do not detect hot keys nor publish the hot-key table. Default: false.")
  boolean noHotKeys;

  @Option(
      names = "--hot-key-min-rate",
      paramLabel = "EVENTS_PER_S",
      defaultValue = "" + FanoutPolicy.Config.DEFAULT_MIN_TARGET_RATE,
      description =
          "Floor of the target rate per sub-key of a hot key, events per second (> 0): no key"
              + " slower than this is salted. Lower it for low-rate streams. Default:"
              + " ${DEFAULT-VALUE}.")
  double hotKeyMinRate;

  @Option(
      names = "--hot-key-target-share",
      paramLabel = "SHARE",
      defaultValue = "" + FanoutPolicy.Config.DEFAULT_TARGET_SHARE,
      description =
          "Target rate per sub-key of a hot key as a share of the mean partition rate, in (0, 1]."
              + " Default: ${DEFAULT-VALUE} (1/128).")
  double hotKeyTargetShare;

  @Option(
      names = "--api-token",
      paramLabel = "TOKEN",
      description = "Require 'Authorization: Bearer TOKEN' on /api/v1/*. Default: open.")
  String apiToken;

  @Option(
      names = "--cors-origin",
      paramLabel = "ORIGIN",
      description = "The one browser origin allowed to call the API. Default: none.")
  String corsOrigin;

  @Option(
      names = "--view-max-mb",
      paramLabel = "MB",
      defaultValue = "64",
      description =
          "Heap the API's view of recent results may take (whole oldest windows are evicted)."
              + " Default: ${DEFAULT-VALUE}.")
  long viewMaxMb;

  @Override
  public Integer call() throws Exception {
    common.applyLogFormat();
    Map<String, String> env = common.env();
    JobSpec job = common.loadJob();
    KafkaSettings kafka = common.kafka();
    String id = common.id(Role.COORDINATOR, env);
    ClusterSettings cluster = common.cluster(job, env);
    int httpPort = common.httpPort(Role.COORDINATOR);
    String checkpointTopic = common.checkpointTopic(job);
    CoordinatorSettings settings =
        new CoordinatorSettings(
            id,
            job,
            kafka,
            common.group(),
            common.bindAddress(env),
            httpPort == 0 ? CoordinatorSettings.NO_HTTP : httpPort,
            CoordinatorSettings.DEFAULT_MAX_PENDING_RECORDS,
            common.checkpointInterval(),
            hotKeys(),
            common.provision());
    // without provisioning the topics' check comes first, so that a missing topic fails before
    // anything starts; the rest of the Kafka side (missing topics created, the checkpoint topic and
    // its producer, what the coordinator asks the broker) is done while the Hazelcast member joins
    if (!common.provision()) {
      List<String> needed =
          new ArrayList<>(
              List.of(job.topics().events(), job.topics().partials(), job.topics().results()));
      if (cluster != null) {
        needed.add(checkpointTopic);
      }
      if (settings.hotKeys().enabled()) {
        needed.add(settings.hotKeys().topic());
      }
      Processes.requireTopics(kafka, needed);
    }
    CompletableFuture<Processes.KafkaSide<CoordinatorTopicFacts>> kafkaSide =
        Processes.kafkaSideInBackground(
            kafka,
            job,
            common.provision(),
            cluster,
            checkpointTopic,
            common.checkpointChunkBytes(),
            id,
            "coordinator's topic facts",
            () -> CoordinatorTopicFacts.read(settings));
    // Vert.x comes up while the member joins too
    CompletableFuture<CoordinatorRuntime.Startup> vertx =
        Processes.inBackground(
            "vertx",
            () -> {
              long startNs = System.nanoTime();
              CoordinatorRuntime.Startup begun =
                  CoordinatorRuntime.begin(
                      settings,
                      QuerySettings.defaults()
                          .withViewMaxBytes(viewMaxMb * 1024 * 1024)
                          .withApiToken(apiToken)
                          .withCorsOrigin(corsOrigin),
                      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
              Processes.logStep("Vert.x", startNs);
              return begun;
            });
    HazelcastInstance hz = Processes.member(cluster, id, Role.COORDINATOR.roleName(), job);
    AutoCloseable eviction =
        Processes.evictDeadMembers(hz, kafka, settings.groupId(), Role.COORDINATOR.roleName(), job);
    Processes.KafkaSide<CoordinatorTopicFacts> prepared =
        Processes.await(
            kafkaSide, Processes.closingWhenDone(vertx), eviction, Processes.stopping(hz));
    CoordinatorRuntime.Startup startup =
        Processes.await(vertx, prepared.mirror(), eviction, Processes.stopping(hz));
    CheckpointStore checkpoints = Processes.checkpoints(hz, job, prepared.mirror());
    long runtimeStartNs = System.nanoTime();
    CoordinatorRuntime coordinator =
        startup.finish(Clock.systemUTC(), checkpoints, hz, prepared.facts());
    Processes.logStep("runtime started", runtimeStartNs);
    System.out.println(
        "coordinator "
            + id
            + " running (job "
            + job.name()
            + ", group "
            + settings.groupId()
            + (coordinator.httpPort() > 0 ? ", HTTP API on port " + coordinator.httpPort() : "")
            + "); Ctrl-C to stop");
    Processes.runUntilShutdown(
        coordinator, eviction, checkpoints, hz == null ? null : hz::shutdown);
    return 0;
  }

  /**
   * {@code --no-hot-keys} and the fanout policy's options; a value the policy refuses is a {@link
   * CliException} naming the option (the rule itself is {@link FanoutPolicy.Config}'s).
   */
  HotKeySettings hotKeys() {
    FanoutPolicy.Config policy = FanoutPolicy.Config.defaults();
    try {
      policy = policy.withMinTargetRate(hotKeyMinRate);
    } catch (IllegalArgumentException e) {
      throw new CliException("--hot-key-min-rate: " + e.getMessage(), e);
    }
    try {
      policy = policy.withTargetShare(hotKeyTargetShare);
    } catch (IllegalArgumentException e) {
      throw new CliException("--hot-key-target-share: " + e.getMessage(), e);
    }
    return new HotKeySettings(!noHotKeys, null, policy);
  }
}
