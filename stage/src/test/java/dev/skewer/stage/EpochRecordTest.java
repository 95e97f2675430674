package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.core.checkpoint.TakenEpoch;
import dev.skewer.testkit.checkpoint.ForwardingCheckpointStore;
import dev.skewer.testkit.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A take-over's epoch is written to the store's durable copy (the checkpoint topic) while the new
 * owner restores, seeks and claims; the owner processes nothing before that record is written, and
 * a record that cannot be written fails the take-over, which is retried with a new epoch.
 */
class EpochRecordTest {

  private CapturedLog log;

  @BeforeEach
  void capture() {
    log = new CapturedLog(PartitionOwnership.class, Level.INFO);
  }

  @AfterEach
  void release() {
    log.close();
  }

  @Test
  void shouldRestoreSeekAndClaimWhileTheEpochIsRecordedAndProcessNothingBeforeIt()
      throws Exception {
    DeferredRecords store = new DeferredRecords();
    ManualClock clock = new ManualClock(System.currentTimeMillis());
    try (RuntimeHarness h = new RuntimeHarness(true, store)) {
      h.clock = clock;
      h.start(RuntimeHarness.settings(Duration.ofHours(1), 1_000));
      h.append(0, 3);
      h.assign(0);
      CompletableFuture<Void> record = store.records.poll(10, TimeUnit.SECONDS);
      assertThat(record).as("the take-over took an epoch").isNotNull();

      // when the take-over has come as far as it can without the epoch's record: the slow
      // take-over warning (given when the clock has moved 10 s since the last one) names the step
      // it waits on and those it finished
      await()
          .untilAsserted(
              () -> {
                clock.advance(PartitionOwnership.SLOW_TAKE_OVER_MS + 1_000);
                assertThat(log.messages(Level.WARN))
                    .anyMatch(
                        m ->
                            m.contains(
                                "waiting on: waiting for its epoch's record in the checkpoint"
                                    + " topic"));
              });

      // then it restored its task, sought and claimed, and processed nothing
      assertThat(log.messages(Level.WARN))
          .anySatisfy(
              m ->
                  assertThat(m)
                      .containsPattern(
                          "creating its task \\d+ ms, seeking to the start \\d+ ms, committing"
                              + " its claim in the consumer group \\d+ ms\\)$"));
      assertThat(h.runtime.ownedPartitions()).isEmpty();
      assertThat(h.task(0)).hasValueSatisfying(t -> assertThat(t.activated).isFalse());
      assertThat(h.task(0).get().count).isZero();
      assertThat(h.sent(CountingTask.OUT)).isEmpty();

      // and once the record is written, it owns the partition and processes its records
      record.complete(null);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
      await()
          .untilAsserted(() -> assertThat(h.sent(CountingTask.OUT)).as(h.describe(0)).hasSize(3));
      assertThat(keys(h)).containsExactly("0/0/1", "0/1/1", "0/2/1");
    }
  }

  @Test
  void shouldTakeThePartitionOverAgainWithANewEpochWhenTheEpochCannotBeRecorded() throws Exception {
    DeferredRecords store = new DeferredRecords();
    try (RuntimeHarness h = new RuntimeHarness(true, store)) {
      h.start(RuntimeHarness.settings(Duration.ofHours(1), 1_000));
      h.append(0, 2);
      h.assign(0);

      // when the first epoch's record fails
      CompletableFuture<Void> first = store.records.poll(10, TimeUnit.SECONDS);
      assertThat(first).isNotNull();
      first.completeExceptionally(new KafkaException("the checkpoint topic refused it"));

      // then the take-over fails with the store's error, nothing is processed under epoch 1, and
      // the next take-over, with epoch 2, owns the partition once its record is written
      CompletableFuture<Void> second = store.records.poll(10, TimeUnit.SECONDS);
      assertThat(second).as("the take-over was tried again").isNotNull();
      assertThat(store.currentEpoch("test/in/0")).isEqualTo(2);
      assertThat(h.runtime.ownedPartitions()).isEmpty();
      assertThat(h.sent(CountingTask.OUT)).isEmpty();
      assertThat(log.events())
          .filteredOn(
              e ->
                  e.getLevel() == Level.ERROR
                      && e.getFormattedMessage().contains("could not take partition 0"))
          .singleElement()
          .satisfies(
              e ->
                  assertThat(e.getThrowableProxy().getMessage())
                      .isEqualTo("the checkpoint topic refused it"));
      second.complete(null);
      await()
          .untilAsserted(() -> assertThat(h.sent(CountingTask.OUT)).as(h.describe(0)).hasSize(2));
      assertThat(keys(h)).containsExactly("0/0/2", "0/1/2");
      assertThat(h.tasks).filteredOn(t -> t.epoch == 1).allMatch(t -> !t.activated);
    }
  }

  private static List<String> keys(RuntimeHarness h) {
    return h.sent(CountingTask.OUT).stream()
        .map(r -> new String(r.key(), StandardCharsets.UTF_8))
        .toList();
  }

  /** An in-memory store whose epochs' records are written when the test says so. */
  private static final class DeferredRecords extends ForwardingCheckpointStore {

    final BlockingQueue<CompletableFuture<Void>> records = new LinkedBlockingQueue<>();

    DeferredRecords() {
      super(new InMemoryCheckpointStore());
    }

    @Override
    public TakenEpoch takeEpoch(String id) {
      CompletableFuture<Void> record = new CompletableFuture<>();
      TakenEpoch taken = new TakenEpoch(delegate.nextEpoch(id), record);
      records.add(record);
      return taken;
    }
  }
}
