package dev.skewer.coordinator.hotkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyCodec;
import dev.skewer.core.hotkey.HotKeyReport;
import dev.skewer.core.wire.PartialsPartition;
import dev.skewer.testkit.cluster.LoneMember;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A node's report that names a new hot key starts a decision round at once, through the reports
 * map's listener: here no periodic round ever runs, so only that path can publish.
 */
class HotKeyDecisionsTest {

  private static final String REPORTS = "skewer.test.hotkeys.reports";
  private static final int PARTIALS_PARTITIONS = 2;

  private HazelcastInstance hazelcast;
  private Vertx vertx;
  private MockProducer<byte[], byte[]> producer;
  private HotKeyDecisions decisions;

  @BeforeEach
  void start() {
    hazelcast = LoneMember.start("skewer-test", "coordinator-1", "coordinator");
    vertx = Vertx.vertx();
    producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
  }

  @AfterEach
  void stop() {
    if (decisions != null) {
      decisions.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().join();
    hazelcast.getLifecycleService().terminate();
  }

  @Test
  void shouldPublishANewHotKeyAsSoonAsAReportNamesItWithoutWaitingForARound() throws Exception {
    // given: decisions for the partials partition of ad0 only, listening, never ticked
    int owned = partialsPartition("ad0");
    String notOwned = keyOnOtherPartitionThan(owned);
    decisions = decisionsOwning(owned);
    Context context = vertx.getOrCreateContext();
    CompletableFuture<Void> listening = new CompletableFuture<>();
    context.runOnContext(
        v -> {
          decisions.listen();
          listening.complete(null);
        });
    listening.get(30, TimeUnit.SECONDS);

    // when: a node reports a key owned elsewhere, then ad0, both far above the floor (100/s)
    report(3, Map.of(notOwned, 4_000.0));
    report(5, Map.of("ad0", 6_000.0, notOwned, 4_000.0));

    // then: ad0 alone is published, at the fanout its rate asks for (bounded by 8 partitions)
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(producer.history()).isNotEmpty());
    List<HotKey> published =
        producer.history().stream()
            .map((ProducerRecord<byte[], byte[]> r) -> HotKeyCodec.decode(r.key(), r.value()))
            .toList();
    assertThat(published).extracting(HotKey::key).containsExactly("ad0");
    assertThat(published.get(0).fanout()).isEqualTo(8);
  }

  @Test
  void shouldLogEachRoundsReportsAndTableAtDebug() throws Exception {
    // given: the decisions' logger at DEBUG, recorded
    Logger logger = (Logger) LoggerFactory.getLogger(HotKeyDecisions.class);
    Level level = logger.getLevel();
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    logger.setLevel(Level.DEBUG);
    try {
      int owned = partialsPartition("ad0");
      decisions = decisionsOwning(owned);

      // when: a node reports ad0 and a round runs
      report(5, Map.of("ad0", 6_000.0));
      vertx.getOrCreateContext().runOnContext(v -> decisions.tick());

      // then: the round's line names the report (partition, rate, top candidate) and the table
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(copyOf(logged))
                      .extracting(ILoggingEvent::getFormattedMessage)
                      .anySatisfy(
                          m ->
                              assertThat(m)
                                  .contains("hot-key round over partials partitions [" + owned)
                                  .contains("p5 ")
                                  .contains("10000/s top ad0 6000")
                                  .contains("table of 1 keys [ad0×8]")));
    } finally {
      logger.setLevel(level);
      logger.detachAppender(logged);
    }
  }

  /** What the appender holds so far (it adds under its own lock, from the event loop). */
  private static List<ILoggingEvent> copyOf(ListAppender<ILoggingEvent> appender) {
    synchronized (appender) {
      return List.copyOf(appender.list);
    }
  }

  /** Decisions for one partials partition, over 8 source partitions, never ticked by a timer. */
  private HotKeyDecisions decisionsOwning(int owned) {
    return new HotKeyDecisions(
        vertx,
        "coordinator-1",
        new FanoutPolicy(FanoutPolicy.Config.defaults(), 8, Clock.systemUTC()),
        new HotKeyPublisher(producer, "skewer.test.hotkeys", null, null),
        hazelcast,
        REPORTS,
        PARTIALS_PARTITIONS,
        () -> new HotKeyDecisions.Scope(Set.of(owned), Long.MIN_VALUE));
  }

  private void report(int sourcePartition, Map<String, Double> candidates) {
    hazelcast
        .<String, byte[]>getMap(REPORTS)
        .set(
            Integer.toString(sourcePartition),
            new HotKeyReport(sourcePartition, System.currentTimeMillis(), 10_000, candidates)
                .encode());
  }

  private static int partialsPartition(String key) {
    return PartialsPartition.of(key, PARTIALS_PARTITIONS);
  }

  private static String keyOnOtherPartitionThan(int partition) {
    for (int i = 1; ; i++) {
      if (partialsPartition("ad" + i) != partition) {
        return "ad" + i;
      }
    }
  }
}
