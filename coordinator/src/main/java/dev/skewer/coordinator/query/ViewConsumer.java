package dev.skewer.coordinator.query;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds a {@link ResultsView} and a {@link SideOutputStats} from the results, late and DLQ topics:
 * one consumer on its own thread, every partition assigned (no group, nothing committed), reading
 * committed records only. Every topic is read from its beginning: the results topic because it is
 * the compacted upsert log the view is rebuilt from (a window straddling any later starting point
 * would be held partially), the late and DLQ topics because they are counted, not held. Partitions
 * added later are read from their beginning too. When the consumer fails it is recreated and
 * continues from the positions it had reached (nothing is read twice). Once the records present at
 * start have been read, the view is marked {@linkplain ResultsView#markCaughtUp() caught up}.
 *
 * <p>Cost: the start-up read grows with the results topic (one record per key and window ever
 * written, as compaction keeps it); a topic retention bounds it (docs/api.md).
 */
public final class ViewConsumer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ViewConsumer.class);
  private static final long METADATA_REFRESH_MS = 30_000;

  private final JobSpec job;
  private final KafkaSettings kafka;
  private final String clientId;
  private final ResultsView view;
  private final ResultParser parser;
  private final SideOutputStats side;
  private final ResultHandoff handoff; // null: every result is parsed
  private final Clock clock;
  private final Thread thread;
  private final CountDownLatch caughtUp = new CountDownLatch(1);
  private volatile boolean stopping;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile long malformed;
  private volatile long parsed; // written by the consumer thread only
  // the next offset to read per partition, kept across consumer restarts (consumer thread only)
  private final Map<TopicPartition, Long> positions = new HashMap<>();

  /**
   * @param handoff the results this process's coordinator wrote, taken instead of parsing their
   *     records again (null: parse every record)
   */
  public ViewConsumer(
      JobSpec job,
      KafkaSettings kafka,
      String clientId,
      ResultsView view,
      SideOutputStats side,
      ResultHandoff handoff,
      Clock clock) {
    this.handoff = handoff;
    this.job = job;
    this.kafka = kafka;
    this.clientId = clientId;
    this.view = view;
    this.parser = new ResultParser(job);
    this.side = side;
    this.clock = clock;
    this.thread = new Thread(this::run, "skewer-query-view-" + clientId);
    this.thread.setDaemon(true);
  }

  /** Starts the consumer thread. */
  public ViewConsumer start() {
    thread.start();
    return this;
  }

  /** Waits until the records present at start have been read (for tests and start-up). */
  public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
    return caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Result records parsed (not handed over by this process's coordinator). */
  public long parsed() {
    return parsed;
  }

  /** Result records this process's coordinator handed over, so not parsed. */
  public long handedOver() {
    return handoff == null ? 0 : handoff.taken();
  }

  /** Records that were not result envelopes of this job. */
  public long malformed() {
    return malformed;
  }

  private void run() {
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig(null));
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    config.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    config.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
    long lastWarnMs = 0;
    while (!stopping) {
      try (KafkaConsumer<byte[], byte[]> c =
          new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
        consumer = c;
        if (stopping) {
          return;
        }
        Set<TopicPartition> assigned = new HashSet<>();
        Map<TopicPartition, Long> startEnd = assign(c, assigned);
        if (caughtUp.getCount() == 0) {
          startEnd = null; // a restarted consumer: the view was complete already
        }
        long nextRefresh = clock.millis() + METADATA_REFRESH_MS;
        while (!stopping) {
          ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(100));
          for (ConsumerRecord<byte[], byte[]> r : records) {
            apply(r);
            positions.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
          }
          if (startEnd != null && caughtUp(c, startEnd)) {
            startEnd = null;
            view.markCaughtUp();
            caughtUp.countDown();
            LOG.info(
                "query view caught up: {} windows, {} results read ({} handed over by this"
                    + " coordinator), {} late, {} DLQ",
                view.windows().size(),
                view.records(),
                handedOver(),
                side.late(),
                side.dlq());
          }
          if (clock.millis() >= nextRefresh) {
            assign(c, assigned);
            nextRefresh = clock.millis() + METADATA_REFRESH_MS;
          }
        }
      } catch (WakeupException e) {
        return;
      } catch (RuntimeException e) {
        if (stopping) {
          return;
        }
        long now = clock.millis();
        if (now - lastWarnMs > 30_000) {
          LOG.warn("query view consumer failed; restarting it in 1 s", e);
          lastWarnMs = now;
        }
        try {
          Thread.sleep(1_000); // back-off before reconnecting, not synchronisation
        } catch (InterruptedException ie) {
          return;
        }
      }
    }
  }

  private boolean caughtUp(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> ends) {
    for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
      if (c.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Assigns the partitions not yet assigned, each from the position reached before a restart or
   * else from its beginning, and returns their end offsets now (what "caught up" is measured
   * against on the first call).
   */
  private Map<TopicPartition, Long> assign(
      KafkaConsumer<byte[], byte[]> c, Set<TopicPartition> assigned) {
    List<TopicPartition> fresh = new ArrayList<>();
    for (String topic : List.of(job.topics().results(), job.topics().late(), job.topics().dlq())) {
      for (TopicPartition tp : partitions(c, topic)) {
        if (!assigned.contains(tp)) {
          fresh.add(tp);
        }
      }
    }
    if (fresh.isEmpty()) {
      return Map.of();
    }
    if (!assigned.isEmpty()) {
      LOG.info("query view reads new partitions {}", fresh);
    }
    assigned.addAll(fresh);
    c.assign(assigned);
    List<TopicPartition> fromBeginning = new ArrayList<>();
    for (TopicPartition tp : fresh) {
      Long position = positions.get(tp);
      if (position == null) {
        fromBeginning.add(tp);
      } else {
        c.seek(tp, position);
      }
    }
    c.seekToBeginning(fromBeginning);
    return new HashMap<>(c.endOffsets(fresh));
  }

  private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c, String topic) {
    List<TopicPartition> out = new ArrayList<>();
    List<PartitionInfo> infos = c.partitionsFor(topic);
    if (infos != null) {
      for (PartitionInfo p : infos) {
        out.add(new TopicPartition(topic, p.partition()));
      }
    }
    return out;
  }

  private void apply(ConsumerRecord<byte[], byte[]> r) {
    String topic = r.topic();
    if (topic.equals(job.topics().results())) {
      if (r.value() == null) {
        return; // a tombstone: nothing the view holds is removed by the upsert log
      }
      StoredResult result =
          handoff == null ? null : handoff.take(r.partition(), r.offset(), r.value());
      if (result == null) {
        try {
          result = parser.parse(r.value());
          parsed++;
        } catch (IllegalArgumentException e) {
          malformed++;
          return;
        }
      }
      view.add(result, clock.millis(), r.timestamp());
    } else if (topic.equals(job.topics().late())) {
      side.onLate(r.value(), r.headers(), r.timestamp());
    } else if (topic.equals(job.topics().dlq())) {
      side.onDlq(r.headers(), r.timestamp());
    }
  }

  @Override
  public void close() {
    stopping = true;
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
