package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.testkit.checkpoint.GatedCheckpointStore;
import dev.skewer.testkit.time.ManualClock;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a take-over tells the operator: what it waits on, its steps so far, how long it took. */
class TakeOverLogTest {

  private CapturedLog log;

  @BeforeEach
  void capture() {
    log = new CapturedLog(PartitionOwnership.class, Level.DEBUG);
  }

  @AfterEach
  void release() {
    log.close();
  }

  @Test
  void shouldNameTheStepASlowTakeOverWaitsOnWithTheStepsItFinishedAndTheirDurations()
      throws Exception {
    GatedCheckpointStore store =
        new GatedCheckpointStore(new InMemoryCheckpointStore(), id -> id.equals("test/in/0"));
    ManualClock clock = new ManualClock(System.currentTimeMillis());
    try (RuntimeHarness h = new RuntimeHarness(true, store)) {
      h.clock = clock;
      h.start(RuntimeHarness.settings(Duration.ofHours(1), 1_000));
      h.assign(0);
      assertThat(store.awaitWaiting(Duration.ofSeconds(10))).isTrue();

      // when the take-over has waited on the store for longer than the slow threshold
      clock.advance(PartitionOwnership.SLOW_TAKE_OVER_MS + 1_000);

      // then the warning names what it waits on, and the steps it finished with their durations
      await().until(() -> !log.messages(Level.WARN).isEmpty());
      assertThat(log.messages(Level.WARN))
          .anySatisfy(
              m ->
                  assertThat(m)
                      .containsPattern("partition=0: taking it over has taken 1\\d{4} ms so far")
                      .containsPattern(
                          "waiting on: taking an epoch from the store \\(after: waiting to"
                              + " restore \\d+ ms, reading the offset committed in the consumer"
                              + " group \\d+ ms\\)$"));

      // and once the store answers, the partition is owned: the line says how long it took, and
      // at DEBUG every step with its duration
      store.open();
      await().until(() -> h.runtime.ownedPartitions().equals(Set.of(0)));
      await()
          .until(
              () ->
                  log.messages(Level.DEBUG).stream().anyMatch(m -> m.contains("take-over steps")));
      assertThat(log.messages(Level.INFO))
          .anySatisfy(
              m ->
                  assertThat(m)
                      .containsPattern(
                          "partition=0 epoch=1 owned, resuming at offset 0 \\(no checkpoint\\),"
                              + " taken over in 1\\d{4} ms$"));
      assertThat(log.messages(Level.DEBUG))
          .anySatisfy(
              m ->
                  assertThat(m)
                      .containsPattern(
                          "partition=0 take-over steps: waiting to restore \\d+ ms, reading the"
                              + " offset committed in the consumer group \\d+ ms, taking an epoch"
                              + " from the store \\d+ ms, loading the checkpoint from the store"
                              + " \\d+ ms, creating its task \\d+ ms, seeking to the start \\d+ ms, committing its claim in"
                              + " the consumer group \\d+ ms$"));
    }
  }
}
