package dev.skewer.coordinator.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.SourceWatermarks;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.sketches.Aggregate;
import dev.skewer.stage.TaskOutput;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultWriterTest {

  private static final JobSpec SESSIONS =
      JobSpecLoader.parse(
          "name: w\ninput: {keyPointer: /k, timePointer: /t, numericFields: [/v]}\n"
              + "window: {type: session, gap: 100ms}\n",
          Map.of());
  private static final ResultFormatter FORMAT = new ResultFormatter(SESSIONS);

  private final ResultWriter writer =
      new ResultWriter(SESSIONS, new SimpleMeterRegistry(), "c", start -> 0);
  private final SourceWatermarks watermarks = new SourceWatermarks(1);
  private final List<String> sent = new ArrayList<>(); // "resultKey=json"
  private final TaskOutput out =
      r ->
          sent.add(
              new String(r.key(), StandardCharsets.UTF_8)
                  + "="
                  + new String(r.value(), StandardCharsets.UTF_8));

  @Test
  void shouldSupersedeASessionThePreviousOwnerPublishedWhenTheReplayWritesTheMergedOne() {
    // given the previous owner published a@100 (2 events) and a@250 (1 event), and the merge of
    // both after a late event at 200 was lost
    WrittenResults written = WrittenResults.none();
    published(written, live(100, 150, 2, 0));
    published(written, live(250, 250, 1, 0));
    published(written, live(600, 600, 1, 0)); // another session of a, after the merged one
    published(written, "b", live("b", 250, 250, 1, 0)); // another key

    // when the replay writes the merged session [100, 250]
    writer.write(live(100, 250, 4, 0), watermarks, written, out);

    // then the merged session continues a@100's revisions and a@250 is superseded by it
    assertThat(sent).hasSize(2);
    assertThat(sent.get(0)).startsWith("a@100=").contains("\"event_count\":4,", "\"revision\":1}");
    assertThat(sent.get(1))
        .startsWith("a@250=")
        .contains(
            "\"session_start_ms\":250,\"session_end_ms\":250,\"event_count\":0,",
            "\"superseded_by\":\"a@100\",\"revision\":1}");

    // and the superseded record the merge emits next is not written again
    writer.write(superseded(250, 250, 1, 100), watermarks, written, out);
    assertThat(sent).hasSize(2);
  }

  @Test
  void shouldSupersedeAPublishedSessionWhenOnlyItsSupersededRecordWasLost() {
    // given the previous owner published a@100 (2 events), a@250, then the merged a@100 (4
    // events), and lost the superseded record of a@250
    WrittenResults written = WrittenResults.none();
    published(written, live(250, 250, 1, 0));
    published(written, live(100, 250, 4, 1));

    // when the replay writes the merged session again
    writer.write(live(100, 250, 4, 0), watermarks, written, out);

    // then only a@250's superseded record is written
    assertThat(sent).hasSize(1);
    assertThat(sent.get(0))
        .startsWith("a@250=")
        .contains("\"superseded_by\":\"a@100\",\"revision\":1}");
  }

  @Test
  void shouldNeverWriteASupersededSessionLiveAgain() {
    // given the previous owner wrote a@250 superseded by a@100
    WrittenResults written = WrittenResults.none();
    published(written, live(100, 250, 3, 1));
    published(written, superseded(250, 260, 1, 100));

    // when the replay passes through a@250 as a session of its own
    writer.write(live(250, 260, 2, 0), watermarks, written, out);

    // then nothing is written: the replay is on its way to the same merge
    assertThat(sent).isEmpty();
  }

  @Test
  void shouldWriteEveryMergeOnTheFirstPass() {
    // a first pass (nothing written before it) writes exactly what the merge emits
    writer.write(live(100, 250, 4, 0), watermarks, WrittenResults.none(), out);
    assertThat(sent).hasSize(1);
    assertThat(sent.get(0)).startsWith("a@100=").contains("\"revision\":0}");
  }

  private static FinalResult live(long startMs, long lastMs, int events, int revision) {
    return live("a", startMs, lastMs, events, revision);
  }

  private static FinalResult live(String key, long startMs, long lastMs, int events, int revision) {
    Aggregate a = Aggregate.empty(SESSIONS.toSketchSpec());
    for (int i = 0; i < events; i++) {
      a.update(new double[] {1}, null, null, Double.NaN);
    }
    return new FinalResult(key, startMs, lastMs + 1, a, revision);
  }

  private static FinalResult superseded(long startMs, long lastMs, int revision, long byStartMs) {
    return new FinalResult(
        "a",
        startMs,
        lastMs + 1,
        Aggregate.empty(SESSIONS.toSketchSpec()),
        revision,
        null,
        byStartMs);
  }

  private static void published(WrittenResults written, FinalResult r) {
    published(written, r.key(), r);
  }

  private static void published(WrittenResults written, String key, FinalResult r) {
    String supersededBy = r.superseded() ? FORMAT.resultKey(key, r.supersededByStartMs()) : null;
    String json =
        new String(
            FORMAT.format(
                key,
                r.windowStartMs(),
                r.windowEndMs(),
                r.aggregate(),
                r.revision(),
                null,
                supersededBy),
            StandardCharsets.UTF_8);
    written.put(
        FORMAT.resultKey(key, r.windowStartMs()), r.revision(), WrittenResults.content(json));
  }
}
