package dev.skewer.crossprocess;

import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.launcher.verify.ResultRecord;
import dev.skewer.loadgen.workload.EventJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Ends a test's input the way a live stream moves on past it, instead of by silence: one event
 * stamped <em>now</em> on every events partition, after the workload's last. The workload's event
 * time ends well before the load began ({@link CrossProcessScenario#workload}), so each partition's
 * watermark passes its last window — beyond the allowed lateness — and the coordinators close every
 * window at once rather than after the job's {@code finalizeAfterIdle} ({@link
 * ClusterUnderTest#SCENARIO_IDLE}) of silence. Each partition's marker comes after all of its
 * events, so it closes nothing early.
 *
 * <p>The markers carry {@link #KEY}, which no workload uses (their keys are {@code ad<n>}); they
 * are not in the reference, their own window stays open, and {@link #withoutMarkers} leaves their
 * results (if any) out of a check.
 */
public final class EndOfInput {

  /** The markers' key. */
  public static final String KEY = "end-of-input";

  private EndOfInput() {}

  /** Sends one marker to each of {@code topic}'s {@code partitions} and waits for the broker. */
  public static void send(String bootstrap, String topic, int partitions) {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(KafkaSettings.of(bootstrap).producerConfig())) {
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      long now = System.currentTimeMillis();
      for (int p = 0; p < partitions; p++) {
        sends.add(
            producer.send(
                new ProducerRecord<>(topic, p, KEY, EventJson.encode(KEY, "end", 0, now))));
      }
      producer.flush();
      for (Future<RecordMetadata> f : sends) {
        f.get(2, TimeUnit.MINUTES);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not send the end-of-input markers to " + topic, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted sending the end-of-input markers", e);
    }
  }

  /** {@code results} without the markers' own results. */
  public static List<ConsumerRecord<byte[], byte[]>> withoutMarkers(
      List<ConsumerRecord<byte[], byte[]>> results) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>(results.size());
    for (ConsumerRecord<byte[], byte[]> r : results) {
      String resultKey = new String(r.key(), StandardCharsets.UTF_8);
      if (!KEY.equals(ResultRecord.parse(resultKey, r.value(), "key", "value").key())) {
        out.add(r);
      }
    }
    return out;
  }
}
