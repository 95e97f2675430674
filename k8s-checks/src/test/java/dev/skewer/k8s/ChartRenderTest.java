package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code helm lint} and {@code helm template} of {@code k8s/skewer} with the helm bundled in
 * helm-java: the default values and every value set under {@code src/test/resources/values} render
 * the objects they should, and bad values fail with a message naming the value.
 */
class ChartRenderTest {

  @Test
  void shouldLintStrictlyWithoutFindings() {
    LintResult result = new Helm(Repo.chart()).lint().strict().call();
    assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
    assertThat(result.getMessages())
        .as("lint findings")
        .noneMatch(m -> m.startsWith("[ERROR]") || m.startsWith("[WARNING]"));
  }

  @Test
  void shouldRenderTheDefaultObjects() {
    RenderedChart chart = RenderedChart.defaults();
    assertThat(chart.names())
        .containsExactlyInAnyOrder(
            "ServiceAccount/skw-skewer",
            "ConfigMap/skw-skewer-config",
            "Service/skw-skewer-hazelcast",
            "Service/skw-skewer",
            "StatefulSet/skw-skewer-node",
            "StatefulSet/skw-skewer-coordinator",
            "PodDisruptionBudget/skw-skewer-node",
            "PodDisruptionBudget/skw-skewer-coordinator",
            "NetworkPolicy/skw-skewer");
  }

  @Test
  void shouldRenderEveryOptionalObjectWhenAskedTo() {
    RenderedChart chart = RenderedChart.valueSet("everything");
    assertThat(chart.names())
        .contains(
            "Ingress/skw-skewer",
            "HorizontalPodAutoscaler/skw-skewer-node",
            "ServiceMonitor/skw-skewer",
            "Job/skw-skewer-loadgen",
            "CronJob/skw-skewer-reconcile");
  }

  @Test
  void shouldRenderOnlyTheCoreObjectsWithTheMinimalValues() {
    RenderedChart chart = RenderedChart.valueSet("minimal");
    assertThat(chart.objects().stream().map(HasMetadata::getKind).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("ConfigMap", "Service", "StatefulSet");
  }

  /** Renders every value set and keeps the output in {@code target/rendered/<set>.yaml}. */
  @ParameterizedTest
  @ValueSource(strings = {"default", "secured", "everything", "minimal", "sessions"})
  void shouldRenderEveryValueSet(String name) throws IOException {
    RenderedChart chart =
        name.equals("default") ? RenderedChart.defaults() : RenderedChart.valueSet(name);
    assertThat(chart.objects()).isNotEmpty();
    Path out = Path.of("target", "rendered", name + ".yaml");
    Files.createDirectories(out.getParent());
    Files.writeString(out, chart.yaml(), StandardCharsets.UTF_8);
  }

  @Test
  void shouldPassTheFanoutPolicysFloorAndShareToTheCoordinatorsOnly() {
    Map<String, String> shipped =
        ChartInvariantsTest.env(container(RenderedChart.defaults(), "coordinator"));
    assertThat(Double.parseDouble(shipped.get("SKEWER_HOT_KEY_MIN_RATE")))
        .isEqualTo(FanoutPolicy.Config.DEFAULT_MIN_TARGET_RATE);
    assertThat(Double.parseDouble(shipped.get("SKEWER_HOT_KEY_TARGET_SHARE")))
        .isEqualTo(FanoutPolicy.Config.DEFAULT_TARGET_SHARE);
    Map<String, String> set =
        ChartInvariantsTest.env(container(RenderedChart.valueSet("everything"), "coordinator"));
    assertThat(set)
        .containsEntry("SKEWER_HOT_KEY_MIN_RATE", "10")
        .containsEntry("SKEWER_HOT_KEY_TARGET_SHARE", "0.01");
    assertThat(ChartInvariantsTest.env(container(RenderedChart.defaults(), "node")))
        .doesNotContainKeys("SKEWER_HOT_KEY_MIN_RATE", "SKEWER_HOT_KEY_TARGET_SHARE");
  }

  @Test
  void shouldRefuseAFloorOrShareTheCoordinatorWouldRefuse() {
    assertThatThrownBy(() -> RenderedChart.template(null, Map.of("coordinator.hotKeyMinRate", 0)))
        .hasMessageContaining("hotKeyMinRate");
    assertThatThrownBy(
            () -> RenderedChart.template(null, Map.of("coordinator.hotKeyTargetShare", 1.5)))
        .hasMessageContaining("hotKeyTargetShare");
  }

  @Test
  void shouldPassTheCheckpointChunkSizeToBothStagesAndRefuseOneTheyWould() {
    for (String component : List.of("node", "coordinator")) {
      assertThat(ChartInvariantsTest.env(container(RenderedChart.defaults(), component)))
          .as(component)
          .containsEntry(
              "SKEWER_CHECKPOINT_CHUNK_BYTES",
              Integer.toString(HazelcastCheckpointStore.DEFAULT_CHUNK_BYTES));
      assertThat(
              ChartInvariantsTest.env(
                  container(
                      RenderedChart.render("chunk", null, Map.of("checkpoint.chunkBytes", 1048576)),
                      component)))
          .as(component)
          .containsEntry("SKEWER_CHECKPOINT_CHUNK_BYTES", "1048576");
    }
    assertThatThrownBy(() -> RenderedChart.template(null, Map.of("checkpoint.chunkBytes", 1000)))
        .hasMessageContaining("chunkBytes");
    assertThatThrownBy(
            () -> RenderedChart.template(null, Map.of("checkpoint.chunkBytes", 67108865)))
        .hasMessageContaining("chunkBytes");
  }

  @Test
  void shouldAddARolesJvmOptionsAfterTheSharedOnes() {
    // the shipped values: the coordinators run C1 only, the nodes the shared options alone
    String node = jvmOptions(RenderedChart.defaults(), "node");
    assertThat(node)
        .contains("-XX:+UseParallelGC")
        .doesNotContain("TieredStopAtLevel")
        .doesNotEndWith(" ");
    assertThat(jvmOptions(RenderedChart.defaults(), "coordinator"))
        .isEqualTo(node + " -XX:TieredStopAtLevel=1");

    // a role's own options replace the shipped ones, after the shared options
    RenderedChart set =
        RenderedChart.render(
            "role-jvm",
            null,
            Map.of("node.jvmOptions", "-XX:+AlwaysPreTouch", "coordinator.jvmOptions", ""));
    assertThat(jvmOptions(set, "node")).isEqualTo(node + " -XX:+AlwaysPreTouch");
    assertThat(jvmOptions(set, "coordinator")).isEqualTo(node);
  }

  private static String jvmOptions(RenderedChart chart, String component) {
    return ChartInvariantsTest.env(container(chart, component)).get("JDK_JAVA_OPTIONS");
  }

  private static Container container(RenderedChart chart, String component) {
    return chart.statefulSet(component).getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  @Test
  void shouldRefuseAnUnknownValue() {
    assertThatThrownBy(() -> RenderedChart.template(null, Map.of("node.replica", 3)))
        .hasMessageContaining("replica");
  }

  @Test
  void shouldRefuseAnUnknownJobField() {
    assertThatThrownBy(() -> RenderedChart.template(null, Map.of("job.watermark.dely", "3s")))
        .hasMessageContaining("dely");
  }

  @Test
  void shouldRefuseMoreNodesThanEventPartitions() {
    assertThatThrownBy(() -> RenderedChart.template(null, Map.of("node.replicas", 5)))
        .hasMessageContaining("node.replicas (5) > job.topics.eventsPartitions (4)");
  }

  @Test
  void shouldRefuseAnAutoscalerBeyondTheEventPartitions() {
    assertThatThrownBy(
            () ->
                RenderedChart.template(
                    null,
                    Map.of("node.autoscaling.enabled", true, "node.autoscaling.maxReplicas", 9)))
        .hasMessageContaining("node.autoscaling.maxReplicas (9) > job.topics.eventsPartitions (4)");
  }

  @Test
  void shouldRefuseSecuritySettingsInPlainProperties() {
    assertThatThrownBy(
            () ->
                RenderedChart.template(
                    null, Map.of("kafka.properties.sasl\\.jaas\\.config", "secret")))
        .hasMessageContaining("kafka.properties.sasl.jaas.config");
  }

  @Test
  void shouldRefuseSaslWithoutASecret() {
    assertThatThrownBy(
            () -> RenderedChart.template(null, Map.of("kafka.sasl.mechanism", "SCRAM-SHA-512")))
        .hasMessageContaining("kafka.sasl.secretName is required");
  }

  @Test
  void shouldRefuseALoadGeneratorWhoseEventsTheJobCannotRead() {
    assertThatThrownBy(() -> RenderedChart.template(null, Map.of("loadgen.enabled", true)))
        .hasMessageContaining("job.input reads them at /ad and /ts");
  }

  @Test
  void shouldRefuseAnEmptyBootstrap() {
    assertThatThrownBy(() -> RenderedChart.template(null, Map.of("kafka.bootstrap", "")))
        .hasMessageContaining("kafka.bootstrap is required");
  }

  @Test
  void shouldRefuseAGracePeriodBelowTheFloor() {
    assertThatThrownBy(
            () -> RenderedChart.template(null, Map.of("node.terminationGracePeriodSeconds", 5)))
        .hasMessageContaining("terminationGracePeriodSeconds");
  }
}
