package dev.skewer.coordinator.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.result.Provenance;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.sketches.Aggregate;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ResultParserTest {

  private static final long START = 1_700_000_000_000L;

  @Test
  void readsWhatTheTreeReaderReadsFromEveryEnvelopeTheFormatterWrites() throws Exception {
    for (JobSpec job :
        List.of(
            QueryFixtures.job(),
            JobSpecLoader.load(Path.of("..", "examples", "sessions.yaml"), Map.of()))) {
      ResultFormatter formatter = new ResultFormatter(job);
      ResultParser parser = new ResultParser(job);
      TreeResultParser reference = new TreeResultParser(job);
      Random random = new Random(11);
      for (int i = 0; i < 300; i++) {
        Aggregate a = QueryFixtures.randomAggregate(job, random);
        Provenance provenance =
            random.nextBoolean()
                ? null
                : new Provenance(
                    new int[] {0, 3}, new long[] {2, 7}, 2, 4, START + i, random.nextInt(3) - 1);
        String supersededBy = random.nextInt(10) == 0 ? "k@" + START : null;
        byte[] envelope =
            formatter.format(
                "k" + i,
                START,
                START + 10_000 + i,
                a,
                random.nextInt(3),
                null,
                supersededBy,
                provenance);

        assertSame(parser.parse(envelope), reference.parse(envelope));
      }
    }
  }

  @Test
  void rejectsWhatTheTreeReaderRejects() {
    JobSpec job = QueryFixtures.job();
    ResultParser parser = new ResultParser(job);
    TreeResultParser reference = new TreeResultParser(job);
    String good =
        new String(QueryFixtures.envelope(job, "a", START, 3, 2.5, 2, 0), StandardCharsets.UTF_8);
    List<String> variants = new ArrayList<>();
    variants.add(good);
    variants.add(good + " ");
    variants.add(good + "{}");
    variants.add(good.substring(0, good.length() - 1));
    variants.add("[1]");
    variants.add("not json");
    variants.add("{\"key\":\"a\",\"value\":{}}");
    variants.add("{\"key\":1,\"value\":{}}");
    variants.add(good.replace("\"key\":\"a\"", "\"key\":null"));
    variants.add(
        good.replace("\"value\":{", "\"value\":[{").replace("},\"provenance", "}],\"provenance"));
    for (String field :
        List.of("window_start_ms", "window_end_ms", "event_count", "revision", "sum_value")) {
      variants.add(good.replaceFirst("\"" + field + "\":[-0-9.eE]+", "\"" + field + "\":\"7\""));
      variants.add(good.replaceFirst("\"" + field + "\":[-0-9.eE]+", "\"" + field + "\":null"));
      variants.add(good.replaceFirst("\"" + field + "\":[-0-9.eE]+,?", ""));
    }
    variants.add(good.replaceFirst("\"distinct_user\":\\{[^}]*}", "\"distinct_user\":3"));
    variants.add(good.replaceFirst("\"distinct_user\":\\{[^}]*}", "\"distinct_user\":null"));
    variants.add(good.replaceFirst("\"estimate\":[0-9]+", "\"estimate\":\"x\""));
    variants.add(good.replace("\"revision\":0", "\"revision\":0,\"superseded_by\":null"));
    variants.add(good.replace("\"revision\":0", "\"revision\":0,\"superseded_by\":\"b@1\""));
    variants.add(good.replace("\"revision\":0", "\"revision\":0,\"revision\":4"));

    for (String variant : variants) {
      byte[] bytes = variant.getBytes(StandardCharsets.UTF_8);
      StoredResult expected;
      try {
        expected = reference.parse(bytes);
      } catch (IllegalArgumentException e) {
        assertThatThrownBy(() -> parser.parse(bytes))
            .as(variant)
            .isInstanceOf(IllegalArgumentException.class);
        continue;
      }
      assertSame(parser.parse(bytes), expected);
    }
    assertThatThrownBy(() -> parser.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }

  private static void assertSame(StoredResult actual, StoredResult expected) {
    QueryFixtures.assertSameResult(actual, expected);
    assertThat(actual.envelope()).isSameAs(expected.envelope());
  }
}
