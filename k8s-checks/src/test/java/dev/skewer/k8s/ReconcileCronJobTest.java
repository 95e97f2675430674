package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.reconcile.TimeArgument;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The scheduled reconciliation ({@code reconcile.*} values, a CronJob running {@code skewer
 * reconcile}): off by default; when on, the binary parses its command line into the range the
 * values name, writes the report to standard output, spills to its own emptyDir, and reaches Kafka
 * and reads the job exactly as the nodes do (same bootstrap, client properties file, mounted
 * Secrets, job overrides).
 */
class ReconcileCronJobTest {

  /** 2024-05-02T13:45:00Z: "today" is 2024-05-02T00:00:00Z. */
  static final Clock CLOCK = Clock.fixed(Instant.parse("2024-05-02T13:45:00Z"), ZoneOffset.UTC);

  @Test
  void shouldBeOffByDefault() {
    assertThat(RenderedChart.defaults().reconcile()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"everything", "secured"})
  void shouldReconcileYesterdayNightlyWithTheReportOnStandardOutput(String valueSet) {
    // given
    RenderedChart chart = RenderedChart.valueSet(valueSet);
    CronJob cron = chart.reconcile().orElseThrow();
    PodSpec pod = cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);

    // when the binary parses the container's command line
    Map<String, Object> options = CliModel.parse(c.getArgs(), ChartInvariantsTest.podEnv(c));

    // then
    assertThat(c.getArgs().get(0)).isEqualTo("reconcile");
    assertThat(cron.getSpec().getSchedule()).isEqualTo("30 1 * * *");
    assertThat(cron.getSpec().getConcurrencyPolicy()).isEqualTo("Forbid");
    assertThat(cron.getSpec().getJobTemplate().getSpec().getBackoffLimit())
        .as("exit 1 is an answer: no retry")
        .isZero();
    assertThat(pod.getRestartPolicy()).isEqualTo("Never");
    assertThat(TimeArgument.parse((String) options.get("--from"), CLOCK))
        .isEqualTo(Instant.parse("2024-05-01T00:00:00Z"));
    assertThat(TimeArgument.parse((String) options.get("--to"), CLOCK))
        .isEqualTo(Instant.parse("2024-05-02T00:00:00Z"));
    assertThat(options.get("--report")).as("the JSON report on stdout").isEqualTo("-");
    // the spill directory is an emptyDir of its own, not the root file system
    Path spill = (Path) options.get("--spill-dir");
    VolumeMount mount = ChartInvariantsTest.mountAt(c, spill.toString());
    assertThat(ChartInvariantsTest.volume(pod, mount.getName()).getEmptyDir()).isNotNull();
    assertThat(options.get("--memory-budget")).isEqualTo("256m");
  }

  @Test
  void shouldPassTheRangeAndCorrectionsAsTheValuesSay() {
    RenderedChart chart =
        RenderedChart.render(
            "reconcile",
            null,
            Map.of(
                "reconcile.enabled", true,
                "reconcile.from", "now-26h",
                "reconcile.to", "now-2h",
                "reconcile.writeCorrections", true,
                "reconcile.correctionsTopic", "ads.corrections",
                "reconcile.margin", "10m",
                "reconcile.quiet", true,
                "reconcile.timeZone", "Etc/UTC"));
    CronJob cron = chart.reconcile().orElseThrow();
    Container c =
        cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getContainers().get(0);
    Map<String, Object> options = CliModel.parse(c.getArgs(), ChartInvariantsTest.podEnv(c));
    assertThat(TimeArgument.parse((String) options.get("--from"), CLOCK))
        .isEqualTo(Instant.parse("2024-05-01T11:45:00Z"));
    assertThat(TimeArgument.parse((String) options.get("--to"), CLOCK))
        .isEqualTo(Instant.parse("2024-05-02T11:45:00Z"));
    assertThat(options)
        .containsEntry("--write-corrections", true)
        .containsEntry("--corrections-topic", "ads.corrections")
        .containsEntry("--margin", java.time.Duration.ofMinutes(10))
        .containsEntry("--quiet", true);
    assertThat(cron.getSpec().getTimeZone()).isEqualTo("Etc/UTC");
  }

  @Test
  void shouldRefuseAnEmptyRange() {
    assertThatThrownBy(
            () ->
                RenderedChart.template(
                    null, Map.of("reconcile.enabled", true, "reconcile.from", "")))
        .hasMessageContaining("from");
  }

  @ParameterizedTest
  @ValueSource(strings = {"everything", "secured"})
  void shouldReachKafkaAndReadTheJobAsTheNodesDo(String valueSet) {
    RenderedChart chart = RenderedChart.valueSet(valueSet);
    CronJob cron = chart.reconcile().orElseThrow();
    PodSpec pod = cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    StatefulSet nodes = chart.statefulSet("node");
    PodSpec nodePod = nodes.getSpec().getTemplate().getSpec();
    Container node = nodePod.getContainers().get(0);
    Map<String, String> env = ChartInvariantsTest.podEnv(c);
    Map<String, String> nodeEnv = ChartInvariantsTest.podEnv(node);

    // the same bootstrap servers and client properties file, in the same ConfigMap
    for (String variable : List.of("SKEWER_BOOTSTRAP", "SKEWER_KAFKA_CONFIG", "SKEWER_JOB")) {
      assertThat(env.get(variable)).as(variable).isNotNull().isEqualTo(nodeEnv.get(variable));
    }
    String configVolume =
        ChartInvariantsTest.mountOf(c, Path.of(env.get("SKEWER_KAFKA_CONFIG"))).getName();
    String nodeConfigVolume =
        ChartInvariantsTest.mountOf(node, Path.of(nodeEnv.get("SKEWER_KAFKA_CONFIG"))).getName();
    assertThat(ChartInvariantsTest.volume(pod, configVolume).getConfigMap())
        .isEqualTo(ChartInvariantsTest.volume(nodePod, nodeConfigVolume).getConfigMap());
    // the same Secrets, mounted at the same places (the ${dir:...} references resolve alike)
    assertThat(kafkaMounts(c)).isEqualTo(kafkaMounts(node));
    for (VolumeMount m : kafkaMounts(c)) {
      Volume v = ChartInvariantsTest.volume(pod, m.getName());
      assertThat(v.getSecret()).isNotNull();
      assertThat(v).isEqualTo(ChartInvariantsTest.volume(nodePod, m.getName()));
    }
    if (valueSet.equals("secured")) {
      assertThat(kafkaMounts(c)).as("the secured values mount Secrets").isNotEmpty();
    }
    // the job it recomputes is the one the nodes run (job overrides included)
    assertThat(ChartInvariantsTest.job(chart, env))
        .isEqualTo(ChartInvariantsTest.job(chart, nodeEnv));
    // and its pods may reach Kafka: the NetworkPolicy's selector takes them in
    Map<String, String> labels =
        cron.getSpec().getJobTemplate().getSpec().getTemplate().getMetadata().getLabels();
    for (NetworkPolicy policy : chart.all(NetworkPolicy.class)) {
      assertThat(labels).containsAllEntriesOf(policy.getSpec().getPodSelector().getMatchLabels());
    }
  }

  private static List<VolumeMount> kafkaMounts(Container c) {
    return c.getVolumeMounts().stream()
        .filter(m -> m.getMountPath().startsWith("/etc/skewer/kafka-"))
        .collect(Collectors.toList());
  }
}
