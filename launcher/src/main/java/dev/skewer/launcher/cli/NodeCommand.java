package dev.skewer.launcher.cli;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.node.NodeRuntime;
import dev.skewer.node.NodeSettings;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code skewer node}: one stage-1 process. */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    description = "Run a node: consume events, pre-aggregate, emit partials.")
public final class NodeCommand implements Callable<Integer> {

  @Mixin CommonOptions common;

  @Option(
      names = "--id",
      defaultValue = "node-1",
      description = "Node name. Default: ${DEFAULT-VALUE}.")
  String id;

  @Override
  public Integer call() throws Exception {
    JobSpec job = common.loadJob();
    KafkaSettings kafka = common.kafka();
    if (!common.noProvision) {
      Processes.provision(kafka, job);
    }
    HazelcastInstance hz = Processes.member(common, id, "node");
    CheckpointStore checkpoints = Processes.checkpoints(hz, kafka, common);
    NodeRuntime node =
        NodeRuntime.start(
            new NodeSettings(
                id,
                job,
                kafka,
                common.group,
                NodeSettings.DEFAULT_MAX_PENDING_RECORDS,
                NodeSettings.DEFAULT_TICK_INTERVAL,
                common.checkpointInterval),
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            Clock.systemUTC(),
            checkpoints,
            hz);
    System.out.println("node " + id + " running; Ctrl-C to stop");
    Processes.runUntilShutdown(node, checkpoints, hz == null ? null : hz::shutdown);
    return 0;
  }
}
