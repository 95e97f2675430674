package dev.skewer.testkit.kafka;

import dev.skewer.core.wire.PartialsMessage;
import dev.skewer.core.wire.Watermark;
import dev.skewer.core.wire.WireCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A running job seen from the outside, for failover timings (the failover bench and the
 * cross-process timing test): every Watermark on the partials topic (per source partition, with the
 * wall-clock time it was read) and when the first result of each window arrived on the results
 * topic. Reads both topics from their end, {@code read_committed} (what readers see), without a
 * consumer group, on its own thread; {@link #close} stops it.
 */
public final class StreamWatch implements AutoCloseable {

  /**
   * A Watermark and when it was read.
   *
   * @param seenMs wall clock when it was read
   * @param watermark the message
   */
  public record Seen(long seenMs, Watermark watermark) {}

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final String partials;
  private final Map<Integer, List<Seen>> watermarks = new ConcurrentHashMap<>();
  private final ConcurrentSkipListMap<Long, Long> firstResultMs = new ConcurrentSkipListMap<>();
  private final Thread thread;
  private volatile boolean closed;
  private volatile Throwable failure;

  public StreamWatch(String bootstrap, String partials, String results) {
    Properties props = TopicReader.readerProps(bootstrap);
    props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20);
    consumer = new KafkaConsumer<>(props);
    this.partials = partials;
    List<TopicPartition> all = new ArrayList<>();
    for (String topic : List.of(partials, results)) {
      consumer
          .partitionsFor(topic, Duration.ofSeconds(30))
          .forEach(i -> all.add(new TopicPartition(topic, i.partition())));
    }
    consumer.assign(all);
    consumer.seekToEnd(all);
    all.forEach(consumer::position); // resolve the end now, not at the first poll
    thread = new Thread(this::run, "stream-watch-" + partials);
    thread.setDaemon(true);
    thread.start();
  }

  /** The Watermarks of {@code sourcePartition} so far, in arrival order. */
  public List<Seen> watermarks(int sourcePartition) {
    check();
    List<Seen> seen = watermarks.get(sourcePartition);
    if (seen == null) {
      return List.of();
    }
    synchronized (seen) {
      return List.copyOf(seen);
    }
  }

  /** The highest (not idle) watermark of {@code sourcePartition} read at or before {@code atMs}. */
  public Optional<Long> watermarkAt(int sourcePartition, long atMs) {
    return watermarks(sourcePartition).stream()
        .filter(s -> s.seenMs() <= atMs && !s.watermark().idle())
        .map(s -> s.watermark().watermarkMs())
        .max(Long::compare);
  }

  /** When the first result of the window starting at {@code windowStartMs} was read. */
  public Optional<Long> firstResult(long windowStartMs) {
    check();
    return Optional.ofNullable(firstResultMs.get(windowStartMs));
  }

  /** The first window starting at or after {@code windowStartMs} with a result, and when. */
  public Optional<Map.Entry<Long, Long>> firstResultFrom(long windowStartMs) {
    check();
    return Optional.ofNullable(firstResultMs.ceilingEntry(windowStartMs));
  }

  /** Every window start with a result so far → when its first result was read. */
  public Map<Long, Long> firstResults() {
    check();
    return Map.copyOf(firstResultMs);
  }

  private void check() {
    if (failure != null) {
      throw new IllegalStateException("the stream watch failed", failure);
    }
  }

  @Override
  public void close() {
    closed = true;
    consumer.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    try {
      while (!closed) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          long now = System.currentTimeMillis();
          if (r.topic().equals(partials)) {
            PartialsMessage m = WireCodec.decode(r.value());
            if (m instanceof Watermark w) {
              List<Seen> seen =
                  watermarks.computeIfAbsent(w.sourcePartition(), k -> new ArrayList<>());
              synchronized (seen) {
                seen.add(new Seen(now, w));
              }
            }
          } else if (r.key() != null) {
            String key = new String(r.key(), StandardCharsets.UTF_8);
            long windowStart = Long.parseLong(key.substring(key.lastIndexOf('@') + 1));
            firstResultMs.putIfAbsent(windowStart, now);
          }
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      failure = e;
    } finally {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }
}
