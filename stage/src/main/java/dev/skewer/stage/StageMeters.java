package dev.skewer.stage;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.metrics.HazelcastMetrics;
import dev.skewer.core.metrics.ProcessMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meters every stage process exports beside its own: the JVM's, its Kafka clients' ({@code
 * kafka.consumer.*}, {@code kafka.producer.*}) and its Hazelcast member's.
 */
public final class StageMeters implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(StageMeters.class);

  private final List<AutoCloseable> bound;

  private StageMeters(List<AutoCloseable> bound) {
    this.bound = bound;
  }

  /**
   * Binds the meters of a started {@code stage} (tagged {@code tags}) and of {@code hazelcast}
   * (null: none) to {@code registry}.
   */
  public static StageMeters bind(
      MeterRegistry registry,
      StageVerticle<?> stage,
      HazelcastInstance hazelcast,
      JobNames names,
      Tags tags) {
    List<AutoCloseable> bound = new ArrayList<>();
    try {
      bound.add(ProcessMetrics.bindJvm(registry));
      KafkaClientMetrics consumer = new KafkaClientMetrics(stage.kafkaConsumer(), tags);
      consumer.bindTo(registry);
      bound.add(consumer);
      if (stage.kafkaProducer() != null) {
        KafkaClientMetrics producer = new KafkaClientMetrics(stage.kafkaProducer(), tags);
        producer.bindTo(registry);
        bound.add(producer);
      }
      if (hazelcast != null) {
        HazelcastMetrics.bind(registry, hazelcast, names, tags);
      }
    } catch (RuntimeException e) {
      new StageMeters(bound).close();
      throw e;
    }
    return new StageMeters(bound);
  }

  /** Unbinds what {@link #bind} bound; never throws. */
  @Override
  public void close() {
    for (AutoCloseable m : bound) {
      try {
        m.close();
      } catch (Exception e) {
        LOG.debug("closing meters failed", e);
      }
    }
  }
}
