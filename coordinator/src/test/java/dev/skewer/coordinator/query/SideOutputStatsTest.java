package dev.skewer.coordinator.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.event.DlqReason;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class SideOutputStatsTest {

  private static RecordHeaders watermark(long ms) {
    RecordHeaders h = new RecordHeaders();
    h.add(SideOutputStats.WATERMARK_HEADER, Long.toString(ms).getBytes(StandardCharsets.UTF_8));
    return h;
  }

  private static byte[] event(long ts) {
    return ("{\"key\":\"a\",\"ts\":" + ts + ",\"value\":1,\"user\":\"u\",\"page\":\"p\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldMeasureTheLatenessEachLateEventNeededAndCountItInItsWindow() {
    SideOutputStats stats = new SideOutputStats(QueryFixtures.job()); // tumbling 10 s
    // window [10 s, 20 s); watermark 27 s: kept by an allowed lateness of 7,001 ms or more
    stats.onLate(event(12_000), watermark(27_000), 100);
    stats.onLate(event(19_999), watermark(20_000), 100); // needed 1 ms
    stats.onLate(event(5_000), new RecordHeaders(), 100); // no header: counted, not measured
    stats.onLate("garbage".getBytes(StandardCharsets.UTF_8), watermark(50_000), 100);
    assertThat(stats.late()).isEqualTo(4);
    assertThat(stats.lateUnmeasured()).isEqualTo(2);
    assertThat(stats.lateness().total()).isEqualTo(2);
    assertThat(stats.lateness().max()).isEqualTo(7_001);
    assertThat(stats.lateness().valueAtQuantile(0.5)).isEqualTo(1);
    assertThat(stats.lateInWindow(10_000)).isEqualTo(2);
    assertThat(stats.lateInWindow(0)).isEqualTo(1);
    LatenessAdvice advice = LatenessAdvice.of(stats, Duration.ofSeconds(5));
    assertThat(advice.keep99Ms())
        .isGreaterThanOrEqualTo(7_001)
        .isLessThanOrEqualTo(7_001 * 65 / 64);
    assertThat(advice.text())
        .contains("2 late events measured")
        .contains("allowed lateness 7100ms would have kept 99%")
        .contains("(now 5s)");
    assertThat(LatenessAdvice.human(850)).isEqualTo("850ms");
    assertThat(LatenessAdvice.human(1_201)).isEqualTo("1300ms");
    assertThat(LatenessAdvice.human(2_000)).isEqualTo("2s");
    assertThat(LatenessAdvice.human(19_910)).isEqualTo("20s");
    assertThat(LatenessAdvice.human(600_001)).isEqualTo("11m");
  }

  @Test
  void shouldAttributeAHoppingLateEventToEveryWindowItBelongsTo() {
    JobSpec hopping =
        JobSpecLoader.parse(
            QueryFixtures.JOB_YAML.replace(
                "type: tumbling\n  size: 10s", "type: hopping\n  size: 10s\n  hop: 5s"),
            Map.of());
    SideOutputStats stats = new SideOutputStats(hopping);
    stats.onLate(event(12_000), watermark(30_000), 0); // windows [5,15) and [10,20)
    assertThat(stats.lateInWindow(5_000)).isEqualTo(1);
    assertThat(stats.lateInWindow(10_000)).isEqualTo(1);
    assertThat(stats.lateInWindow(0)).isZero();
    assertThat(stats.lateness().max()).isEqualTo(30_000 - 20_000 + 1);
  }

  @Test
  void shouldCountDlqRecordsByReasonAndRate() {
    SideOutputStats stats = new SideOutputStats(QueryFixtures.job());
    RecordHeaders h = new RecordHeaders();
    h.add(DlqReason.HEADER, "missing_key".getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < 20; i++) {
      stats.onDlq(h, 1_000_000 + i * 100);
    }
    stats.onDlq(new RecordHeaders(), 1_000_000);
    assertThat(stats.dlq()).isEqualTo(21);
    assertThat(stats.dlqByReason()).containsEntry("missing_key", 20L).containsEntry("unknown", 1L);
    assertThat(stats.dlqPerSecond(1_005_000)).isEqualTo(2.1);
    assertThat(stats.dlqPerSecond(1_100_000)).isZero();
  }
}
