package dev.skewer.loadgen.produce;

import dev.skewer.core.hotkey.HotKeyFollower;
import dev.skewer.core.hotkey.HotKeySource;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.core.hotkey.SaltRouter;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.loadgen.partition.EventPartitioner;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.loadgen.workload.Workload;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a {@link Workload} to a topic with a plain idempotent {@link KafkaProducer} at a target
 * rate, with hot-key salting on by default.
 *
 * <p>Salting on ({@link Builder#salting}, the default): the hot-key table comes from a supplied
 * {@link HotKeySource} ({@link Builder#hotKeys}) or else from a {@link HotKeyFollower} of the job's
 * compacted hot-key topic ({@link Builder#job} or {@link Builder#hotKeysTopic}). A hot key's
 * records get the record key {@code key#i}, the salts {@code i} taken round-robin per key, and go
 * to the partition {@link SaltRouter} computes, which is exactly where {@code SaltingPartitioner}
 * would send them; cold keys keep their record key and Kafka's default partition. Salting off:
 * every record to {@link EventPartitioner}'s partition of its record key, as before. Either way the
 * record is sent to an explicit partition, which is handed to the reference.
 *
 * <p>{@link #run} blocks until the workload ends or {@link #stop} is called, then flushes and
 * returns a {@link LoadSummary}; run it on its own thread. Each sent event is fed, in send order,
 * to the optional {@link ExactReference} on the sending thread, with the partition it was sent to.
 * Progress is reported on the sending thread at most once per second and once at the end.
 *
 * <p>The record timestamp is the event time for NORMAL and LATE events and the wall clock for
 * MALFORMED and FUTURE ones (a broker rejects timestamps more than an hour ahead by default).
 *
 * <p>One {@code run} at a time; {@link #stop} may be called from any thread.
 *
 * <p>Implementation note: pacing schedules event {@code i} at {@code start + i / rate} and parks
 * when ahead; when more than a second behind it forgets the debt rather than bursting.
 */
public final class LoadProducer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LoadProducer.class);
  public static final long DEFAULT_LINGER_MS = 5;
  public static final int DEFAULT_BATCH_BYTES = 128 * 1024;
  private static final long REPORT_INTERVAL_NS = 1_000_000_000L;
  private static final long MAX_DEBT_NS = 1_000_000_000L;

  private final String topic;
  private final KafkaProducer<byte[], byte[]> producer;
  private final int partitions;
  private final double ratePerSecond;
  private final ExactReference reference;
  private final Consumer<Progress> progress;
  private final HotKeySource hotKeys;
  private final HotKeyFollower follower;
  private final SaltRouter router;
  private final Map<String, int[]> nextSalt = new HashMap<>();
  private long salted;
  private volatile boolean stopped;

  private LoadProducer(Builder b) {
    this.topic = b.topic;
    this.ratePerSecond = b.ratePerSecond;
    this.reference = b.reference;
    this.progress = b.progress;
    this.router = new SaltRouter(b.separator);
    if (b.salting && b.hotKeys == null && b.hotKeysTopic == null) {
      throw new IllegalStateException(
          "salting follows the job's hot-key topic: call job(...) or hotKeysTopic(...), or turn"
              + " salting off");
    }
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap);
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    config.put(ProducerConfig.LINGER_MS_CONFIG, DEFAULT_LINGER_MS);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, DEFAULT_BATCH_BYTES);
    config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L * 1024 * 1024);
    config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 1024 * 1024);
    config.put(ProducerConfig.CLIENT_ID_CONFIG, "skewer-loadgen");
    config.putAll(b.overrides);
    this.producer = new KafkaProducer<>(config);
    HotKeyFollower started = null;
    try {
      this.partitions = producer.partitionsFor(topic).size();
      if (!b.salting) {
        this.hotKeys = null;
      } else if (b.hotKeys != null) {
        this.hotKeys = b.hotKeys;
      } else {
        started = HotKeyFollower.start(followerConfig(b), b.hotKeysTopic);
        this.hotKeys = started;
      }
      this.follower = started;
      if (reference != null && reference.partitions() != partitions) {
        throw new IllegalArgumentException(
            "reference simulates "
                + reference.partitions()
                + " partitions but topic "
                + topic
                + " has "
                + partitions);
      }
    } catch (RuntimeException | Error e) {
      // nothing was sent: close at once, or the producer's network thread goes on retrying the
      // broker and logging after the caller has reported the error
      producer.close(Duration.ZERO);
      if (started != null) {
        started.close();
      }
      throw e;
    }
  }

  /** The hot-key follower's consumer: the producer's broker and security settings. */
  private static Map<String, Object> followerConfig(Builder b) {
    Map<String, Object> consumer = new HashMap<>();
    consumer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap);
    b.overrides.forEach(
        (k, v) -> {
          if (k.equals(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG)
              || k.startsWith("sasl.")
              || k.startsWith("ssl.")) {
            consumer.put(k, v);
          }
        });
    consumer.put(ProducerConfig.CLIENT_ID_CONFIG, "skewer-loadgen-hotkeys");
    return consumer;
  }

  /** A builder for a producer sending to {@code topic} on {@code bootstrap}. */
  public static Builder builder(String bootstrap, String topic) {
    return new Builder(bootstrap, topic);
  }

  /** The topic's partition count, looked up once at construction. */
  public int partitions() {
    return partitions;
  }

  /** Sends {@code workload} until it ends or {@link #stop} is called; flushes; summarises. */
  public LoadSummary run(Workload workload) {
    stopped = false;
    long[] byKind = new long[4];
    AtomicLong failed = new AtomicLong();
    AtomicReference<Exception> firstError = new AtomicReference<>();
    long startNs = System.nanoTime();
    long scheduleStartNs = startNs;
    long scheduled = 0;
    long sent = 0;
    long lastReportNs = startNs;
    long lastReportSent = 0;
    double nsPerEvent = ratePerSecond > 0 ? 1e9 / ratePerSecond : 0;
    while (!stopped && workload.hasNext()) {
      if (nsPerEvent > 0) {
        long dueNs = scheduleStartNs + (long) (scheduled * nsPerEvent);
        long now = System.nanoTime();
        if (dueNs - now > 0) {
          LockSupport.parkNanos(dueNs - now);
          if (Thread.currentThread().isInterrupted()) {
            break;
          }
        } else if (now - dueNs > MAX_DEBT_NS) {
          scheduleStartNs = now;
          scheduled = 0;
        }
        scheduled++;
      }
      GeneratedEvent event = workload.next();
      String recordKey = event.recordKey() == null ? "" : event.recordKey();
      HotKeyTable table = hotKeys == null ? HotKeyTable.EMPTY : hotKeys.current();
      if (!table.isEmpty() && table.get(recordKey) != null) {
        int fanout = table.get(recordKey).fanout();
        int[] counter = nextSalt.computeIfAbsent(recordKey, k -> new int[1]);
        int salt = counter[0] % fanout;
        counter[0] = salt + 1;
        recordKey = router.recordKey(table, recordKey, salt);
        salted++;
      }
      byte[] key = event.recordKey() == null ? null : recordKey.getBytes(StandardCharsets.UTF_8);
      int partition =
          key == null
              ? EventPartitioner.partition("", partitions)
              : router.partition(table, key, partitions);
      long timestamp = event.wellFormed() ? event.eventTimeMs() : System.currentTimeMillis();
      producer.send(
          new ProducerRecord<>(topic, partition, timestamp, key, event.json()),
          (metadata, exception) -> {
            if (exception != null) {
              failed.incrementAndGet();
              if (firstError.compareAndSet(null, exception)) {
                LOG.warn(
                    "send to topic=[{}] partition=[{}] failed: {}",
                    topic,
                    partition,
                    exception.toString());
              }
            }
          });
      if (reference != null) {
        reference.accept(event, partition);
      }
      byKind[event.kind().ordinal()]++;
      sent++;
      if (progress != null && (sent & 255) == 0) {
        long now = System.nanoTime();
        if (now - lastReportNs >= REPORT_INTERVAL_NS) {
          progress.accept(
              new Progress(
                  sent,
                  Duration.ofNanos(now - startNs),
                  (sent - lastReportSent) * 1e9 / (now - lastReportNs)));
          lastReportNs = now;
          lastReportSent = sent;
        }
      }
    }
    producer.flush();
    long elapsedNs = Math.max(1, System.nanoTime() - startNs);
    if (progress != null) {
      progress.accept(new Progress(sent, Duration.ofNanos(elapsedNs), sent * 1e9 / elapsedNs));
    }
    if (failed.get() > 0) {
      LOG.warn(
          "{} of {} records to topic=[{}] were not acknowledged; first: {}",
          failed.get(),
          sent,
          topic,
          String.valueOf(firstError.get()));
    }
    return new LoadSummary(
        sent,
        byKind[0],
        byKind[1],
        byKind[2],
        byKind[3],
        failed.get(),
        Duration.ofNanos(elapsedNs),
        sent * 1e9 / elapsedNs);
  }

  /** How many records were sent with a salted record key. */
  public long salted() {
    return salted;
  }

  /** The hot-key table salting uses now ({@code EMPTY} with salting off). */
  public HotKeyTable hotKeys() {
    return hotKeys == null ? HotKeyTable.EMPTY : hotKeys.current();
  }

  /** Asks a running {@link #run} to stop after the current event; it then flushes and returns. */
  public void stop() {
    stopped = true;
  }

  /** Closes the Kafka producer (waits up to 30 s for in-flight sends). */
  @Override
  public void close() {
    stopped = true;
    producer.close(Duration.ofSeconds(30));
    if (follower != null) {
      follower.close();
    }
  }

  /** Configuration of a {@link LoadProducer}. */
  public static final class Builder {
    private final String bootstrap;
    private final String topic;
    private double ratePerSecond;
    private ExactReference reference;
    private Consumer<Progress> progress;
    private boolean salting = true;
    private HotKeySource hotKeys;
    private String hotKeysTopic;
    private String separator = SaltRouter.DEFAULT_SEPARATOR;
    private final Map<String, Object> overrides = new HashMap<>();

    private Builder(String bootstrap, String topic) {
      if (bootstrap == null || bootstrap.isBlank()) {
        throw new IllegalArgumentException("bootstrap must not be blank: '" + bootstrap + "'");
      }
      if (topic == null || topic.isBlank()) {
        throw new IllegalArgumentException("topic must not be blank: '" + topic + "'");
      }
      this.bootstrap = bootstrap;
      this.topic = topic;
    }

    /** Target events per second; 0 (the default) sends as fast as possible. */
    public Builder rate(double eventsPerSecond) {
      if (!(eventsPerSecond >= 0) || Double.isInfinite(eventsPerSecond)) {
        throw new IllegalArgumentException(
            "eventsPerSecond must be finite and >= 0: " + eventsPerSecond);
      }
      this.ratePerSecond = eventsPerSecond;
      return this;
    }

    /** Feeds every sent event, in send order, to {@code reference}. */
    public Builder reference(ExactReference reference) {
      this.reference = reference;
      return this;
    }

    /** Called on the sending thread at most once per second, and once at the end. */
    public Builder progress(Consumer<Progress> progress) {
      this.progress = progress;
      return this;
    }

    /** Hot-key salting on (the default) or off (every record on its key's default partition). */
    public Builder salting(boolean on) {
      this.salting = on;
      return this;
    }

    /** Salting reads its table from {@code source} (no topic is followed). */
    public Builder hotKeys(HotKeySource source) {
      this.hotKeys = source;
      return this;
    }

    /**
     * Salts as the job's producers must: follows the job's hot-key topic ({@code
     * skewer.<job>.hotkeys}) with the job's salt separator.
     */
    public Builder job(JobSpec job) {
      this.hotKeysTopic = JobNames.of(job).hotKeysTopic();
      this.separator = job.input().saltSeparator();
      return this;
    }

    /** The compacted hot-key topic salting follows when no source is supplied. */
    public Builder hotKeysTopic(String topic) {
      if (topic == null || topic.isBlank()) {
        throw new IllegalArgumentException("topic must not be blank: '" + topic + "'");
      }
      this.hotKeysTopic = topic;
      return this;
    }

    /** Overrides or adds a Kafka producer setting. */
    public Builder producerConfig(String name, Object value) {
      overrides.put(name, value);
      return this;
    }

    /**
     * Connects: looks up the topic's partitions (fails if the topic does not exist or no broker
     * answers within {@code max.block.ms}) and starts following the hot-key topic when salting
     * needs it. When any of it fails, what was started is closed before the error goes up.
     */
    public LoadProducer build() {
      return new LoadProducer(this);
    }
  }
}
