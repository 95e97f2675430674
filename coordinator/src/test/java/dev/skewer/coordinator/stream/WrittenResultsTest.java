package dev.skewer.coordinator.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.result.Provenance;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.sketches.Aggregate;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WrittenResultsTest {

  @Test
  void shouldCompareResultsByWhatTheySayNotByRevisionOrProvenance() {
    JobSpec job =
        JobSpecLoader.parse(
            "name: w\ninput: {keyPointer: /k, timePointer: /t, numericFields: [/v]}\n"
                + "window: {size: 1s}\n",
            Map.of());
    ResultFormatter f = new ResultFormatter(job);
    Aggregate a = Aggregate.empty(job.toSketchSpec());
    a.update(new double[] {3}, null, null, Double.NaN);
    Aggregate b = Aggregate.empty(job.toSketchSpec());
    b.update(new double[] {4}, null, null, Double.NaN);
    Provenance first = new Provenance(new int[] {0}, new long[] {1}, 4, 4, 1_000, 0);
    Provenance replay = new Provenance(new int[] {0, 2}, new long[] {3, 1}, 2, 4, 9_000, 7);

    String written = text(f.format("k\"}{", 0, 1_000, a, 0, null, null, first));
    String sameByReplay = text(f.format("k\"}{", 0, 1_000, a, 3, null, null, replay));
    String different = text(f.format("k\"}{", 0, 1_000, b, 0, null, null, first));

    assertThat(WrittenResults.content(sameByReplay)).isEqualTo(WrittenResults.content(written));
    assertThat(WrittenResults.content(different)).isNotEqualTo(WrittenResults.content(written));
    assertThat(WrittenResults.content(written))
        .doesNotContain("provenance")
        .contains("\"k\\\"}{\"");
    assertThat(WrittenResults.content(text(f.format("k", 0, 1_000, a, 0, null))))
        .isEqualTo(WrittenResults.content(text(f.format("k", 0, 1_000, a, 0, null, null, first))));
  }

  private static String text(byte[] json) {
    return new String(json, StandardCharsets.UTF_8);
  }
}
