package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.job.Guarantee;
import io.vertx.core.Future;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;

/**
 * The {@code exactly_once} rules, driven through Kafka's mock clients with transactions: a commit
 * covers exactly what was emitted before its snapshot; a failed send aborts and rewinds; a producer
 * fenced at the broker makes the partition be taken over again; a restore takes the checkpoint
 * committed with the input offset even when the store is behind; revocation and stop commit.
 * Checkpoints are triggered by the test ({@link PartitionRuntime#checkpointNow}).
 */
class ExactlyOnceRuntimeTest {

  private static final Duration SLOW_CHECKPOINTS = Duration.ofHours(1);

  private static StageSettings settings() {
    return RuntimeHarness.settings(SLOW_CHECKPOINTS, 1_000).withGuarantee(Guarantee.EXACTLY_ONCE);
  }

  @Test
  void shouldCommitExactlyWhatWasEmittedBeforeTheSnapshot() throws Exception {
    try (RuntimeHarness h = RuntimeHarness.exactlyOnce(false)) {
      // given three records processed whose outputs await acknowledgement in the transaction
      h.append(0, 3);
      h.start(settings());
      h.assign(0);
      await().until(() -> h.task(0).map(t -> t.count == 3).orElse(false));
      await().until(() -> h.transactions.uncommitted(CountingTask.OUT).size() == 3);
      FakeTransactions.Producer producer = h.transactions.latest(0);

      // when a checkpoint starts (its flush waits) and two more records are processed meanwhile
      h.runtime.checkpointNow();
      await().until(producer::flushWaiting);
      h.append(0, 2);
      await().until(() -> h.task(0).orElseThrow().count == 5);

      // then their outputs stay out of the committing transaction
      assertThat(keys(h.transactions.uncommitted(CountingTask.OUT)))
          .containsExactly("0/0/1", "0/1/1", "0/2/1");
      assertThat(h.sent(CountingTask.OUT)).isEmpty();

      // and once the broker acknowledges, the commit covers the snapshot's outputs, its
      // checkpoint record and the input offset 3, nothing more
      await()
          .until(
              () -> {
                producer.completeAll();
                return h.sent(CountingTask.OUT).size() == 3;
              });
      assertThat(keys(h.sent(CountingTask.OUT))).containsExactly("0/0/1", "0/1/1", "0/2/1");
      assertThat(keys(h.sent(CountingTask.ANNOUNCE))).containsExactly("0/1");
      OffsetAndMetadata committed = h.committed(0).orElseThrow();
      assertThat(committed.offset()).isEqualTo(3);
      CommitPointer pointer = CommitPointer.of(committed);
      assertThat(pointer).isNotNull();
      assertThat(pointer.epoch()).isEqualTo(1);
      assertThat(pointer.nextOffset()).isEqualTo(3);
      assertThat(pointer.hasLog()).isTrue();
      List<ProducerRecord<byte[], byte[]>> checkpoints = h.sent(LoggedCheckpointStore.TOPIC);
      assertThat(checkpoints).hasSize(1);
      Checkpoint logged = Checkpoint.decode(checkpoints.get(0).value());
      assertThat(pointer.names(logged)).isTrue();
      assertThat(CountingTask.countIn(logged)).isEqualTo(3);
      await().until(() -> h.checkpoint(0).equals(Optional.of(logged))); // the store's copy

      // and the later outputs go into the next transaction
      await()
          .until(
              () ->
                  keys(h.transactions.uncommitted(CountingTask.OUT))
                      .equals(List.of("0/3/1", "0/4/1")));
    }
  }

  /**
   * The store's copy of a committed checkpoint is only a cache: a store that hangs (a Hazelcast
   * member paused or cut off, as in a cross-process run where every process stalled behind one)
   * must not hold the partition's outputs back.
   */
  @Test
  void shouldKeepCommittingWhileTheStoresCopyHangs() throws Exception {
    try (RuntimeHarness h = RuntimeHarness.exactlyOnce(true)) {
      LoggedCheckpointStore store = (LoggedCheckpointStore) h.store;
      CountDownLatch storeBack = new CountDownLatch(1);
      store.copiesHeldUntil = storeBack;
      h.start(settings());
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));

      // given a committed checkpoint whose copy in the store hangs
      h.append(0, 2);
      await().until(() -> h.task(0).map(t -> t.count == 2).orElse(false));
      h.runtime.checkpointNow();
      await().until(() -> h.sent(CountingTask.OUT).size() == 2);
      await().until(() -> store.copiesStarted.get() == 1);

      // when more records arrive and the next checkpoints commit
      h.append(0, 3);
      await().until(() -> h.task(0).map(t -> t.count == 5).orElse(false));
      h.runtime.checkpointNow();
      await().until(() -> h.sent(CountingTask.OUT).size() == 5);
      h.append(0, 1);
      await().until(() -> h.task(0).map(t -> t.count == 6).orElse(false));
      h.runtime.checkpointNow();

      // then every output is committed with its input offset although the store never answered,
      // and no second copy piles up behind the first
      await().until(() -> h.sent(CountingTask.OUT).size() == 6);
      await().until(() -> h.committed(0).map(c -> c.offset() == 6).orElse(false));
      assertThat(store.copiesStarted.get()).isEqualTo(1);
      assertThat(h.checkpoint(0)).isEmpty();

      // and once the store answers, the next checkpoint's copy lands
      storeBack.countDown();
      h.append(0, 1);
      await().until(() -> h.task(0).map(t -> t.count == 7).orElse(false));
      h.runtime.checkpointNow();
      await().until(() -> h.checkpoint(0).map(cp -> cp.nextOffset() == 7).orElse(false));
      assertThat(h.task(0).orElseThrow().epoch).as("never fenced").isEqualTo(1);
    }
  }

  @Test
  void shouldAbortAndRewindWhenASendFailsAndNeverShowTheAbortedOutputs() throws Exception {
    try (RuntimeHarness h = RuntimeHarness.exactlyOnce(false)) {
      h.start(settings());
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));

      // given two records whose outputs are in the open transaction, one of them lost
      h.append(0, 2);
      await().until(() -> h.transactions.uncommitted(CountingTask.OUT).size() == 2);
      FakeTransactions.Producer first = h.transactions.latest(0);
      first.completeNext(); // the announcement
      first.errorNext(new RecordTooLargeException("refused"));

      // then the partition is taken over again under epoch 2 (a new producer, which fences the
      // first) and replays both records into its own transaction
      await().until(() -> h.tasks.size() == 2 && h.task(0).orElseThrow().count == 2);
      assertThat(h.task(0).orElseThrow().epoch).isEqualTo(2);
      assertThat(h.tasks.get(0).closed).isTrue();
      assertThat(h.registry.get(StageMetrics.REWINDS).counter().count()).isEqualTo(1);
      h.transactions.openGates();
      h.runtime.checkpointNow();
      await().until(() -> h.sent(CountingTask.OUT).size() == 2);

      // and a read_committed reader sees each record's output once, from epoch 2 only
      assertThat(keys(h.sent(CountingTask.OUT))).containsExactly("0/0/2", "0/1/2");
      assertThat(first.transactionCommitted()).isFalse();
      assertThat(h.committed(0).orElseThrow().offset()).isEqualTo(2);
    }
  }

  @Test
  void shouldTakeThePartitionOverAgainWhenTheBrokerFencesItsProducerWhileStillAssigned()
      throws Exception {
    try (RuntimeHarness h = RuntimeHarness.exactlyOnce(true)) {
      h.start(settings());
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
      h.append(0, 2);
      await().until(() -> h.task(0).orElseThrow().count == 2);
      h.runtime.checkpointNow();
      await().until(() -> h.sent(CountingTask.OUT).size() == 2);

      // when a producer of the same transactional id elsewhere initialises (a newer owner that
      // lost the partition again, as after a healed split), and a record arrives
      h.transactions.latest(0).fenceByBroker();
      h.append(0, 1);

      // then its send is refused and the partition fenced; before taking it over again (which
      // would fence the other producer in turn) the group is asked whether it is still ours
      await().until(() -> h.consumer.shouldRebalance());
      Thread.sleep(300);
      assertThat(h.tasks).hasSize(1);

      // and, the group's rebalance leaving it here, it is taken over again from the committed
      // checkpoint under a new epoch
      h.consumer.resetShouldRebalance();
      h.assign(0);
      await().until(() -> h.tasks.size() == 2 && h.task(0).orElseThrow().count == 3);
      CountingTask retaken = h.task(0).orElseThrow();
      assertThat(retaken.epoch).isEqualTo(2);
      assertThat(h.registry.get(StageMetrics.FENCED).counter().count()).isEqualTo(1);
      assertThat(h.registry.get(StageMetrics.REWINDS).counter().count()).isZero();
      h.runtime.checkpointNow();
      await().until(() -> h.sent(CountingTask.OUT).size() == 3);
      assertThat(keys(h.sent(CountingTask.OUT))).containsExactly("0/0/1", "0/1/1", "0/2/2");
    }
  }

  /**
   * The group refuses a transaction's offsets for a stale generation: a rebalance is under way, or
   * this member was paused past its session and dropped. It must not take the partition over again
   * before the group's new assignment is known — a new producer would fence the real owner's — and
   * must not enforce another rebalance (every member committing during one meets this refusal).
   */
  @Test
  void shouldTakeNothingOverWhenOffsetsRefusedForAStaleGenerationAndTheGroupMovedThePartition()
      throws Exception {
    try (RuntimeHarness h = RuntimeHarness.exactlyOnce(true)) {
      FakeTransactions.Producer refused = refuseOffsetsForAStaleGeneration(h);

      // then the transaction is aborted and the partition dropped, not yet taken over again, and
      // no rebalance is forced
      await().until(() -> h.registry.get(StageMetrics.REWINDS).counter().count() == 1);
      Thread.sleep(300);
      assertThat(h.tasks).hasSize(1);
      assertThat(h.consumer.shouldRebalance()).isFalse();
      assertThat(h.registry.get(StageMetrics.FENCED).counter().count()).isZero();

      // and when the group's new assignment leaves the partition elsewhere, nothing is taken over:
      // no new producer fences the real owner's, nothing this member processed is visible
      h.assign();
      Thread.sleep(500);
      assertThat(h.transactions.latest(0)).isSameAs(refused);
      assertThat(h.tasks).hasSize(1);
      assertThat(h.runtime.ownedPartitions()).isEmpty();
      assertThat(h.sent(CountingTask.OUT)).isEmpty();
    }
  }

  @Test
  void shouldRewindOnceTheGroupsNewAssignmentKeepsAPartitionWhoseOffsetsWereRefused()
      throws Exception {
    try (RuntimeHarness h = RuntimeHarness.exactlyOnce(true)) {
      FakeTransactions.Producer refused = refuseOffsetsForAStaleGeneration(h);
      await().until(() -> h.registry.get(StageMetrics.REWINDS).counter().count() == 1);

      // when the rebalance under way ends with the partition still here
      refused.sendOffsetsToTransactionException = null;
      h.assign(0);

      // then it is taken over again from its last commit under a new epoch and replays
      await().until(() -> h.tasks.size() == 2 && h.task(0).orElseThrow().count == 2);
      assertThat(h.task(0).orElseThrow().epoch).isEqualTo(2);
      h.runtime.checkpointNow();
      await().until(() -> h.sent(CountingTask.OUT).size() == 2);
      assertThat(keys(h.sent(CountingTask.OUT))).containsExactly("0/0/2", "0/1/2");
    }
  }

  /** Two records processed, then a checkpoint whose offsets the group refuses. */
  private static FakeTransactions.Producer refuseOffsetsForAStaleGeneration(RuntimeHarness h)
      throws Exception {
    h.start(settings());
    h.assign(0);
    await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
    h.append(0, 2);
    await().until(() -> h.task(0).orElseThrow().count == 2);
    FakeTransactions.Producer producer = h.transactions.latest(0);
    producer.sendOffsetsToTransactionException =
        new CommitFailedException("the group has moved on to a newer generation");
    h.runtime.checkpointNow();
    return producer;
  }

  @Test
  void shouldRestoreTheCommittedCheckpointFromTheTopicWhenTheStoreIsBehind() throws Exception {
    try (RuntimeHarness h = RuntimeHarness.exactlyOnce(true)) {
      LoggedCheckpointStore store = startWithThreeRecordsCommitted(h);

      // given a commit at offset 5 whose copy the store missed (its owner died in between)
      store.dropCopies = true;
      h.append(0, 2);
      await().until(() -> h.task(0).orElseThrow().count == 5);
      h.runtime.checkpointNow();
      await().until(() -> h.committed(0).map(c -> c.offset() == 5).orElse(false));
      assertThat(h.checkpoint(0).orElseThrow().nextOffset()).isEqualTo(3);

      // when the partition is taken over again (a lost send rewinds it)
      h.transactions.latest(0).failTopic(CountingTask.OUT, new RecordTooLargeException("refused"));
      h.append(0, 1);

      // then the new owner restores the committed checkpoint (offset 5, count 5), read back from
      // the checkpoint topic, and replays record 5 only
      await().until(() -> h.tasks.size() == 2 && h.task(0).orElseThrow().count == 6);
      assertThat(store.reads.get()).isEqualTo(1);
      h.runtime.checkpointNow();
      await().until(() -> h.committed(0).map(c -> c.offset() == 6).orElse(false));
      assertThat(keys(h.sent(CountingTask.OUT)))
          .containsExactly("0/0/1", "0/1/1", "0/2/1", "0/3/1", "0/4/1", "0/5/2");
    }
  }

  /**
   * Starts {@code h} with partition 0, and processes and commits its records 0..2: committed at
   * offset 3, and the store's copy of that checkpoint kept.
   */
  private static LoggedCheckpointStore startWithThreeRecordsCommitted(RuntimeHarness h)
      throws Exception {
    LoggedCheckpointStore store = (LoggedCheckpointStore) h.store;
    h.start(settings());
    h.assign(0);
    await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
    h.append(0, 3);
    await().until(() -> h.task(0).orElseThrow().count == 3);
    h.runtime.checkpointNow();
    await().until(() -> h.committed(0).map(c -> c.offset() == 3).orElse(false));
    await().until(() -> h.checkpoint(0).map(cp -> cp.nextOffset() == 3).orElse(false));
    return store;
  }

  /**
   * The store hangs (a Hazelcast member that has not noticed a split, or waits on a frozen member):
   * a take-over does not wait for it. After 3 s it takes the checkpoint the group's pointer names
   * from the checkpoint topic, an epoch above the pointer's, and keeps no copies in the store.
   */
  @Test
  void shouldTakeOverFromTheTopicWhenTheStoreDoesNotAnswer() throws Exception {
    try (RuntimeHarness h = RuntimeHarness.exactlyOnce(true)) {
      LoggedCheckpointStore store = startWithThreeRecordsCommitted(h);

      // given a store that no longer answers
      CountDownLatch hung = new CountDownLatch(1);
      store.answersHeldUntil = hung;
      try {
        // when the partition is taken over again (a lost send rewinds it)
        h.transactions
            .latest(0)
            .failTopic(CountingTask.OUT, new RecordTooLargeException("refused"));
        h.append(0, 1);

        // then the new owner restores the committed checkpoint from the topic under epoch 2,
        // replays record 3, and commits without the store
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> h.tasks.size() == 2 && h.task(0).orElseThrow().count == 4);
        assertThat(h.task(0).orElseThrow().epoch).isEqualTo(2);
        assertThat(store.reads.get()).isEqualTo(1);
        int copies = store.copiesStarted.get();
        h.runtime.checkpointNow();
        await().until(() -> h.committed(0).map(c -> c.offset() == 4).orElse(false));
        assertThat(keys(h.sent(CountingTask.OUT)))
            .containsExactly("0/0/1", "0/1/1", "0/2/1", "0/3/2");
        assertThat(store.copiesStarted.get()).as("copies kept in the store").isEqualTo(copies);
      } finally {
        hung.countDown();
      }
    }
  }

  @Test
  void shouldCommitRevokedPartitionsBeforeGivingThemUp() throws Exception {
    try (RuntimeHarness h = RuntimeHarness.exactlyOnce(true)) {
      h.start(settings());
      h.assign(0, 1);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0, 1)));
      h.append(0, 4);
      await().until(() -> h.task(0).orElseThrow().count == 4);

      // when partition 0 moves elsewhere
      h.assign(1);

      // then its final transaction commits everything it processed, and its producer closes
      await().until(() -> h.committed(0).map(c -> c.offset() == 4).orElse(false));
      assertThat(keys(h.sent(CountingTask.OUT)))
          .containsExactly("0/0/1", "0/1/1", "0/2/1", "0/3/1");
      await().until(() -> h.task(0).orElseThrow().closed);
      await().until(() -> h.transactions.latest(0).closed());
      assertThat(h.transactions.latest(1).closed()).isFalse();
    }
  }

  @Test
  void shouldCommitEverythingAndCloseTheProducersWhenStopped() throws Exception {
    try (RuntimeHarness h = RuntimeHarness.exactlyOnce(true)) {
      h.start(settings());
      h.assign(0);
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
      h.append(0, 2);
      await().until(() -> h.task(0).orElseThrow().count == 2);

      // when
      Future<Void> stopped = h.stop();
      stopped.await(10, TimeUnit.SECONDS);

      // then
      assertThat(h.committed(0).orElseThrow().offset()).isEqualTo(2);
      assertThat(keys(h.sent(CountingTask.OUT))).containsExactly("0/0/1", "0/1/1");
      assertThat(h.transactions.latest(0).closed()).isTrue();
      assertThat(h.consumer.closed()).isTrue();
      assertThat(h.producer.history()).as("no shared producer is used").isEmpty();
    }
  }

  @Test
  void shouldNameTheCommittedCheckpointInTheOffsetsMetadata() {
    CommitPointer withLog = new CommitPointer(3, 1200, 1_700_000_000_000L, 0, 57);
    CommitPointer withoutLog = new CommitPointer(4, 0, 5, -1, -1);

    assertThat(withLog.encode())
        .isEqualTo("skewer-eos/1 epoch=3 next=1200 created=1700000000000 log=0@57");
    assertThat(CommitPointer.of(new OffsetAndMetadata(1200, withLog.encode()))).isEqualTo(withLog);
    assertThat(CommitPointer.of(new OffsetAndMetadata(0, withoutLog.encode())))
        .isEqualTo(withoutLog);
    assertThat(withoutLog.hasLog()).isFalse();
    assertThat(CommitPointer.of(new OffsetAndMetadata(7))).isNull();
    assertThat(CommitPointer.of(new OffsetAndMetadata(7, "someone else's"))).isNull();
    assertThat(CommitPointer.of(null)).isNull();
    assertThat(withLog.names(new Checkpoint(3, 1200, 1_700_000_000_000L, new byte[0]))).isTrue();
    assertThat(withLog.names(new Checkpoint(3, 1200, 1_700_000_000_001L, new byte[0]))).isFalse();
    assertThat(withLog.names(new Checkpoint(2, 1200, 1_700_000_000_000L, new byte[0]))).isFalse();
    assertThat(withLog.fence()).isEqualTo(3);
  }

  @Test
  void shouldKeepTheCheckpointAndRaiseTheFenceInAClaim() {
    CommitPointer found = new CommitPointer(3, 1200, 1_700_000_000_000L, 0, 57);

    // a claim of a found pointer names the same checkpoint, with the claimer's epoch as the fence
    CommitPointer claim = CommitPointer.claimedBy(5, found, 1300);
    assertThat(claim.encode())
        .isEqualTo("skewer-eos/1 epoch=3 next=1200 created=1700000000000 log=0@57 claim=5");
    assertThat(CommitPointer.of(new OffsetAndMetadata(1200, claim.encode()))).isEqualTo(claim);
    assertThat(claim.names(new Checkpoint(3, 1200, 1_700_000_000_000L, new byte[0]))).isTrue();
    assertThat(claim.fence()).isEqualTo(5);

    // without a pointer (or after a claim that named none) the claim names no checkpoint
    CommitPointer fresh = CommitPointer.claimedBy(2, null, 1300);
    assertThat(fresh.namesCheckpoint()).isFalse();
    assertThat(fresh.nextOffset()).isEqualTo(1300);
    assertThat(fresh.fence()).isEqualTo(2);
    assertThat(CommitPointer.of(new OffsetAndMetadata(1300, fresh.encode()))).isEqualTo(fresh);
    assertThat(CommitPointer.claimedBy(3, fresh, 1400))
        .isEqualTo(CommitPointer.claimedBy(3, null, 1400));
    assertThat(fresh.names(new Checkpoint(0, 1300, -1, new byte[0]))).isFalse();
  }

  private static List<String> keys(List<ProducerRecord<byte[], byte[]>> records) {
    return records.stream().map(r -> new String(r.key(), StandardCharsets.UTF_8)).toList();
  }
}
