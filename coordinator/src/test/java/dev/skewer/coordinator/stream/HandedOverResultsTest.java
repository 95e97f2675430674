package dev.skewer.coordinator.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.SourceWatermarks;
import dev.skewer.coordinator.query.QueryFixtures;
import dev.skewer.coordinator.query.ResultHandoff;
import dev.skewer.coordinator.query.ResultParser;
import dev.skewer.coordinator.query.StoredResult;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.sketches.Aggregate;
import dev.skewer.stage.TaskOutput;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** What the writer hands to its process's query view is what the view would parse back. */
class HandedOverResultsTest {

  private static final long START = 1_700_000_000_000L;

  @Test
  void everyResultHandedOverEqualsTheParseOfTheRecordSent() throws Exception {
    for (JobSpec job :
        List.of(
            QueryFixtures.job(),
            JobSpecLoader.load(Path.of("..", "examples", "sessions.yaml"), Map.of()),
            JobSpecLoader.load(Path.of("..", "examples", "w1.yaml"), Map.of()),
            JobSpecLoader.parse(
                "name: c\ninput: {keyPointer: /k, timePointer: /t}\n"
                    + "window: {type: tumbling, size: 1s}\n",
                Map.of()))) {
      ResultHandoff handoff = new ResultHandoff(ResultHandoff.DEFAULT_MAX_BYTES);
      ResultWriter writer = new ResultWriter(job, new SimpleMeterRegistry(), "c", start -> 3);
      writer.handoff(handoff);
      ResultParser parser = new ResultParser(job);
      List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
      TaskOutput out =
          new TaskOutput() {
            @Override
            public void send(ProducerRecord<byte[], byte[]> record) {
              throw new AssertionError("a result was sent without its acknowledgement");
            }

            @Override
            public void send(ProducerRecord<byte[], byte[]> record, Acknowledged acknowledged) {
              sent.add(record);
              acknowledged.at(0, sent.size() - 1);
            }
          };
      SourceWatermarks watermarks = new SourceWatermarks(2);
      Random random = new Random(17);
      for (int i = 0; i < 300; i++) {
        Aggregate a = QueryFixtures.randomAggregate(job, random);
        long supersededBy = random.nextInt(10) == 0 ? START - 1_000 : FinalResult.NOT_SUPERSEDED;
        writer.write(
            new FinalResult(
                "k\u00e9" + i, START, START + 10_000 + i, a, random.nextInt(3), null, supersededBy),
            watermarks,
            WrittenResults.none(),
            out);
      }

      assertThat(sent).hasSizeGreaterThanOrEqualTo(300);
      for (int offset = 0; offset < sent.size(); offset++) {
        byte[] value = sent.get(offset).value();
        StoredResult handed = handoff.take(0, offset, value);
        assertThat(handed).as(job.name() + " offset " + offset).isNotNull();
        assertSame(handed, parser.parse(value));
      }
      assertThat(handoff.taken()).isEqualTo(sent.size());
      assertThat(handoff.bytes()).isZero();
    }
  }

  private static void assertSame(StoredResult actual, StoredResult expected) {
    QueryFixtures.assertSameResult(actual, expected);
    assertThat(actual.provenanceText()).isNotNull();
    assertThat(actual.envelope()).isSameAs(expected.envelope());
  }
}
