package dev.skewer.launcher.cli;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.coordinator.CoordinatorRuntime;
import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.coordinator.query.QuerySettings;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.concurrent.Callable;
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
      names = "--id",
      defaultValue = "coordinator-1",
      description = "Coordinator name. Default: ${DEFAULT-VALUE}.")
  String id;

  @Option(
      names = "--http-port",
      defaultValue = "8080",
      description = "HTTP API port. Default: ${DEFAULT-VALUE}.")
  int httpPort;

  @Option(
      names = "--no-hot-keys",
      description = "Do not detect hot keys nor publish the hot-key table.")
  boolean noHotKeys;

  @Option(
      names = "--api-token",
      paramLabel = "TOKEN",
      defaultValue = "${env:SKEWER_API_TOKEN}",
      description =
          "Require 'Authorization: Bearer TOKEN' on /api/v1/* (env SKEWER_API_TOKEN). Default: open.")
  String apiToken;

  @Option(
      names = "--cors-origin",
      paramLabel = "ORIGIN",
      defaultValue = "${env:SKEWER_CORS_ORIGIN}",
      description =
          "The one browser origin allowed to call the API (env SKEWER_CORS_ORIGIN). Default: none.")
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
    JobSpec job = common.loadJob();
    KafkaSettings kafka = common.kafka();
    if (!common.noProvision) {
      Processes.provision(kafka, job);
    }
    HazelcastInstance hz = Processes.member(common, id, "coordinator");
    CheckpointStore checkpoints = Processes.checkpoints(hz, kafka, common);
    CoordinatorRuntime coordinator =
        CoordinatorRuntime.start(
            new CoordinatorSettings(
                id,
                job,
                kafka,
                common.group,
                httpPort,
                CoordinatorSettings.DEFAULT_MAX_PENDING_RECORDS,
                CoordinatorSettings.DEFAULT_TOP_K_WINDOWS,
                common.checkpointInterval,
                noHotKeys
                    ? dev.skewer.coordinator.hotkey.HotKeySettings.disabled()
                    : dev.skewer.coordinator.hotkey.HotKeySettings.defaults()),
            QuerySettings.defaults()
                .withViewMaxBytes(viewMaxMb * 1024 * 1024)
                .withApiToken(apiToken)
                .withCorsOrigin(corsOrigin),
            hz,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            Clock.systemUTC(),
            checkpoints);
    System.out.println(
        "coordinator "
            + id
            + " running, HTTP API on port "
            + coordinator.httpPort()
            + "; Ctrl-C to stop");
    Processes.runUntilShutdown(coordinator, checkpoints, hz == null ? null : hz::shutdown);
    return 0;
  }
}
