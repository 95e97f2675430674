package dev.skewer.crossprocess;

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
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Watches a running job from the outside for timing measurements: every Watermark on the partials
 * topic (per source partition, with the wall-clock time it was read) and the first arrival of a
 * result per window start. Reads from the end of both topics at start, without a consumer group, on
 * its own thread; {@link #close} stops it.
 */
final class StreamWatcher implements AutoCloseable {

  /**
   * One Watermark as seen by the watcher.
   *
   * @param seenMs wall clock when it was read
   * @param watermark the message
   */
  record Seen(long seenMs, Watermark watermark) {}

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final String partials;
  private final Map<Integer, List<Seen>> watermarks = new ConcurrentHashMap<>();
  private final ConcurrentSkipListMap<Long, Long> firstResultMs = new ConcurrentSkipListMap<>();
  private final Thread thread;
  private volatile boolean closed;

  StreamWatcher(String bootstrap, String partials, String results) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"); // what readers see
    this.consumer = new KafkaConsumer<>(props);
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
    this.thread = new Thread(this::run, "stream-watcher-" + partials);
    thread.setDaemon(true);
    thread.start();
  }

  /** The Watermarks of {@code sourcePartition} seen so far, in arrival order. */
  List<Seen> watermarks(int sourcePartition) {
    List<Seen> seen = watermarks.get(sourcePartition);
    if (seen == null) {
      return List.of();
    }
    synchronized (seen) {
      return List.copyOf(seen);
    }
  }

  /** The highest watermark of {@code sourcePartition} seen at or before {@code atMs}. */
  Optional<Long> watermarkAt(int sourcePartition, long atMs) {
    return watermarks(sourcePartition).stream()
        .filter(s -> s.seenMs() <= atMs && !s.watermark().idle())
        .map(s -> s.watermark().watermarkMs())
        .max(Long::compare);
  }

  /** When the first result of the window starting at {@code windowStartMs} arrived. */
  Optional<Long> firstResult(long windowStartMs) {
    return Optional.ofNullable(firstResultMs.get(windowStartMs));
  }

  /** When the first result of a window starting at or after {@code windowStartMs} arrived. */
  Optional<Map.Entry<Long, Long>> firstResultFrom(long windowStartMs) {
    return Optional.ofNullable(firstResultMs.ceilingEntry(windowStartMs));
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
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
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
    } finally {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }
}
