package dev.skewer.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.hotkey.HotKeyTable;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bugs the model-based test found, each pinned as the smallest history that shows it (the
 * generated seed that found it is named). Every history is played through the real runtimes as in
 * {@link ModelHistoryTest} and must keep every contract of {@link Contracts}.
 */
class RegressionHistoriesTest {

  private static final long NEVER = 3_600_000; // no periodic checkpoint within the history
  private static Vertx vertx;

  @BeforeAll
  static void startVertx() {
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(4));
  }

  @AfterAll
  static void closeVertx() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  /**
   * Found by seeds 4, 5, 6, 12 (and about half of all histories): at end of input every source is
   * idle, and the coordinator closed only through the earliest source's close point, so a window
   * whose events all came from a later source was never written.
   */
  @Test
  void shouldCloseEveryWindowAtEndOfInputWhenSourcesEndInDifferentWindows() throws Exception {
    keepsEveryContract(
        history(
            tumbling(1_000, 0, 0, 2),
            500,
            NEVER,
            false,
            append(
                InputEvent.of(0, 0, "a", 100, 1),
                InputEvent.of(1, 1, "b", 100, 2),
                InputEvent.of(2, 1, "b", 1_500, 3)),
            new Step.End()));
  }

  /**
   * Found by seed 7: a lost send rewound a partition before its first checkpoint; without a
   * checkpoint the new task did not look for the side outputs the first one wrote, and wrote the
   * DLQ record again.
   */
  @Test
  void shouldNotWriteASideOutputTwiceWhenAPartitionIsRewoundBeforeItsFirstCheckpoint()
      throws Exception {
    keepsEveryContract(
        history(
            tumbling(1_000, 0, 0, 1),
            500,
            NEVER,
            false,
            append(InputEvent.of(0, 0, "a", 5_000, 1)),
            new Step.Settle(),
            new Step.Stall(Step.Stage.NODE, 0),
            append(InputEvent.of(1, 0, "a", 100, 2), InputEvent.notJson(2, 0, "a", 5_000)),
            new Step.Release(Step.Stage.NODE, 0, true),
            new Step.End()));
  }

  /**
   * Found by seeds 7 and 104 (before the fix above): the same on a coordinator — without a
   * checkpoint the replay did not know the results already written and wrote revision 0 again, with
   * other content.
   */
  @Test
  void shouldContinueTheRevisionsWhenACoordinatorIsRewoundBeforeItsFirstCheckpoint()
      throws Exception {
    keepsEveryContract(revisedThenRewound(500));
  }

  /**
   * Found by seeds 50, 104, 131: a coordinator's replay passes through the earlier states of a
   * window (poll batches cut elsewhere) and wrote them again as new revisions, so a published
   * result went back to fewer events before catching up.
   */
  @Test
  void shouldNeverRewriteAResultWithFewerEventsWhenACoordinatorReplays() throws Exception {
    keepsEveryContract(revisedThenRewound(1));
  }

  /**
   * Found by seed 73: a lost send rewound a partition while later sends of the same task were still
   * in flight; the new task looked for the side outputs already written before those landed, and
   * wrote the DLQ record again.
   */
  @Test
  void shouldNotWriteASideOutputTwiceWhenARewindRacesTheSendsInFlight() throws Exception {
    keepsEveryContract(
        history(
            tumbling(1_000, 0, 0, 1),
            500,
            5,
            false,
            append(InputEvent.of(0, 0, "a", 5_000, 1)),
            new Step.Settle(),
            new Step.Stall(Step.Stage.NODE, 0),
            append(InputEvent.of(1, 0, "a", 100, 2), InputEvent.notJson(2, 0, "a", 5_000)),
            new Step.Release(Step.Stage.NODE, 0, true, true),
            new Step.End()));
  }

  /**
   * Found by seeds 111 and 245, and fixed on main meanwhile (an idle partition adopts the frontier
   * only at its checkpoints): a node adopted the coordinators' frontier on its ticks, so after a
   * rewind the events between the checkpoint and the adoption were judged against a frontier from
   * later in the input, and events counted the first time also went to the late topic. Here
   * partition 1 goes idle behind partition 0, adopts the frontier, wakes up with a late and an
   * on-time event, and loses a send: its replay decides both as the first pass did.
   */
  @Test
  void shouldJudgeAReplayAgainstTheFrontierOfTheFirstPass() throws Exception {
    for (String lost : List.of(ModelJob.LATE, ModelJob.PARTIALS)) {
      ModelRun.Outcome o =
          keepsEveryContract(
              history(
                  tumbling(1_000, 0, 0, 2),
                  1,
                  5,
                  true,
                  append(InputEvent.of(0, 0, "a", 100, 1), InputEvent.of(1, 1, "b", 100, 1)),
                  new Step.Advance(600),
                  append(InputEvent.of(2, 0, "a", 1_100, 1)),
                  new Step.Advance(600),
                  append(InputEvent.of(3, 0, "a", 2_100, 1)),
                  new Step.Advance(600),
                  append(InputEvent.of(4, 0, "a", 3_100, 1)),
                  new Step.PushFrontier(),
                  new Step.FailNext(Step.Stage.NODE, 0, lost, 0),
                  append(InputEvent.of(5, 1, "b", 500, 1), InputEvent.of(6, 1, "b", 3_500, 1)),
                  new Step.End()));
      assertThat(o.adoptions()).as("partition 1 adopted the frontier").isPositive();
      assertThat(o.late()).as("and judged its wake-up event late by it").isEqualTo(1);
    }
  }

  /**
   * Found by seed 187 (and 10171, 11104, 12307, 13742, 13793, 13912): a coordinator published two
   * sessions of a key, then a late event bridged them and the send of the merged result or of the
   * superseded one was lost; the replay (one poll batch) merged the sessions before ever publishing
   * the later one, so nothing marked that later session superseded: it stayed live, and its events
   * counted twice. The replay now writes superseded every session that was published live and that
   * a session it writes contains.
   */
  @Test
  void shouldSupersedeAPublishedSessionThatAReplayMergesBeforePublishingIt() throws Exception {
    for (int lost = 0; lost < 2; lost++) {
      keepsEveryContract(
          history(
              sessions(100, 5_000),
              500,
              NEVER,
              false,
              append(InputEvent.of(0, 0, "a", 100, 1), InputEvent.of(1, 0, "a", 150, 1)),
              append(InputEvent.of(2, 0, "a", 250, 1)),
              append(InputEvent.of(3, 0, "a", 600, 1)),
              new Step.Settle(),
              new Step.FailNext(Step.Stage.COORDINATOR, 0, ModelJob.RESULTS, lost),
              append(InputEvent.of(4, 0, "a", 200, 1)),
              new Step.End()));
    }
  }

  /**
   * A window closed (revision 0), revised by an event within the allowed lateness (revision 1),
   * then the coordinator loses the send of revision 2 and replays its partition from the start,
   * {@code maxPollRecords} partials per batch.
   */
  private static History revisedThenRewound(int maxPollRecords) {
    return history(
        tumbling(1_000, 0, 5_000, 1),
        maxPollRecords,
        NEVER,
        false,
        append(InputEvent.of(0, 0, "a", 100, 1), InputEvent.of(1, 0, "a", 1_100, 1)),
        new Step.Settle(),
        append(InputEvent.of(2, 0, "a", 200, 1)),
        new Step.Settle(),
        new Step.FailNext(Step.Stage.COORDINATOR, 0, ModelJob.RESULTS, 0),
        append(InputEvent.of(3, 0, "a", 300, 1)),
        new Step.End());
  }

  private static ModelJob tumbling(long sizeMs, long delayMs, long latenessMs, int sources) {
    return new ModelJob(
        ModelJob.Shape.TUMBLING, sizeMs, 0, 0, delayMs, latenessMs, false, sources, 1, 1, 1);
  }

  private static ModelJob sessions(long gapMs, long latenessMs) {
    return new ModelJob(ModelJob.Shape.SESSION, 0, 0, gapMs, 0, latenessMs, false, 1, 1, 1, 1);
  }

  private static History history(
      ModelJob job, int maxPollRecords, long checkpointMs, boolean frontier, Step... steps) {
    return new History(
        0, job, HotKeyTable.EMPTY, maxPollRecords, 1_000, checkpointMs, frontier, List.of(steps));
  }

  private static Step append(InputEvent... events) {
    return new Step.Append(List.of(events));
  }

  private static ModelRun.Outcome keepsEveryContract(History history) throws Exception {
    ModelRun.Outcome o = ModelRun.run(history, vertx);
    assertThat(o.violations()).as(ModelHistoryTest.report(o)).isEmpty();
    return o;
  }
}
