package dev.skewer.node.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.job.Guarantee;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.testkit.job.JobYaml;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;

/**
 * A node task restored from a checkpoint skips the side outputs its previous owner already wrote
 * after that checkpoint (looked up from the checkpoint's offset and time); the lookup's error is
 * the take-over's.
 */
class SourceTasksRestoreTest {

  private static final long NOW_MS = 1_000_000;

  private final List<String> lookups = new CopyOnWriteArrayList<>();
  private final List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();

  @Test
  void shouldSkipTheOffsetsAnEarlierOwnerRoutedAfterTheCheckpoint() {
    SourceTasks tasks =
        tasks(
            Guarantee.AT_LEAST_ONCE,
            (partition, from, sinceMs) -> {
              lookups.add(partition + " " + from + " " + sinceMs);
              return new HashSet<>(Set.of(7L)); // the task removes what it skipped
            });
    Checkpoint checkpoint = new Checkpoint(1, 5, NOW_MS - 3_000, stateWithWatermarkAt(98_000));

    SourcePartitionTask task = tasks.restore(0, 2, Optional.of(checkpoint));
    task.activated(sent::add);
    task.process(event(6, 1_000), sent::add); // late, not routed before: routed now
    task.process(event(7, 2_000), sent::add); // late, routed by the previous owner: skipped
    task.process(event(8, 3_000), sent::add); // late, not routed before: routed now
    task.endOfBatch(sent::add);

    assertThat(lookups).containsExactly("0 5 " + (NOW_MS - 3_000));
    assertThat(lateOffsets()).containsExactly("6", "8");
  }

  @Test
  void shouldFailTheRestoreWithTheLookupsOwnError() {
    SourceTasks tasks =
        tasks(
            Guarantee.AT_LEAST_ONCE,
            (partition, from, sinceMs) -> {
              throw new KafkaException("the late topic cannot be read");
            });
    Checkpoint checkpoint = new Checkpoint(1, 5, NOW_MS, stateWithWatermarkAt(98_000));

    assertThatThrownBy(() -> tasks.restore(0, 2, Optional.of(checkpoint)))
        .isExactlyInstanceOf(KafkaException.class)
        .hasMessage("the late topic cannot be read");
  }

  @Test
  void shouldLookUpNothingForExactlyOnceOrAFirstOwner() {
    SourceTasks.RoutedOffsets recording =
        (partition, from, sinceMs) -> {
          lookups.add(partition + " " + from);
          return Set.of();
        };
    Checkpoint checkpoint = new Checkpoint(1, 5, NOW_MS, stateWithWatermarkAt(98_000));

    tasks(Guarantee.EXACTLY_ONCE, recording).restore(0, 2, Optional.of(checkpoint));
    tasks(Guarantee.AT_LEAST_ONCE, recording).restore(0, 1, Optional.empty());
    assertThat(lookups).isEmpty();

    // an owner after another one without a checkpoint: whatever it routed, from the start
    tasks(Guarantee.AT_LEAST_ONCE, recording).restore(0, 2, Optional.empty());
    assertThat(lookups).containsExactly("0 0");
  }

  private SourceTasks tasks(Guarantee guarantee, SourceTasks.RoutedOffsets routed) {
    JobSpec job =
        JobSpecLoader.parse(
            JobYaml.named("restore")
                .countsOnly()
                .tumbling(Duration.ofSeconds(10))
                .delay(Duration.ofSeconds(2))
                .neverFinalize()
                .allowedLateness(Duration.ofSeconds(5))
                .guarantee(guarantee)
                .yaml(),
            Map.of());
    return new SourceTasks(
        job,
        1,
        new SimpleMeterRegistry(),
        "n1",
        Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC),
        routed);
  }

  /** The state of a partition whose watermark is at {@code watermarkMs} (one event at +2 s). */
  private byte[] stateWithWatermarkAt(long watermarkMs) {
    SourceTasks first = tasks(Guarantee.AT_LEAST_ONCE, (partition, from, sinceMs) -> Set.of());
    SourcePartitionTask task = first.restore(0, 1, Optional.empty());
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    task.activated(out::add);
    task.process(event(0, watermarkMs + 2_000), out::add);
    task.endOfBatch(out::add);
    return task.snapshot().encode();
  }

  private List<String> lateOffsets() {
    List<String> offsets = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : sent) {
      if (r.topic().equals("restore.late")) {
        offsets.add(
            new String(
                r.headers().lastHeader(SideOutputs.SOURCE_OFFSET_HEADER).value(),
                StandardCharsets.UTF_8));
      }
    }
    return offsets;
  }

  private static ConsumerRecord<byte[], byte[]> event(long offset, long eventTimeMs) {
    byte[] value = ("{\"key\":\"k\",\"ts\":" + eventTimeMs + "}").getBytes(StandardCharsets.UTF_8);
    return new ConsumerRecord<>("events", 0, offset, null, value);
  }
}
