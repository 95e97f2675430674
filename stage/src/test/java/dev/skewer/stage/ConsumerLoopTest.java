package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The poll loop's commands against a consumer that treats wakeups as the real one does: a wakeup
 * makes the blocking call in progress (or the next one) throw, once, and a poll with nothing to
 * return waits its whole timeout.
 */
class ConsumerLoopTest {

  private static final String TOPIC = "events";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

  private final Vertx vertx = Vertx.vertx();
  private ConsumerLoop loop;

  @AfterEach
  void tearDown() throws Exception {
    if (loop != null) {
      loop.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void shouldRunACommandHitByAnotherCommandsWakeupAgainAtOnceNotAfterAPollTimeout()
      throws Exception {
    WakeupHonouringConsumer consumer = new WakeupHonouringConsumer();
    // a poll with nothing to return waits this long: a command left for after a poll would wait it
    Duration pollTimeout = Duration.ofSeconds(60);
    loop =
        new ConsumerLoop(
            consumer,
            TOPIC,
            vertx.getOrCreateContext(),
            new IgnoringHandler(),
            pollTimeout,
            Duration.ofSeconds(10),
            "test-poll");
    loop.start();

    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch secondSubmitted = new CountDownLatch(1);
    AtomicInteger firstAttempts = new AtomicInteger();
    List<String> ran = new CopyOnWriteArrayList<>();
    Future<Map<TopicPartition, OffsetAndMetadata>> first =
        loop.submit(
            c -> {
              firstAttempts.incrementAndGet();
              firstRunning.countDown();
              await(secondSubmitted);
              // blocking, as the offset fetch of a take-over is: the second submit's wakeup hits it
              Map<TopicPartition, OffsetAndMetadata> committed =
                  c.committed(Set.of(TP), Duration.ofSeconds(5));
              ran.add("first");
              return committed;
            });
    assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
    Future<String> second =
        loop.submit(
            c -> {
              ran.add("second");
              return "second";
            });
    secondSubmitted.countDown();

    // both well within the poll timeout: the hit command ran again at once
    first.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    assertThat(second.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS))
        .isEqualTo("second");
    assertThat(firstAttempts).hasValue(2); // the wakeup did hit it: the case under test happened
    assertThat(consumer.wakeupsThrownByCommittedCalls()).isEqualTo(1);
    assertThat(ran).containsExactly("first", "second"); // still in the order submitted
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Wakeups as the real consumer's: thread-safe, spent by the one call they make throw. */
  private static final class WakeupHonouringConsumer extends MockConsumer<byte[], byte[]> {
    private final Object lock = new Object();
    private boolean wakeup;
    private int wakeupsThrownByCommitted;

    WakeupHonouringConsumer() {
      super("earliest");
    }

    @Override
    public void wakeup() {
      synchronized (lock) {
        wakeup = true;
        lock.notifyAll();
      }
    }

    private void throwIfWokenUp() {
      synchronized (lock) {
        if (wakeup) {
          wakeup = false;
          throw new WakeupException();
        }
      }
    }

    int wakeupsThrownByCommittedCalls() {
      synchronized (lock) {
        return wakeupsThrownByCommitted;
      }
    }

    /** Nothing to return: waits the whole timeout unless woken up. */
    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      synchronized (lock) {
        while (!wakeup) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return ConsumerRecords.empty();
          }
          try {
            TimeUnit.NANOSECONDS.timedWait(lock, left);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ConsumerRecords.empty();
          }
        }
      }
      throwIfWokenUp();
      return ConsumerRecords.empty();
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(
        Set<TopicPartition> partitions, Duration timeout) {
      try {
        throwIfWokenUp();
      } catch (WakeupException e) {
        synchronized (lock) {
          wakeupsThrownByCommitted++;
        }
        throw e;
      }
      return super.committed(partitions, timeout);
    }
  }

  private static final class IgnoringHandler implements ConsumerLoop.Handler {
    @Override
    public void assigned(Set<Integer> partitions) {}

    @Override
    public Future<Void> revoked(Set<Integer> partitions) {
      return Future.succeededFuture();
    }

    @Override
    public void lost(Set<Integer> partitions) {}

    @Override
    public void records(
        ConsumerRecords<byte[], byte[]> records, Map<Integer, Integer> generations) {}

    @Override
    public void pollFailed(RuntimeException e) {}
  }
}
