package dev.skewer.testkit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.loadgen.partition.EventPartitioner;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.produce.Progress;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.EventKind;
import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaIT {

  private static EmbeddedKafka kafka;

  @BeforeAll
  static void startBroker() {
    kafka = EmbeddedKafka.start();
  }

  @AfterAll
  static void stopBroker() {
    Path dataDir = kafka.dataDir();
    kafka.close();
    kafka.close(); // idempotent
    assertThat(dataDir).doesNotExist();
  }

  @Test
  void shouldProduceAndReadBackWhenStartedInProcess() throws Exception {
    // given
    kafka.createTopic("plain", 3, Map.of("cleanup.policy", "delete"));

    // when
    try (KafkaProducer<byte[], byte[]> producer = producer(kafka.bootstrapServers())) {
      for (int i = 0; i < 10; i++) {
        producer.send(record("plain", i % 3, i)).get();
      }
    }
    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(kafka.bootstrapServers(), "plain", Duration.ofSeconds(30));

    // then
    assertThat(records).hasSize(10);
    assertThat(records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)))
        .containsExactlyInAnyOrderElementsOf(
            IntStream.range(0, 10).mapToObj(i -> "v" + i).toList());
    assertThat(records.stream().filter(r -> r.partition() == 1))
        .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
        .containsExactly("v1", "v4", "v7");
  }

  @Test
  void shouldSendWorkloadToDefaultPartitionsInOrderWhenLoadProducerRuns() throws Exception {
    // given
    kafka.createTopic("events", 4, Map.of());
    WorkloadSpec spec =
        WorkloadSpec.w1(5_000, 17)
            .withLate(0.01, Duration.ofMinutes(1))
            .withMalformed(0.01)
            .withFuture(0.01);
    ExactReference reference =
        ExactReference.of(
            Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(5), 4, null);
    List<Progress> reports = new CopyOnWriteArrayList<>();

    // when: paced at 10,000 events/s
    LoadSummary summary;
    try (LoadProducer producer =
        LoadProducer.builder(kafka.bootstrapServers(), "events")
            .salting(false)
            .rate(10_000)
            .reference(reference)
            .progress(reports::add)
            .build()) {
      summary = producer.run(Workload.of(spec));
    }
    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(kafka.bootstrapServers(), "events", Duration.ofSeconds(30));

    // then
    assertThat(summary.sent()).isEqualTo(5_000);
    assertThat(summary.failed()).isZero();
    assertThat(summary.elapsed()).isGreaterThan(Duration.ofMillis(400));
    assertThat(summary.malformed()).isPositive();
    assertThat(reports).isNotEmpty();
    assertThat(reports.get(reports.size() - 1).sent()).isEqualTo(5_000);
    assertThat(records).hasSize(5_000);
    assertThat(reference.totalCount() + reference.late().size() + reference.dlq().size())
        .isEqualTo(5_000);
    // each partition holds its events in send order, as the reference assumed
    List<List<GeneratedEvent>> expected = new ArrayList<>();
    IntStream.range(0, 4).forEach(p -> expected.add(new ArrayList<>()));
    Workload again = Workload.of(spec);
    while (again.hasNext()) {
      GeneratedEvent e = again.next();
      expected.get(EventPartitioner.partition(e.recordKey(), 4)).add(e);
    }
    for (int p = 0; p < 4; p++) {
      int partition = p;
      List<ConsumerRecord<byte[], byte[]>> inPartition =
          records.stream().filter(r -> r.partition() == partition).toList();
      assertThat(inPartition).hasSize(expected.get(p).size());
      for (int i = 0; i < inPartition.size(); i++) {
        GeneratedEvent e = expected.get(p).get(i);
        ConsumerRecord<byte[], byte[]> r = inPartition.get(i);
        assertThat(Arrays.equals(r.value(), e.json()))
            .as("record %d of partition %d", i, p)
            .isTrue();
        if (e.kind() == EventKind.NORMAL || e.kind() == EventKind.LATE) {
          assertThat(r.timestamp()).isEqualTo(e.eventTimeMs());
        }
      }
    }
    // and Kafka's own default partitioner agrees for keyed records
    try (KafkaProducer<byte[], byte[]> producer = producer(kafka.bootstrapServers())) {
      for (int k = 0; k < 50; k++) {
        String key = "ad" + (k * 7919);
        RecordMetadata metadata =
            producer
                .send(
                    new ProducerRecord<>(
                        "events", key.getBytes(StandardCharsets.UTF_8), new byte[0]))
                .get();
        assertThat(metadata.partition()).isEqualTo(EventPartitioner.partition(key, 4));
      }
    }
  }

  static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(props);
  }

  static ProducerRecord<byte[], byte[]> record(String topic, int partition, int i) {
    return new ProducerRecord<>(
        topic,
        partition,
        ("k" + i).getBytes(StandardCharsets.UTF_8),
        ("v" + i).getBytes(StandardCharsets.UTF_8));
  }
}
