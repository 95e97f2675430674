package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.core.checkpoint.Saved;
import dev.skewer.testkit.checkpoint.GatedCheckpointStore;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;

/**
 * The runtime's rules, driven through Kafka's mock clients: take-over and restore, rewind after a
 * lost send, fencing and retake, revocation during a restore, checkpoints never ahead of
 * acknowledged output, stop during a checkpoint, back-pressure and bounded retries.
 */
class PartitionRuntimeTest {

  private static final Duration SLOW_CHECKPOINTS = Duration.ofHours(1);
  private static final TopicPartition IN_0 = new TopicPartition(RuntimeHarness.IN, 0);

  @Test
  void shouldRestoreFromTheCheckpointAndResumeAtItsOffsetWhenAssigned() throws Exception {
    // given a checkpoint of partition 0 at offset 3 with 3 records counted
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    store.nextEpoch("test/in/0");
    store.save("test/in/0", new Checkpoint(1, 3, 0, CountingTask.bytes("")));
    store.save("test/in/0", new Checkpoint(1, 3, 0, state(3)));
    try (RuntimeHarness h = new RuntimeHarness(true, store)) {
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000));

      // when it is assigned and records 0..5 exist
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
      h.append(0, 6);

      // then it counts from the checkpoint on: records 3, 4, 5 only, under epoch 2
      await().until(() -> h.task(0).orElseThrow().count == 6);
      assertThat(keys(h.sent(CountingTask.OUT))).containsExactly("0/3/2", "0/4/2", "0/5/2");
      assertThat(keys(h.sent(CountingTask.ANNOUNCE))).containsExactly("0/2");
      assertThat(h.runtime.readiness().ready()).isTrue();
    }
  }

  @Test
  void shouldReportReadyAsSoonAsEveryAssignedPartitionIsOwnedNotAtTheNextTick() throws Exception {
    try (RuntimeHarness h = new RuntimeHarness(true)) {
      // ticks an hour apart: only the take-over itself can change what the runtime reports
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000, Duration.ofHours(1)));
      assertThat(h.runtime.readiness().ready()).isFalse();

      h.assign(0, 1);

      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0, 1)));
      await().until(() -> h.runtime.readiness().ready());
      assertThat(h.runtime.readiness().detail()).contains("2 partitions");
    }
  }

  @Test
  void shouldRewindToTheLastCheckpointWhenASendIsLost() throws Exception {
    try (RuntimeHarness h = new RuntimeHarness(false)) {
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000));
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));

      // given two records sent and one of them lost by the broker
      h.append(0, 2);
      await().until(() -> h.sent(CountingTask.OUT).size() == 2);
      h.producer.completeNext(); // the announcement
      h.producer.errorNext(new RecordTooLargeException("refused"));
      h.producer.completeNext();

      // then the partition is taken over again under a new epoch and replays from offset 0
      await().until(() -> h.tasks.size() == 2 && h.task(0).orElseThrow().count == 2);
      CountingTask replay = h.task(0).orElseThrow();
      assertThat(replay.epoch).isEqualTo(2);
      assertThat(h.tasks.get(0).closed).isTrue();
      await().until(() -> keys(h.sent(CountingTask.OUT)).contains("0/1/2"));
      assertThat(keys(h.sent(CountingTask.OUT)))
          .containsExactly("0/0/1", "0/1/1", "0/0/2", "0/1/2");
      assertThat(h.registry.get(StageMetrics.REWINDS).counter().count()).isEqualTo(1);
    }
  }

  @Test
  void shouldNeverStoreACheckpointBeforeItsOutputIsAcknowledged() throws Exception {
    try (RuntimeHarness h = new RuntimeHarness(false)) {
      h.start(RuntimeHarness.settings(Duration.ofMillis(100), 1_000));
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));

      // given three records processed whose outputs are not acknowledged
      h.append(0, 3);
      await().until(() -> h.sent(CountingTask.OUT).size() == 3);

      // when several checkpoint intervals pass
      Thread.sleep(400);

      // then no checkpoint covers them yet; once acknowledged, one does
      assertThat(h.checkpoint(0)).isEmpty();
      h.producer.completeAll();
      await().until(() -> h.checkpoint(0).map(cp -> cp.nextOffset() == 3).orElse(false));
      assertThat(CountingTask.countIn(h.checkpoint(0).orElseThrow())).isEqualTo(3);
    }
  }

  @Test
  void shouldNotStoreACheckpointCoveringALostRecordAndShouldReplayIt() throws Exception {
    try (RuntimeHarness h = new RuntimeHarness(false)) {
      h.start(RuntimeHarness.settings(Duration.ofMillis(100), 1_000));
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
      h.append(0, 2);
      await().until(() -> h.sent(CountingTask.OUT).size() == 2);
      h.producer.completeAll();
      await().until(() -> h.checkpoint(0).map(cp -> cp.nextOffset() == 2).orElse(false));

      // when the next record's output is lost
      h.append(0, 1);
      await().until(() -> h.sent(CountingTask.OUT).size() == 3);
      h.producer.errorNext(new RecordTooLargeException("refused"));

      // then no checkpoint ever claims offset 3 under the old epoch; the replay re-emits record 2
      await().until(() -> keys(h.sent(CountingTask.OUT)).contains("0/2/2"));
      assertThat(h.checkpoint(0).orElseThrow().epoch()).isEqualTo(1);
      assertThat(h.checkpoint(0).orElseThrow().nextOffset()).isEqualTo(2);
      h.producer.completeAll();
      await()
          .until(
              () ->
                  h.checkpoint(0).map(cp -> cp.epoch() == 2 && cp.nextOffset() == 3).orElse(false));
      assertThat(CountingTask.countIn(h.checkpoint(0).orElseThrow())).isEqualTo(3);
    }
  }

  /**
   * A member cut off from its Hazelcast cluster answers from an island: no checkpoint and epoch 1,
   * although the group committed offset 3 after a checkpoint of epoch 1. The take-over must not
   * replay under its predecessor's epoch nor from scratch: it fails (the partition counts as
   * failing) until the store is back, then restores that checkpoint under an epoch above 1.
   */
  @Test
  void shouldNotTakeOverFromACheckpointStoreBehindTheCommittedOffset() throws Exception {
    // given a checkpoint of epoch 1 at offset 3 that the group committed, in a store now cut off
    IslandStore store = new IslandStore();
    store.shared.nextEpoch("test/in/0");
    store.shared.save("test/in/0", new Checkpoint(1, 3, 7, state(3)));
    FakeTransactions transactions = new FakeTransactions(true);
    transactions.committedOffsets.put(
        new TopicPartition(RuntimeHarness.IN, 0),
        new OffsetAndMetadata(3, new CommitPointer(1, 3, 7, -1, -1).encode()));
    store.cutOff = true;
    try (RuntimeHarness h = new RuntimeHarness(true, transactions, store)) {
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000));

      // when the partition is assigned while the store is cut off
      h.assign(0);
      h.append(0, 5);

      // then it is not taken over, and counts as failing
      await().until(() -> !h.runtime.readiness().ready() && store.islandLoads.get() >= 1);
      assertThat(h.tasks).isEmpty();
      assertThat(h.sent(CountingTask.OUT)).isEmpty();

      // and once the store is back, it resumes at the committed checkpoint under epoch 2
      store.cutOff = false;
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> h.task(0).map(t -> t.count == 5).orElse(false));
      assertThat(h.task(0).orElseThrow().epoch).isEqualTo(2);
      assertThat(keys(h.sent(CountingTask.OUT))).containsExactly("0/3/2", "0/4/2");
    }
  }

  /**
   * Both members holding a checkpoint died before Hazelcast made new backups: the store has none
   * (and hands out epoch 1 again), although the group committed offset 3 after a checkpoint of
   * epoch 1 whose copy is at 0@57 in the checkpoint topic. The take-over reads it back from there
   * and resumes at offset 3 under epoch 2, instead of refusing the store forever.
   */
  @Test
  void shouldReadTheCommittedCheckpointBackFromTheTopicWhenTheStoreLostIt() throws Exception {
    // given a store that lost the checkpoint the group's offset names, and the topic's copy of it
    IslandStore store = new IslandStore();
    store.topic.put(57L, new Checkpoint(1, 3, 7, state(3)));
    store.cutOff = true;
    try (RuntimeHarness h = new RuntimeHarness(true, store)) {
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000));
      h.commitInGroup(0, new OffsetAndMetadata(3, new CommitPointer(1, 3, 7, 0, 57).encode()));

      // when the partition is assigned
      h.assign(0);
      h.append(0, 5);

      // then it resumes from the topic's copy under epoch 2
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> h.task(0).map(t -> t.count == 5).orElse(false));
      assertThat(h.task(0).orElseThrow().epoch).isEqualTo(2);
      assertThat(keys(h.sent(CountingTask.OUT))).containsExactly("0/3/2", "0/4/2");
      assertThat(store.reads).hasValue(1);
      assertThat(h.runtime.readiness().ready()).isTrue();
    }
  }

  /**
   * A member whose store is an island hands out epochs its cluster has used already (here 2, while
   * the group's last claim is epoch 3). The take-over takes an epoch above the group's claim, and
   * commits its own claim — same checkpoint, epoch 4 — before it processes anything.
   */
  @Test
  void shouldTakeAnEpochAboveTheGroupsClaimAndClaimIt() throws Exception {
    // given the store's checkpoint of epoch 1 at offset 3, and epoch 3's claim of it in the group
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    store.nextEpoch("test/in/0");
    store.save("test/in/0", new Checkpoint(1, 3, 7, state(3)));
    try (RuntimeHarness h = new RuntimeHarness(true, store)) {
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000));
      h.commitInGroup(0, new OffsetAndMetadata(3, new CommitPointer(1, 3, 7, 0, 57, 3).encode()));

      // when the partition is assigned
      h.assign(0);
      h.append(0, 5);

      // then it is processed under epoch 4, and the group holds epoch 4's claim
      await().until(() -> h.task(0).map(t -> t.count == 5).orElse(false));
      assertThat(h.task(0).orElseThrow().epoch).isEqualTo(4);
      assertThat(keys(h.sent(CountingTask.OUT))).containsExactly("0/3/4", "0/4/4");
      assertThat(CommitPointer.of(h.consumer.committed(Set.of(IN_0)).get(IN_0)))
          .isEqualTo(new CommitPointer(1, 3, 7, 0, 57, 4));
    }
  }

  /**
   * The group refuses the claim (this member is not in its current generation): nothing of the
   * partition is processed, it counts as failing, and once the group accepts the claim it is taken
   * over.
   */
  @Test
  void shouldProcessNothingWhileTheGroupRefusesTheClaim() throws Exception {
    try (RuntimeHarness h = new RuntimeHarness(true)) {
      // given a group that refuses this member's commits
      h.consumer.refuseCommits(
          new CommitFailedException("the group has moved to a newer generation"));
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000));

      // when the partition is assigned
      h.assign(0);
      h.append(0, 3);

      // then nothing is processed, and the partition counts as failing
      await().atMost(Duration.ofSeconds(20)).until(() -> !h.runtime.readiness().ready());
      assertThat(h.sent(CountingTask.OUT)).isEmpty();
      assertThat(h.tasks).allMatch(t -> t.count == 0);

      // and once the group accepts it, the partition is taken over and processed
      h.consumer.refuseCommits(null);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> h.task(0).map(t -> t.count == 3).orElse(false));
      assertThat(keys(h.sent(CountingTask.OUT))).hasSize(3);
      assertThat(CommitPointer.of(h.consumer.committed(Set.of(IN_0)).get(IN_0)).fence())
          .isEqualTo(h.task(0).orElseThrow().epoch);
    }
  }

  /** A shared store that can be cut off: then it answers from an empty island of its own. */
  static final class IslandStore implements CheckpointStore {
    final InMemoryCheckpointStore shared = new InMemoryCheckpointStore();
    final InMemoryCheckpointStore island = new InMemoryCheckpointStore();
    final AtomicInteger islandLoads = new AtomicInteger();
    final Map<Long, Checkpoint> topic = new ConcurrentHashMap<>(); // offset -> copy in "Kafka"
    final AtomicInteger reads = new AtomicInteger();
    volatile boolean cutOff;

    private CheckpointStore now() {
      return cutOff ? island : shared;
    }

    @Override
    public long nextEpoch(String id) {
      return now().nextEpoch(id);
    }

    @Override
    public long currentEpoch(String id) {
      return now().currentEpoch(id);
    }

    @Override
    public Optional<Checkpoint> load(String id) {
      if (cutOff) {
        islandLoads.incrementAndGet();
      }
      return now().load(id);
    }

    @Override
    public Saved save(String id, Checkpoint checkpoint) {
      return now().save(id, checkpoint);
    }

    @Override
    public Optional<Checkpoint> read(String id, int partition, long offset) {
      reads.incrementAndGet();
      return Optional.ofNullable(topic.get(offset));
    }

    @Override
    public boolean outlivesProcesses() {
      return true;
    }
  }

  @Test
  void shouldTakeThePartitionOverAgainWhenFencedWhileStillAssigned() throws Exception {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    try (RuntimeHarness h = new RuntimeHarness(true, store)) {
      h.start(RuntimeHarness.settings(Duration.ofMillis(100), 1_000));

      // when another owner takes epoch 2 and stores its own checkpoint (offset 1, count 1)
      fenceAfterTwoCheckpointedRecords(h, store);

      // then our next checkpoint is refused (fenced) and, since the partition still looks
      // assigned here, the group is asked before anything is taken over
      await().until(() -> h.consumer.shouldRebalance());
      assertThat(h.registry.get(StageMetrics.FENCED).counter().count()).isEqualTo(1);
      Thread.sleep(300);
      assertThat(h.tasks).hasSize(1);

      // and when the group's rebalance leaves the partition here, it is taken over again under
      // epoch 3 from the other owner's checkpoint
      h.consumer.resetShouldRebalance();
      h.assign(0);
      await().until(() -> h.tasks.size() == 2 && h.task(0).orElseThrow().activated);
      CountingTask retaken = h.task(0).orElseThrow();
      assertThat(retaken.epoch).isEqualTo(3);
      await().until(() -> retaken.count == 2); // replayed offset 1 on top of count 1
      assertThat(keys(h.sent(CountingTask.OUT))).containsExactly("0/0/1", "0/1/1", "0/1/3");
      assertThat(h.registry.get(StageMetrics.FENCED).counter().count()).isEqualTo(1);
      // the first owner heard of each stored checkpoint before its next snapshot, and never of
      // the refused one
      List<String> calls = h.tasks.get(0).checkpointCalls;
      assertThat(calls).hasSizeGreaterThanOrEqualTo(3).endsWith("checkpointed", "snapshot");
      for (int i = 0; i < calls.size(); i++) {
        assertThat(calls.get(i)).isEqualTo(i % 2 == 0 ? "snapshot" : "checkpointed");
      }
    }
  }

  @Test
  void shouldTakeNothingOverWhenTheGroupNoLongerAssignsAFencedPartition() throws Exception {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    try (RuntimeHarness h = new RuntimeHarness(true, store)) {
      h.start(RuntimeHarness.settings(Duration.ofMillis(100), 1_000));

      // when this member was paused past its session and the group gave the partition to another
      // owner, which took epoch 2: this member's next checkpoint is refused
      long other = fenceAfterTwoCheckpointedRecords(h, store);
      await().until(() -> h.consumer.shouldRebalance());

      // and the group's answer is that the partition is no longer this member's
      h.assign();

      // then it takes nothing over: the other owner's epoch stays the newest, nothing more is
      // restored or sent, and the partition is not counted as failing
      Thread.sleep(500);
      assertThat(h.tasks).hasSize(1);
      assertThat(h.tasks.get(0).closed).isTrue();
      assertThat(h.runtime.ownedPartitions()).isEmpty();
      assertThat(store.load("test/in/0").orElseThrow().epoch()).isEqualTo(other);
      assertThat(store.nextEpoch("test/in/0")).isEqualTo(other + 1);
      assertThat(keys(h.sent(CountingTask.OUT))).containsExactly("0/0/1", "0/1/1");
      assertThat(h.runtime.readiness().ready()).isTrue();
    }
  }

  @Test
  void shouldTakeAFencedPartitionOverAgainWhenTheGroupDoesNotAnswerWithinTheRevokeTimeout()
      throws Exception {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    try (RuntimeHarness h = new RuntimeHarness(true, store)) {
      StageSettings s = RuntimeHarness.settings(Duration.ofMillis(100), 1_000);
      h.start(
          new StageSettings(
              s.stage(),
              s.instanceId(),
              s.inputTopic(),
              s.checkpointPrefix(),
              s.startFromLatest(),
              s.maxPendingRecords(),
              s.tickInterval(),
              s.checkpointInterval(),
              s.pollTimeout(),
              Duration.ofSeconds(1)));

      // when it is fenced and the group never answers the rebalance it asks for (a consumer
      // protocol that does not support enforced rebalances)
      fenceAfterTwoCheckpointedRecords(h, store);
      await().until(() -> h.consumer.shouldRebalance());

      // then, after the revoke timeout, the partition it still believes assigned is taken over
      // again rather than left unowned
      await().until(() -> h.tasks.size() == 2 && h.task(0).orElseThrow().activated);
      assertThat(h.task(0).orElseThrow().epoch).isEqualTo(3);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
    }
  }

  /**
   * Partition 0 assigned, two records processed and checkpointed (epoch 1); then another owner
   * takes epoch 2 and stores its own checkpoint (offset 1, count 1). Returns that owner's epoch.
   */
  private static long fenceAfterTwoCheckpointedRecords(
      RuntimeHarness h, InMemoryCheckpointStore store) {
    h.assign(0);
    await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
    h.append(0, 2);
    await().until(() -> h.checkpoint(0).map(cp -> cp.nextOffset() == 2).orElse(false));
    long other = store.nextEpoch("test/in/0");
    store.save("test/in/0", new Checkpoint(other, 1, 0, state(1)));
    return other;
  }

  @Test
  void shouldGiveUpItsPartitionsAndStopPollingWhenAnotherProcessTookItsInstanceId()
      throws Exception {
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    try (RuntimeHarness h = new RuntimeHarness(true, store)) {
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000));
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
      h.append(0, 2);
      await().until(() -> h.task(0).orElseThrow().count == 2);

      // when the group fences this member: another one joined with its group.instance.id
      h.consumer.setPollException(new FencedInstanceIdException("instance id taken"));

      // then the partition is dropped as lost (no checkpoint: it is someone else's now) and the
      // consumer is closed instead of polling again and again
      await().until(() -> h.runtime.ownedPartitions().isEmpty());
      await().until(() -> h.consumer.closed());
      assertThat(h.tasks.get(0).closed).isTrue();
    }
  }

  @Test
  void shouldRunTheAfterBatchHookOnTheEventLoopOnceEachBatchIsProcessed() throws Exception {
    AtomicInteger counted = new AtomicInteger(-1);
    AtomicBoolean offLoop = new AtomicBoolean();
    try (RuntimeHarness h = new RuntimeHarness(true)) {
      h.afterBatch =
          () -> {
            offLoop.compareAndSet(false, !Context.isOnEventLoopThread());
            counted.set(h.task(0).map(t -> (int) t.count).orElse(-1));
          };
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000));
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));

      // when records come, in one batch and then another
      h.append(0, 4);
      // then the hook sees them processed, on the event loop
      await().until(() -> counted.get() == 4);
      h.append(0, 3);
      await().until(() -> counted.get() == 7);
      assertThat(offLoop).isFalse();
    }
  }

  @Test
  void shouldDiscardARestoreWhenThePartitionIsRevokedMeanwhile() throws Exception {
    CountDownLatch restoring = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    try (RuntimeHarness h = new RuntimeHarness(true)) {
      h.start(
          RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000),
          (p, epoch, cp) -> {
            if (p == 0) {
              restoring.countDown();
              finish.await(10, TimeUnit.SECONDS);
            }
            return CountingTask.restore(p, epoch, cp);
          });
      h.assign(0, 1);
      assertThat(restoring.await(10, TimeUnit.SECONDS)).isTrue();

      // when partition 0 is revoked while its restore is still running
      h.assign(1);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(1)));
      finish.countDown();

      // then the restored task is closed, never activated, and its partition stays unowned
      await().until(() -> h.task(0).map(t -> t.closed).orElse(false));
      assertThat(h.task(0).orElseThrow().activated).isFalse();
      h.append(1, 2);
      await().until(() -> h.task(1).orElseThrow().count == 2);
      assertThat(h.runtime.ownedPartitions()).containsExactly(1);
      assertThat(keys(h.sent(CountingTask.ANNOUNCE))).containsExactly("1/1");
    }
  }

  @Test
  void shouldFinishTakingAnEpochBeforeARevocationCompletesSoTheNextOwnerTakesAHigherOne()
      throws Exception {
    InMemoryCheckpointStore shared = new InMemoryCheckpointStore();
    GatedCheckpointStore store = new GatedCheckpointStore(shared, id -> id.equals("test/in/0"));
    AtomicLong nextOwners = new AtomicLong();
    try (RuntimeHarness h = new RuntimeHarness(true, store)) {
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000));
      h.assign(0, 1);
      assertThat(store.awaitWaiting(Duration.ofSeconds(10))).isTrue();

      // when partition 0 is revoked while its take-over is taking an epoch, and the group gives
      // it to the next owner (another process on the same store) once the revocation is done
      h.assign(() -> nextOwners.set(shared.nextEpoch("test/in/0")), 1);
      Thread.sleep(300);
      assertThat(nextOwners.get()).as("the revocation waits for the epoch being taken").isZero();
      store.open();

      // then the next owner's epoch is above the one this member took: it is not fenced by it
      await().until(() -> nextOwners.get() > 0);
      await().until(() -> h.task(0).map(t -> t.closed).orElse(false));
      assertThat(h.task(0).orElseThrow().epoch).isEqualTo(1);
      assertThat(h.task(0).orElseThrow().activated).isFalse();
      assertThat(nextOwners.get()).isEqualTo(2);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(1)));
    }
  }

  @Test
  void shouldCheckpointRevokedPartitionsBeforeGivingThemUp() throws Exception {
    try (RuntimeHarness h = new RuntimeHarness(true)) {
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000));
      h.assign(0, 1);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0, 1)));
      h.append(0, 4);
      await().until(() -> h.task(0).orElseThrow().count == 4);

      // when partition 0 moves elsewhere
      h.assign(1);

      // then its final checkpoint covers everything it processed
      await().until(() -> h.checkpoint(0).map(cp -> cp.nextOffset() == 4).orElse(false));
      assertThat(CountingTask.countIn(h.checkpoint(0).orElseThrow())).isEqualTo(4);
      await().until(() -> h.task(0).orElseThrow().closed);
    }
  }

  @Test
  void shouldFinishTheCheckpointInFlightThenCheckpointEverythingWhenStopped() throws Exception {
    try (RuntimeHarness h = new RuntimeHarness(false)) {
      h.start(RuntimeHarness.settings(Duration.ofMillis(100), 1_000));
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
      h.append(0, 2);
      await().until(() -> h.sent(CountingTask.OUT).size() == 2);
      Thread.sleep(300); // a periodic checkpoint is now waiting for those acknowledgements

      // when the runtime is stopped during that checkpoint, with one more record processed
      h.append(0, 1);
      await().until(() -> h.sent(CountingTask.OUT).size() == 3);
      Future<Void> stopped = h.stop();
      Thread.sleep(200);
      assertThat(stopped.isComplete()).isFalse();
      h.producer.completeAll();

      // then the stop completes after a final checkpoint of everything processed
      stopped.await(10, TimeUnit.SECONDS);
      assertThat(h.checkpoint(0).orElseThrow().nextOffset()).isEqualTo(3);
      assertThat(CountingTask.countIn(h.checkpoint(0).orElseThrow())).isEqualTo(3);
      assertThat(h.producer.closed()).isTrue();
      assertThat(h.consumer.closed()).isTrue();
      assertThat(h.task(0).orElseThrow().closed).isTrue();
    }
  }

  @Test
  void shouldEncodeASnapshotOffTheEventLoopWhileThePartitionsRecordsWait() throws Exception {
    try (RuntimeHarness h = new RuntimeHarness(true)) {
      encodesOffTheEventLoop(h);
    }
  }

  @Test
  void shouldEncodeASnapshotOffTheEventLoopWithExactlyOnce() throws Exception {
    try (RuntimeHarness h = RuntimeHarness.exactlyOnce(true)) {
      encodesOffTheEventLoop(h);
    }
  }

  /**
   * While partition 0's snapshot is encoded (held on a gate), the event loop goes on with partition
   * 1 (records and ticks) and calls nothing of task 0; partition 0's records fetched meanwhile wait
   * and are processed in order afterwards; the checkpoint holds the state of its own offset.
   */
  private static void encodesOffTheEventLoop(RuntimeHarness h) throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    h.start(
        RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000),
        (p, epoch, cp) -> {
          CountingTask t = CountingTask.restore(p, epoch, cp);
          if (p == 0) {
            t.encodeGate = gate;
          }
          return t;
        });
    h.assign(0, 1);
    await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0, 1)));
    h.append(0, 5);
    h.append(1, 5);
    CountingTask zero = h.task(0).orElseThrow();
    CountingTask one = h.task(1).orElseThrow();
    await().until(() -> zero.count == 5 && one.count == 5);

    // given partition 0's snapshot captured at offset 5 and its encoding held, with 3 more of its
    // records fetched by the consumer as the capture ran (before the partition could be held)
    zero.onCapture =
        () -> {
          h.append(0, 3);
          await().until(() -> h.consumer.describe(IN_0).contains("position 8"));
        };
    h.runtime.checkpointNow();
    await().until(() -> zero.encoding);
    int zeroTicks = zero.ticks;
    int oneTicks = one.ticks;

    // when more records come for partition 1
    h.append(1, 3);

    // then partition 1 goes on (records and ticks) while partition 0's records wait
    await().until(() -> one.count == 8 && one.ticks > oneTicks + 2);
    assertThat(zero.count).isEqualTo(5);
    assertThat(zero.ticks).isEqualTo(zeroTicks);
    assertThat(zero.encoding).isTrue();

    // and once the encoding is done they are processed, in order, and the checkpoint is stored
    gate.countDown();
    await().until(() -> zero.count == 8);
    assertThat(zero.callsWhileEncoding).isEmpty();
    assertThat(zero.encodedOn).doesNotContain("eventloop");
    assertThat(keys(h.sent(CountingTask.OUT)).stream().filter(k -> k.startsWith("0/")))
        .containsExactly("0/0/1", "0/1/1", "0/2/1", "0/3/1", "0/4/1", "0/5/1", "0/6/1", "0/7/1");
    await().until(() -> h.checkpoint(0).map(cp -> cp.nextOffset() == 5).orElse(false));
    assertThat(CountingTask.countIn(h.checkpoint(0).orElseThrow())).isEqualTo(5);
    await().until(() -> zero.ticks > zeroTicks);
  }

  @Test
  void shouldTakeNoNewBatchWhileTooManyRecordsAwaitAcknowledgement() throws Exception {
    try (RuntimeHarness h = new RuntimeHarness(false)) {
      h.start(RuntimeHarness.settings(SLOW_CHECKPOINTS, 3));
      h.consumer.setMaxPollRecords(5);
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));

      // when 20 records wait on the broker and none of the outputs is acknowledged
      h.append(0, 20);
      await()
          .untilAsserted(
              () -> assertThat(h.task(0).orElseThrow().count).as(h.describe(0)).isGreaterThan(4));
      Thread.sleep(300);

      // then at most the batches in flight are processed (two credits of 5 records each)
      long processed = h.task(0).orElseThrow().count;
      assertThat(processed).isLessThanOrEqualTo(10);
      assertThat(h.task(0).orElseThrow().lastSilentMs).isZero(); // held back is not silent

      // and once acknowledgements come, everything is processed
      while (h.task(0).orElseThrow().count < 20) {
        h.producer.completeAll();
        Thread.sleep(20);
      }
      assertThat(h.task(0).orElseThrow().count).isEqualTo(20);
    }
  }

  @Test
  void shouldRetryAPersistentlyFailingPartitionWithAGrowingDelayAndReportItNotReady()
      throws Exception {
    try (RuntimeHarness h = new RuntimeHarness(true)) {
      h.start(RuntimeHarness.settings(Duration.ofMillis(100), 1_000));
      h.assign(0);
      await().until(() -> h.runtime.readiness().ready());

      // when every output of the partition is refused
      h.producer.failTopic(CountingTask.OUT, new RecordTooLargeException("refused"));
      h.append(0, 1);

      // then it is rewound, then retried with a delay, and reported failing (not ready)
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  !h.runtime.readiness().ready()
                      && h.runtime.readiness().detail().contains("failing"));
      Thread.sleep(1_500);
      double rewinds = h.registry.get(StageMetrics.REWINDS).counter().count();
      assertThat(rewinds).isBetween(2.0, 4.0); // no fast loop: 0 s, 1 s, 2 s, 4 s ... apart

      // and once the broker accepts the outputs again, it recovers and becomes ready
      h.producer.failTopic(null, null);
      await().atMost(Duration.ofSeconds(30)).until(() -> h.runtime.readiness().ready());
      assertThat(h.checkpoint(0).orElseThrow().nextOffset()).isEqualTo(1);
    }
  }

  @Test
  void shouldRewindAPartitionWhoseTaskThrows() throws Exception {
    AtomicInteger created = new AtomicInteger();
    try (RuntimeHarness h = new RuntimeHarness(true)) {
      h.start(
          RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000),
          (p, epoch, cp) -> {
            CountingTask t = CountingTask.restore(p, epoch, cp);
            if (created.getAndIncrement() == 0) {
              t.failOnProcess = new IllegalStateException("a bug");
            }
            return t;
          });
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
      h.append(0, 2);

      // then the second task (epoch 2) processes both records
      await().until(() -> h.tasks.size() == 2 && h.task(0).orElseThrow().count == 2);
      assertThat(h.task(0).orElseThrow().epoch).isEqualTo(2);
    }
  }

  private static byte[] state(long count) {
    return ByteBuffer.allocate(8).putLong(count).array();
  }

  private static List<String> keys(List<ProducerRecord<byte[], byte[]>> records) {
    return records.stream().map(r -> new String(r.key(), StandardCharsets.UTF_8)).toList();
  }

  @SuppressWarnings("unused")
  private static Optional<Checkpoint> none(CheckpointStore s) {
    return Optional.empty();
  }
}
