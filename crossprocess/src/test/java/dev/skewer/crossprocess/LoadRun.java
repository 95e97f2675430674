package dev.skewer.crossprocess;

import static org.awaitility.Awaitility.await;

import dev.skewer.core.job.JobSpec;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * A {@link LoadProducer} running a workload on its own thread at a paced rate, so that a test can
 * fail processes mid-stream and wait for progress ({@link #awaitSent}) or the end ({@link
 * #awaitEnd}).
 *
 * <p>The producer is configured to ride out a broker outage of a minute or more: generous delivery,
 * request and blocking timeouts, short reconnect backoff and a 256 MB buffer; its idempotence keeps
 * retried batches from being written twice.
 */
public final class LoadRun implements AutoCloseable {

  static final Duration DELIVERY_TIMEOUT = Duration.ofMinutes(3);

  private final LoadProducer producer;
  private final AtomicLong sent = new AtomicLong();
  private final CompletableFuture<LoadSummary> summary = new CompletableFuture<>();
  private final String threadName;

  private LoadRun(String bootstrap, JobSpec job, ExactReference reference, double rate) {
    String topic = job.topics().events();
    this.producer =
        LoadProducer.builder(bootstrap, topic)
            .job(job)
            .reference(reference)
            .rate(rate)
            .progress(p -> sent.set(p.sent()))
            .producerConfig(
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) DELIVERY_TIMEOUT.toMillis())
            .producerConfig(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000)
            .producerConfig(ProducerConfig.MAX_BLOCK_MS_CONFIG, DELIVERY_TIMEOUT.toMillis())
            .producerConfig(ProducerConfig.BUFFER_MEMORY_CONFIG, 256L * 1024 * 1024)
            .producerConfig(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1_000L)
            .producerConfig(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 1_000L)
            // the reference holds each event once, so the input must too: with more than one
            // request in flight, a restarted broker refuses the retry of a batch it already wrote
            // (it remembers only the last one), the producer bumps its epoch and sends it again —
            // BrokerRestartIT once found 894 events twice in the topic (producer epoch 0, then 1)
            .producerConfig(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1)
            .build();
    this.threadName = "load-" + topic;
  }

  /**
   * Starts sending {@code spec}'s events to the job's events topic at {@code rate} events per
   * second, salting hot keys as the job's hot-key table says.
   */
  public static LoadRun start(
      String bootstrap, JobSpec job, WorkloadSpec spec, ExactReference reference, double rate) {
    return start(bootstrap, job, Workload.of(spec), reference, rate);
  }

  /** Starts sending {@code workload} to the job's events topic at {@code rate} events/s. */
  public static LoadRun start(
      String bootstrap, JobSpec job, Workload workload, ExactReference reference, double rate) {
    LoadRun run = new LoadRun(bootstrap, job, reference, rate);
    Thread t =
        new Thread(
            () -> {
              try {
                run.summary.complete(run.producer.run(workload));
              } catch (Throwable e) {
                run.summary.completeExceptionally(e);
              }
            },
            run.threadName);
    t.setDaemon(true);
    t.start();
    return run;
  }

  /** Events handed to the producer so far (updated about once a second). */
  public long sent() {
    return summary.isDone() && !summary.isCompletedExceptionally()
        ? summary.join().sent()
        : sent.get();
  }

  public boolean finished() {
    return summary.isDone();
  }

  /** Waits until at least {@code events} have been sent (or the run ended). */
  public void awaitSent(long events, Duration timeout) {
    await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> sent() >= events || finished());
  }

  /** Waits for the end of the run (the final flush included) and returns its summary. */
  public LoadSummary awaitEnd(Duration timeout) {
    try {
      return summary.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("the load run failed", e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("the load run did not end within " + timeout, e);
    }
  }

  /** Stops the run if it is still going and closes the producer. */
  @Override
  public void close() {
    producer.stop();
    try {
      summary.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      // closing anyway
    }
    producer.close();
  }
}
