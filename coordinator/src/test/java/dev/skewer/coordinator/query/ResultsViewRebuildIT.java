package dev.skewer.coordinator.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * A coordinator's view is rebuilt from the results topic on a real broker: a window whose results
 * were written long before the coordinator started (two hours, record time) and that is revised
 * afterwards is answered whole, the revision in place — never only the revised key.
 */
class ResultsViewRebuildIT {

  private static final long OLD_WINDOW = 10_000;
  private static final long RECENT_WINDOW = 20_000;
  private static final int KEYS = 40;

  private final JobSpec job = QueryFixtures.job();
  private final ResultFormatter formatter = new ResultFormatter(job);

  @Test
  void shouldAnswerEveryKeyOfAWindowWrittenBeforeStartAndRevisedAfterwards() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopic(job.topics().results(), 3, Map.of("cleanup.policy", "compact"));
      kafka.createTopic(job.topics().late(), 1, Map.of());
      kafka.createTopic(job.topics().dlq(), 1, Map.of());
      long now = System.currentTimeMillis();
      Map<String, Integer> oldCounts = new HashMap<>();
      Map<String, Integer> recentCounts = new HashMap<>();
      try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
        // given: one window's finals written two hours ago, another's half an hour ago
        for (int i = 0; i < KEYS; i++) {
          oldCounts.put("k" + i, 100 + (i % 7)); // many ties: broken by key
          send(
              producer,
              "k" + i,
              OLD_WINDOW,
              100 + (i % 7),
              0,
              now - Duration.ofHours(2).toMillis());
          recentCounts.put("k" + i, 50 + i);
          send(
              producer, "k" + i, RECENT_WINDOW, 50 + i, 0, now - Duration.ofMinutes(30).toMillis());
        }
        // and a late revision of the old window, written now (after the merge stage dropped it)
        oldCounts.put("k7", 500);
        send(producer, "k7", OLD_WINDOW, 500, 1, now);
        producer.flush();
      }

      try (QuerySide query =
          QuerySide.start(
              job,
              KafkaSettings.of(kafka.bootstrapServers()),
              "test",
              QuerySettings.defaults(),
              null,
              Clock.systemUTC(),
              List::of,
              null)) {
        // when: the coordinator's view has read the topic
        assertThat(query.awaitCaughtUp(Duration.ofSeconds(60))).isTrue();

        // then: both windows are whole, the revision in place, ranked exactly for k = every key
        assertTopK(query.service(), OLD_WINDOW, oldCounts, Map.of("k7", 1));
        assertTopK(query.service(), RECENT_WINDOW, recentCounts, Map.of());
        assertThat(topK(query.service(), OLD_WINDOW, 1).getJsonObject(0).getString("key"))
            .isEqualTo("k7");

        // and a revision read live replaces its key's entry and leaves the others alone
        try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
          recentCounts.put("k3", 1_000);
          send(producer, "k3", RECENT_WINDOW, 1_000, 1, System.currentTimeMillis());
          producer.flush();
        }
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> assertTopK(query.service(), RECENT_WINDOW, recentCounts, Map.of("k3", 1)));
        assertTopK(query.service(), OLD_WINDOW, oldCounts, Map.of("k7", 1));
      }
    }
  }

  private static KafkaProducer<byte[], byte[]> producer(EmbeddedKafka kafka) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private void send(
      KafkaProducer<byte[], byte[]> producer,
      String key,
      long windowStartMs,
      int count,
      int revision,
      long recordTimeMs) {
    producer.send(
        new ProducerRecord<>(
            job.topics().results(),
            null,
            recordTimeMs,
            formatter.resultKey(key, windowStartMs).getBytes(StandardCharsets.UTF_8),
            QueryFixtures.envelope(job, key, windowStartMs, count, 1.0, 1, revision)));
  }

  private static JsonArray topK(QueryService service, long windowStartMs, int k) {
    return service
        .topK(Map.of("window", List.of(Long.toString(windowStartMs)), "k", List.of("" + k)))
        .getJsonArray("keys");
  }

  /** The window's top-K for k = 10,000 is every key, by count descending then key ascending. */
  private static void assertTopK(
      QueryService service,
      long windowStartMs,
      Map<String, Integer> counts,
      Map<String, Integer> revisions) {
    List<Map.Entry<String, Integer>> expected = new ArrayList<>(counts.entrySet());
    expected.sort(
        Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder())
            .thenComparing(Map.Entry.comparingByKey()));
    JsonArray keys = topK(service, windowStartMs, 10_000);
    assertThat(keys).as("keys of window %d", windowStartMs).hasSize(expected.size());
    for (int i = 0; i < expected.size(); i++) {
      JsonObject e = keys.getJsonObject(i);
      assertThat(e.getInteger("rank")).isEqualTo(i + 1);
      assertThat(e.getString("key")).isEqualTo(expected.get(i).getKey());
      assertThat(e.getLong("count")).isEqualTo(expected.get(i).getValue().longValue());
      assertThat(e.getInteger("revision")).isEqualTo(revisions.getOrDefault(e.getString("key"), 0));
    }
  }
}
