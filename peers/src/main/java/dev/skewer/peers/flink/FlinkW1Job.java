package dev.skewer.peers.flink;

import com.tdunning.math.stats.MergingDigest;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobListener;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.functions.windowing.ProcessAllWindowFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * BENCHMARK.md's W1 job on Flink, in one JVM (a local mini-cluster) at the given parallelism: the
 * events topic read from its start to the end offsets it has at submission (a bounded source: Flink
 * fires every window at the end of input), event time from {@code ts} with a 2 s bounded
 * out-of-orderness watermark, per key and tumbling 10 s window count, sum, min, max, distinct users
 * (HyperLogLog++) and p50/p99 (t-digest), written to the results topic in Skewer's envelope; per
 * window the top-10 keys by count. Prints {@code SUBMITTED <epoch ms> <CPU s>} when the job is
 * submitted and {@code DONE <epoch ms> <CPU s>} when it has finished, for the bench.
 *
 * <p>Arguments: {@code <bootstrap> <events topic> <results topic> <group> <parallelism> <checkpoint
 * interval ms, 0 = none>}.
 */
public final class FlinkW1Job {

  private static final Duration WINDOW = Duration.ofSeconds(10);
  private static final Duration DISORDER = Duration.ofSeconds(2);

  private FlinkW1Job() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 8) {
      System.err.println(
          "usage: FlinkW1Job <bootstrap> <events topic> <results topic> <group> <parallelism>"
              + " <checkpoint interval ms, 0 = none> <checkpoint directory> <eager|lazy digests>");
      System.exit(2);
    }
    String bootstrap = args[0];
    String eventsTopic = args[1];
    String resultsTopic = args[2];
    String group = args[3];
    int parallelism = Integer.parseInt(args[4]);
    long checkpointMs = Long.parseLong(args[5]);
    Path checkpoints = Path.of(args[6]).toAbsolutePath();
    boolean lazyDigests = args[7].equals("lazy");

    Configuration conf = new Configuration();
    conf.set(TaskManagerOptions.NUM_TASK_SLOTS, parallelism);
    // the heap state backend (Flink's default) with checkpoints written to files: W1's state is far
    // beyond what the job manager's memory storage accepts (5 MB)
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    if (checkpointMs > 0) {
      env.enableCheckpointing(checkpointMs);
    }
    env.registerJobListener(
        new JobListener() {
          @Override
          public void onJobSubmitted(JobClient client, Throwable failure) {
            System.out.println("SUBMITTED " + System.currentTimeMillis() + " " + cpuSeconds());
          }

          @Override
          public void onJobExecuted(JobExecutionResult result, Throwable failure) {}
        });

    KafkaSource<W1Event> source =
        KafkaSource.<W1Event>builder()
            .setBootstrapServers(bootstrap)
            .setTopics(eventsTopic)
            .setGroupId(group)
            .setStartingOffsets(OffsetsInitializer.earliest())
            .setBounded(OffsetsInitializer.latest())
            .setDeserializer(KafkaRecordDeserializationSchema.valueOnly(new W1EventSchema()))
            .build();
    DataStream<W1Event> events =
        env.fromSource(
            source,
            WatermarkStrategy.<W1Event>forBoundedOutOfOrderness(DISORDER)
                .withTimestampAssigner((e, recordTs) -> e.ts),
            "events");

    DataStream<W1Result> results =
        events
            .keyBy(e -> e.key)
            .window(TumblingEventTimeWindows.of(WINDOW))
            .aggregate(new Aggregate(lazyDigests), new ToResult())
            .name("w1 per key and window");

    KafkaSink<W1Result> sink =
        KafkaSink.<W1Result>builder()
            .setBootstrapServers(bootstrap)
            .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
            .setRecordSerializer(
                (KafkaRecordSerializationSchema<W1Result>)
                    (r, context, timestamp) ->
                        new ProducerRecord<>(resultsTopic, r.resultKey(), r.envelope()))
            .build();
    results.sinkTo(sink).name("results");

    results
        .windowAll(TumblingEventTimeWindows.of(WINDOW))
        .process(new TopTen())
        .name("top-10 per window")
        .sinkTo(new DiscardingSink<>());

    env.execute("w1");
    System.out.println("DONE " + System.currentTimeMillis() + " " + cpuSeconds());
  }

  /** This JVM's CPU seconds so far (every thread). */
  static double cpuSeconds() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1e9;
  }

  /** Folds events into a {@link W1Accumulator} (held on the heap by Flink's default backend). */
  static final class Aggregate implements AggregateFunction<W1Event, W1Accumulator, W1Accumulator> {
    private static final long serialVersionUID = 1L;
    private final boolean lazyDigests;

    Aggregate(boolean lazyDigests) {
      this.lazyDigests = lazyDigests;
    }

    @Override
    public W1Accumulator createAccumulator() {
      return new W1Accumulator(lazyDigests);
    }

    @Override
    public W1Accumulator add(W1Event e, W1Accumulator acc) {
      acc.add(e);
      return acc;
    }

    @Override
    public W1Accumulator getResult(W1Accumulator acc) {
      return acc;
    }

    @Override
    public W1Accumulator merge(W1Accumulator a, W1Accumulator b) {
      a.merge(b);
      return a;
    }
  }

  /** The final result of one (key, window). */
  static final class ToResult
      extends ProcessWindowFunction<W1Accumulator, W1Result, String, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(
        String key, Context context, Iterable<W1Accumulator> accs, Collector<W1Result> out) {
      W1Accumulator acc = accs.iterator().next();
      W1Result r = new W1Result();
      r.key = key;
      r.windowStartMs = context.window().getStart();
      r.windowEndMs = context.window().getEnd();
      r.count = acc.count;
      r.sum = acc.sum;
      r.min = acc.min;
      r.max = acc.max;
      r.distinctUsers = acc.users.cardinality();
      MergingDigest digest = acc.digest();
      r.p50 = digest.quantile(0.5);
      r.p99 = digest.quantile(0.99);
      out.collect(r);
    }
  }

  /** Per window, the ten keys with the most events (ties by key), as one line. */
  static final class TopTen extends ProcessAllWindowFunction<W1Result, String, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(Context context, Iterable<W1Result> results, Collector<String> out) {
      List<W1Result> all = new ArrayList<>();
      results.forEach(all::add);
      all.sort(Comparator.comparingLong((W1Result r) -> -r.count).thenComparing(r -> r.key));
      StringBuilder line = new StringBuilder().append(context.window().getStart()).append(':');
      for (W1Result r : all.subList(0, Math.min(10, all.size()))) {
        line.append(' ').append(r.key).append('=').append(r.count);
      }
      out.collect(line.toString());
    }
  }
}
