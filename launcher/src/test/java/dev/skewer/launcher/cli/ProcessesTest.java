package dev.skewer.launcher.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.kafka.MissingTopicException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The start-up steps that overlap: one runs in the background, the next waits for it. */
class ProcessesTest {

  @Test
  void shouldRunAStepOnAThreadOfItsOwnWhileTheCallerGoesOnAndHandBackItsResult() throws Exception {
    CountDownLatch callerWentOn = new CountDownLatch(1);
    List<String> threads = new CopyOnWriteArrayList<>();
    CompletableFuture<Integer> step =
        Processes.inBackground(
            "kafka",
            () -> {
              threads.add(Thread.currentThread().getName());
              assertThat(callerWentOn.await(10, TimeUnit.SECONDS)).isTrue();
              return 4;
            });

    assertThat(step).isNotDone(); // it waits for the caller, which is not blocked by it
    callerWentOn.countDown();
    int partitions = Processes.await(step, () -> threads.add("closed"));

    assertThat(partitions).isEqualTo(4);
    assertThat(threads).containsExactly("skewer-start-up-kafka");
  }

  @Test
  void shouldThrowTheStepsOwnFailureAfterClosingWhatStartedMeanwhileInOrder() {
    MissingTopicException missing =
        new MissingTopicException(List.of("a", "b"), "needed by this process");
    CompletableFuture<Void> step =
        Processes.inBackground(
            "kafka",
            () -> {
              throw missing;
            });
    List<String> closed = new CopyOnWriteArrayList<>();

    assertThatThrownBy(
            () ->
                Processes.await(
                    step,
                    () -> closed.add("eviction"),
                    null,
                    () -> {
                      closed.add("member");
                      throw new IllegalStateException("a failing close is only logged");
                    }))
        .isSameAs(missing);
    assertThat(closed).containsExactly("eviction", "member");
  }
}
