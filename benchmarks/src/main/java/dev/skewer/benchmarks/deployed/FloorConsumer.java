package dev.skewer.benchmarks.deployed;

import dev.skewer.core.event.DecodedEvent;
import dev.skewer.core.event.EventDecoder;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.job.TumblingWindow;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.node.ingest.NodeVerticle;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.SketchSpec;
import dev.skewer.stage.KafkaStageClients;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The JVM {@code bench floor} launches: reads its share of W1's events topic from the beginning
 * with the node's events consumer settings, and, by mode, does nothing more ({@code read}), decodes
 * each record with the node's {@link EventDecoder} ({@code decode}), or also folds it into one
 * {@link Aggregate} per (key, window) with the job's sketches and formats every result at the end
 * ({@code fold}: the whole job in one thread, nothing distributed). Prints one line of figures
 * (with its CPU time and uptime at the first record) and exits.
 *
 * <p>Arguments: bootstrap servers, topic, partitions (comma-separated), mode, job file. It reads
 * each partition from its beginning to its end offset when it starts (the events topic is loaded
 * beforehand, with no transactions: one record per offset).
 */
public final class FloorConsumer {

  /** The modes, each doing what the one before it does and more. */
  static final List<String> MODES = List.of("read", "decode", "fold");

  private FloorConsumer() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5 || !MODES.contains(args[3])) {
      System.err.println(
          "usage: FloorConsumer <bootstrap> <topic> <partitions> read|decode|fold <job>");
      System.exit(2);
    }
    String topic = args[1];
    List<TopicPartition> partitions =
        Arrays.stream(args[2].split(","))
            .map(p -> new TopicPartition(topic, Integer.parseInt(p.trim())))
            .toList();
    String mode = args[3];
    JobSpec job = JobSpecLoader.load(Path.of(args[4]), Map.of());
    Floor floor = new Floor(job, mode);
    // the node's events consumer: the stage's consumer settings with the node's fetch settings
    Map<String, Object> config = new HashMap<>(KafkaSettings.of(args[0]).consumerConfig(null));
    config.putAll(NodeVerticle.EVENTS_CONSUMER_DEFAULTS);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, KafkaStageClients.DEFAULT_MAX_POLL_RECORDS);
    long records = 0;
    double firstCpu = 0;
    long firstMs = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> begins = consumer.beginningOffsets(partitions);
      long expected = 0;
      for (var end : consumer.endOffsets(partitions).entrySet()) {
        expected += end.getValue() - begins.get(end.getKey());
      }
      while (records < expected) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (records == 0) {
            firstCpu = ProcessCpu.self();
            firstMs = ManagementFactory.getRuntimeMXBean().getUptime();
          }
          floor.accept(r.value());
          records++;
        }
      }
    }
    long results = floor.finish();
    System.out.printf(
        "floor: mode=%s records=%d bytes=%d rejected=%d results=%d checksum=%d cpu_s=%.3f"
            + " uptime_ms=%d first_cpu_s=%.3f first_ms=%d%n",
        mode,
        records,
        floor.bytes,
        floor.rejected,
        results,
        floor.checksum,
        ProcessCpu.self(),
        ManagementFactory.getRuntimeMXBean().getUptime(),
        firstCpu,
        firstMs);
  }

  /** What one record costs past the consumer, by mode. */
  static final class Floor {
    private final String mode;
    private final EventDecoder decoder;
    private final DecodedEvent event;
    private final SketchSpec spec;
    private final long windowMs;
    private final ResultFormatter formatter;
    private final Map<Long, Map<String, Aggregate>> windows = new HashMap<>();
    long bytes;
    long rejected;
    long checksum;

    Floor(JobSpec job, String mode) {
      this.mode = mode;
      this.decoder = new EventDecoder(job);
      this.event = DecodedEvent.forJob(job);
      this.spec = job.toSketchSpec();
      if (!(job.window() instanceof TumblingWindow tumbling)) {
        throw new IllegalArgumentException("bench floor folds tumbling windows only");
      }
      this.windowMs = tumbling.size().toMillis();
      this.formatter = new ResultFormatter(job);
    }

    void accept(byte[] value) {
      if (mode.equals("read")) {
        bytes += value == null ? 0 : value.length;
        checksum += value == null || value.length == 0 ? 0 : value[0];
        return;
      }
      bytes += value == null ? 0 : value.length;
      if (decoder.decode(value, event) != null) {
        rejected++;
        return;
      }
      checksum += event.eventTimeMs();
      if (mode.equals("fold")) {
        long start = Math.floorDiv(event.eventTimeMs(), windowMs) * windowMs;
        windows
            .computeIfAbsent(start, s -> new HashMap<>())
            .computeIfAbsent(event.key(), k -> Aggregate.empty(spec))
            .update(
                event.numeric(),
                event.distinctItem(),
                event.frequencyItem(),
                event.quantileValue());
      }
    }

    /** Formats every (key, window)'s result as the coordinators would; returns how many. */
    long finish() {
      long results = 0;
      for (var window : windows.entrySet()) {
        long start = window.getKey();
        for (var e : window.getValue().entrySet()) {
          bytes +=
              formatter.format(e.getKey(), start, start + windowMs, e.getValue(), 0, null).length;
          results++;
        }
      }
      return results;
    }
  }
}
