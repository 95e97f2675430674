package dev.skewer.benchmarks.deployed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {

  private static final String NODE_METRICS =
      """
      # HELP skewer_events_in_total records read from the events topic
      # TYPE skewer_events_in_total counter
      skewer_events_in_total{node="node-1"} 125123.0
      # TYPE skewer_partitions_owned gauge
      skewer_partitions_owned{node="node-1"} 1.0
      skewer_events_dlq_total{node="node-1",reason="not_json"} 3.0
      skewer_events_dlq_total{node="node-1",reason="missing_key"} 4.0
      jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 1.2582912E7
      process_uptime_seconds 12.5
      """;

  @Test
  void shouldReadTheValuePerLabelWhenNodesServeTheirCounters() {
    // given
    String node2 = NODE_METRICS.replace("node-1", "node-2").replace("125123.0", "7.0E1");

    // when
    Map<String, Double> one =
        PrometheusText.byLabel(NODE_METRICS, "skewer_events_in_total", "node");
    Map<String, Double> two = PrometheusText.byLabel(node2, "skewer_events_in_total", "node");

    // then
    assertThat(one).containsExactly(Map.entry("node-1", 125123.0));
    assertThat(two).containsExactly(Map.entry("node-2", 70.0));
  }

  @Test
  void shouldSumOverOtherLabelsWhenAMetricHasSeveralSeries() {
    assertThat(PrometheusText.byLabel(NODE_METRICS, "skewer_events_dlq_total", "node"))
        .containsExactly(Map.entry("node-1", 7.0));
    assertThat(PrometheusText.sum(NODE_METRICS, "skewer_events_dlq_total")).isEqualTo(7.0);
  }

  @Test
  void shouldReadSamplesWithoutLabelsAndSkipCommentsWhenParsing() {
    assertThat(PrometheusText.parse(NODE_METRICS))
        .extracting(PrometheusText.Sample::name)
        .containsExactly(
            "skewer_events_in_total",
            "skewer_partitions_owned",
            "skewer_events_dlq_total",
            "skewer_events_dlq_total",
            "jvm_memory_used_bytes",
            "process_uptime_seconds");
    assertThat(PrometheusText.sum(NODE_METRICS, "process_uptime_seconds")).isEqualTo(12.5);
  }

  @Test
  void shouldNotConfuseAMetricWithOneWhoseNameItPrefixes() {
    String text =
        "skewer_events_in_total_extra{node=\"a\"} 5\nskewer_events_in_total{node=\"a\"} 2\n";

    assertThat(PrometheusText.sum(text, "skewer_events_in_total")).isEqualTo(2.0);
  }

  @Test
  void shouldUnescapeLabelValuesAndIgnoreTimestampsWhenPresent() {
    String text = "m{path=\"a\\\"b,c\\\\d\",x=\"1\"} 3 1700000000000\n";

    PrometheusText.Sample s = PrometheusText.parse(text).get(0);

    assertThat(s.labels()).containsEntry("path", "a\"b,c\\d").containsEntry("x", "1");
    assertThat(s.value()).isEqualTo(3.0);
  }

  @Test
  void shouldSkipLinesThatAreNotSamplesWhenTheTextIsDamaged() {
    String text = "m{node=\"a\" 3\n{node=\"b\"} 4\nm{node=\"c\"} notanumber\nm{node=\"d\"} +Inf\n";

    assertThat(PrometheusText.byLabel(text, "m", "node"))
        .containsExactly(Map.entry("d", Double.POSITIVE_INFINITY));
  }
}
