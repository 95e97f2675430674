package dev.skewer.node.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.wire.PartialsMessage;
import dev.skewer.core.wire.Watermark;
import dev.skewer.core.wire.WireCodec;
import dev.skewer.stage.PartitionActivity;
import dev.skewer.testkit.job.JobYaml;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The idle partition's frontier adoption: a frontier is used and announced only once the checkpoint
 * holding it is stored, so a rewind to an earlier checkpoint can never undo a decision (the open
 * model history of seed 958: events routed late against a frontier whose checkpoint was refused,
 * then accepted by the replay for windows the coordinators had already dropped).
 */
class SourcePartitionTaskTest {

  private static final long NOW_MS = 1_000_000;
  private static final long FRONTIER_MS = 200_000;

  private final JobSpec job =
      JobSpecLoader.parse(
          JobYaml.named("adopt")
              .countsOnly()
              .tumbling(Duration.ofSeconds(10))
              .delay(Duration.ofSeconds(2))
              .idle(Duration.ofSeconds(5))
              .neverFinalize()
              .allowedLateness(Duration.ofSeconds(5))
              .yaml(),
          Map.of());
  private final SourceTasks tasks =
      new SourceTasks(
          job,
          1,
          new SimpleMeterRegistry(),
          "n1",
          Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC),
          (partition, from, sinceMs) -> Set.of());
  private final List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();

  /** An idle partition with one event at 100 s (own watermark 98 s); the frontier is 200 s. */
  private SourcePartitionTask idlePartition() {
    SourcePartitionTask task = tasks.restore(0, 1, Optional.empty());
    task.activated(sent::add);
    task.process(event(0, 100_000), sent::add);
    task.endOfBatch(sent::add);
    task.tick(new PartitionActivity(NOW_MS, 6_000), sent::add);
    assertThat(task.idle()).isTrue();
    tasks.frontierMs(FRONTIER_MS);
    return task;
  }

  @Test
  void shouldNeitherUseNorAnnounceAnAdoptedFrontierBeforeItsCheckpointIsStored() {
    SourcePartitionTask task = idlePartition();
    sent.clear();

    byte[] state = task.snapshot().encode();
    task.process(event(1, 150_000), sent::add); // the partition wakes while the checkpoint is saved
    task.endOfBatch(sent::add);
    task.tick(new PartitionActivity(NOW_MS, 0), sent::add);

    assertThat(task.aggregator().effectiveWatermarkMs()).isEqualTo(98_000);
    assertThat(sent).as("nothing is routed or announced yet").isEmpty();
    // the checkpoint holds the adopted frontier: a replay from it judges by 200 s
    assertThat(restored(state).aggregator().frontierMs()).isEqualTo(FRONTIER_MS);

    task.checkpointed(sent::add);

    assertThat(task.aggregator().frontierMs()).isEqualTo(FRONTIER_MS);
    assertThat(topics()).contains(job.topics().late());
    assertThat(lateness()).contains(FRONTIER_MS);
    assertThat(task.idle()).as("the event woke it").isFalse();
  }

  @Test
  void shouldLeaveNoTraceOfAnAdoptionWhoseCheckpointWasRefused() {
    SourcePartitionTask task = idlePartition();
    byte[] before = task.aggregator().snapshot(); // the last stored checkpoint
    sent.clear();

    task.snapshot(); // adopts 200 s ...
    task.process(event(1, 150_000), sent::add);
    task.endOfBatch(sent::add);
    task.close(); // ... but the store refused it: the runtime rewinds

    assertThat(sent).isEmpty();
    SourcePartitionTask replay = restored(before);
    replay.activated(sent::add);
    replay.process(event(1, 150_000), sent::add);
    replay.endOfBatch(sent::add);
    assertThat(topics()).doesNotContain(job.topics().late());
    assertThat(lateness()).isNotEmpty().allMatch(ms -> ms < FRONTIER_MS);
    assertThat(replay.aggregator().effectiveWatermarkMs()).isEqualTo(148_000);
  }

  @Test
  void shouldAnnounceTheAdoptionOnceStoredWhenNothingArrived() {
    SourcePartitionTask task = idlePartition();
    sent.clear();

    task.snapshot();
    task.tick(new PartitionActivity(NOW_MS, 7_000), sent::add);
    assertThat(sent).isEmpty();
    task.checkpointed(sent::add);

    assertThat(lateness()).containsOnly(FRONTIER_MS);
    assertThat(task.idle()).isTrue();
    // the next checkpoint has nothing new to adopt
    task.snapshot();
    sent.clear();
    task.checkpointed(sent::add);
    assertThat(sent).isEmpty();
  }

  @Test
  void shouldNotAdoptWhenConsuming() {
    SourcePartitionTask task = tasks.restore(0, 1, Optional.empty());
    task.process(event(0, 100_000), sent::add);
    task.endOfBatch(sent::add);
    tasks.frontierMs(FRONTIER_MS);

    task.snapshot();
    task.checkpointed(sent::add);

    assertThat(task.aggregator().frontierMs()).isEqualTo(Long.MIN_VALUE);
  }

  private SourcePartitionTask restored(byte[] state) {
    return tasks.restore(0, 2, Optional.of(new Checkpoint(1, 1, NOW_MS, state)));
  }

  private static ConsumerRecord<byte[], byte[]> event(long offset, long eventTimeMs) {
    byte[] value = ("{\"key\":\"k\",\"ts\":" + eventTimeMs + "}").getBytes(StandardCharsets.UTF_8);
    return new ConsumerRecord<>("events", 0, offset, null, value);
  }

  private List<String> topics() {
    return sent.stream().map(ProducerRecord::topic).toList();
  }

  /** The lateness watermarks announced on the partials topic. */
  private List<Long> lateness() {
    List<Long> out = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : sent) {
      if (r.topic().equals(job.topics().partials())) {
        PartialsMessage m = WireCodec.decode(r.value());
        if (m instanceof Watermark w) {
          out.add(w.watermarkMs());
        }
      }
    }
    return out;
  }
}
