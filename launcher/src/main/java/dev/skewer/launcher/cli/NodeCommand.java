package dev.skewer.launcher.cli;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.launcher.cli.CommonOptions.Role;
import dev.skewer.node.NodeRuntime;
import dev.skewer.node.NodeSettings;
import dev.skewer.node.ingest.NodeTopicFacts;
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

/** {@code skewer node}: one stage-1 process. */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    description = "Run a node: consume events, pre-aggregate, emit partials.")
public final class NodeCommand implements Callable<Integer> {

  @Mixin CommonOptions common;

  @Override
  public Integer call() throws Exception {
    common.applyLogFormat();
    Map<String, String> env = common.env();
    JobSpec job = common.loadJob();
    KafkaSettings kafka = common.kafka();
    String id = common.id(Role.NODE, env);
    ClusterSettings cluster = common.cluster(job, env);
    int httpPort = common.httpPort(Role.NODE);
    String checkpointTopic = common.checkpointTopic(job);
    NodeSettings settings =
        new NodeSettings(
                id,
                job,
                kafka,
                common.group(),
                NodeSettings.DEFAULT_MAX_PENDING_RECORDS,
                NodeSettings.DEFAULT_TICK_INTERVAL,
                common.checkpointInterval(),
                NodeSettings.DEFAULT_HTTP_HOST,
                NodeSettings.NO_HTTP)
            .withHttp(common.bindAddress(env), httpPort == 0 ? NodeSettings.NO_HTTP : httpPort);
    // without provisioning the topics' check comes first, so that a missing topic fails before
    // anything starts; the rest of the Kafka side (missing topics created, the checkpoint topic and
    // its producer, what the node asks the broker) is done while the Hazelcast member joins
    if (!common.provision()) {
      List<String> needed =
          new ArrayList<>(
              List.of(
                  job.topics().events(),
                  job.topics().partials(),
                  job.topics().late(),
                  job.topics().dlq()));
      if (cluster != null) {
        needed.add(checkpointTopic);
      }
      Processes.requireTopics(kafka, needed);
    }
    CompletableFuture<Processes.KafkaSide<NodeTopicFacts>> kafkaSide =
        Processes.kafkaSideInBackground(
            kafka,
            job,
            common.provision(),
            cluster,
            checkpointTopic,
            common.checkpointChunkBytes(),
            id,
            "node's topic facts",
            () -> NodeTopicFacts.read(settings));
    // Vert.x and the health endpoints (answering 503 meanwhile) come up while the member joins too
    CompletableFuture<NodeRuntime.Startup> endpoints =
        Processes.inBackground(
            "endpoints",
            () -> {
              long startNs = System.nanoTime();
              NodeRuntime.Startup begun =
                  NodeRuntime.begin(
                      settings, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
              Processes.logStep("Vert.x and endpoints", startNs);
              return begun;
            });
    HazelcastInstance hz = Processes.member(cluster, id, Role.NODE.roleName(), job);
    AutoCloseable eviction =
        Processes.evictDeadMembers(hz, kafka, settings.groupId(), Role.NODE.roleName(), job);
    Processes.KafkaSide<NodeTopicFacts> prepared =
        Processes.await(
            kafkaSide, Processes.closingWhenDone(endpoints), eviction, Processes.stopping(hz));
    NodeRuntime.Startup startup =
        Processes.await(endpoints, prepared.mirror(), eviction, Processes.stopping(hz));
    CheckpointStore checkpoints = Processes.checkpoints(hz, job, prepared.mirror());
    long runtimeStartNs = System.nanoTime();
    NodeRuntime node = startup.finish(Clock.systemUTC(), checkpoints, hz, prepared.facts());
    Processes.logStep("runtime started", runtimeStartNs);
    System.out.println(
        "node "
            + id
            + " running (job "
            + job.name()
            + ", group "
            + settings.groupId()
            + (node.httpPort() > 0 ? ", health and metrics on port " + node.httpPort() : "")
            + "); Ctrl-C to stop");
    Processes.runUntilShutdown(node, eviction, checkpoints, hz == null ? null : hz::shutdown);
    return 0;
  }
}
