package dev.skewer.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.coordinator.hotkey.HotKeySettings;
import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyCodec;
import dev.skewer.core.job.JobSpec;
import dev.skewer.launcher.local.LocalCluster;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.launcher.verify.ResultRecord;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.testkit.job.JobYaml;
import dev.skewer.testkit.kafka.BrokerFixture;
import dev.skewer.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hot keys on a real broker: 4 event partitions, 3 nodes, 1 coordinator. A 50% key and a key that
 * bursts mid-run are detected, published with a fanout and spread by the load generator's
 * SaltingPartitioner; results stay exactly those of the brute-force reference and of the same
 * events sent without salting. The burst key's fanout rises during the burst and falls back after
 * it.
 */
class HotKeysIT {

  @RegisterExtension static final BrokerFixture broker = BrokerFixture.perClass();

  private static JobSpec job(String name) {
    return broker.provision(
        JobYaml.named(name)
            .noQuantile()
            .tumbling(Duration.ofSeconds(2))
            .delay(Duration.ofSeconds(1))
            .idle(Duration.ofSeconds(3))
            .finalizeAfterIdle(Duration.ofSeconds(3))
            .allowedLateness(Duration.ZERO));
  }

  private record Run(
      Map<String, ResultRecord> results,
      List<HotKey> published,
      Map<String, Double> eventsPerNode) {}

  private Run run(String name, boolean salting, long startMs) throws Exception {
    JobSpec job = job(name);
    String hotKeysTopic = name + ".hotkeys";
    HotKeySettings hotKeys =
        new HotKeySettings(
            true,
            hotKeysTopic,
            FanoutPolicy.Config.defaults()
                .withQuietPeriod(Duration.ofSeconds(2))
                .withMinTargetRate(1_000));
    MeterRegistry registry = new SimpleMeterRegistry();
    try (LocalCluster cluster =
        LocalCluster.start(
            job, broker.settings(), 3, 1, true, 0, registry, Clock.systemUTC(), hotKeys)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> cluster.assignmentsSettled(4, 2));
      WorkloadSpec spec =
          WorkloadSpec.w1(240_000, 11)
              .withName(name)
              .withKeys(1_000)
              .withUsers(10_000)
              .withHotKeyShare(0.5)
              .withDisorder(Duration.ofMillis(500))
              .withBurst(0.3, Duration.ofSeconds(4), Duration.ofSeconds(4))
              .withTime(startMs, 20_000); // the same event times in both runs, paced in real time
      ExactReference reference =
          ExactReference.of(
              Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ZERO, 4, job.toSketchSpec());
      LoadSummary sent;
      try (LoadProducer producer =
          LoadProducer.builder(broker.bootstrapServers(), job.topics().events())
              .reference(reference)
              .rate(20_000)
              .salting(salting)
              .hotKeysTopic(hotKeysTopic)
              .build()) {
        sent = producer.run(Workload.of(spec));
      }
      assertThat(sent.sent()).isEqualTo(240_000);
      ResultCheck.Report[] report = new ResultCheck.Report[1];
      List<List<ConsumerRecord<byte[], byte[]>>> results = new ArrayList<>(List.of(List.of()));
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(2))
          .until(
              () -> {
                results.set(
                    0,
                    TopicReader.readAll(
                        broker.bootstrapServers(), job.topics().results(), Duration.ofSeconds(20)));
                report[0] = ResultCheck.check(reference, results.get(0), "key", "value", true);
                return report[0].ok();
              });
      assertThat(report[0].problems()).as(name).isEmpty();
      String burstKey = spec.burstKey();
      List<HotKey> published = new ArrayList<>();
      if (salting) {
        // the burst key falls back to fanout 1 (a tombstone) once the burst is over
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofSeconds(1))
            .until(() -> tombstoned(hotKeysTopic, burstKey));
      }
      for (ConsumerRecord<byte[], byte[]> r :
          TopicReader.readAll(broker.bootstrapServers(), hotKeysTopic, Duration.ofSeconds(20))) {
        HotKey h = HotKeyCodec.decode(r.key(), r.value());
        if (h != null) {
          published.add(h);
        }
      }
      Map<String, ResultRecord> last = new HashMap<>();
      for (ConsumerRecord<byte[], byte[]> r : results.get(0)) {
        ResultRecord rr =
            ResultRecord.parse(
                new String(r.key(), StandardCharsets.UTF_8), r.value(), "key", "value");
        last.merge(rr.resultKey(), rr, (a, b) -> b.revision() >= a.revision() ? b : a);
      }
      Map<String, Double> perNode = new HashMap<>();
      registry
          .find("skewer.events.in")
          .counters()
          .forEach(c -> perNode.put(c.getId().getTag("node"), c.count()));
      System.err.printf(
          "%s: %s; published %s; events per node %s%n",
          name, report[0].summary(), published, perNode);
      return new Run(last, published, perNode);
    }
  }

  private boolean tombstoned(String topic, String key) {
    boolean hot = false;
    for (ConsumerRecord<byte[], byte[]> r :
        TopicReader.readAll(broker.bootstrapServers(), topic, Duration.ofSeconds(20))) {
      if (!key.equals(HotKeyCodec.decodeKey(r.key()))) {
        continue;
      }
      if (r.value() != null) {
        hot = true;
      } else if (hot) {
        return true;
      }
    }
    return false;
  }

  @Test
  void shouldSaltHotAndBurstKeysAndStayExactlyEqualToTheUnsaltedRun() throws Exception {
    long startMs = System.currentTimeMillis() - 30_000;
    Run salted = run("salted", true, startMs);
    Run plain = run("plain", false, startMs);

    assertThat(salted.published())
        .as("the 50% key was published hot")
        .anySatisfy(
            h -> {
              assertThat(h.key()).isEqualTo("ad0");
              assertThat(h.fanout()).isGreaterThan(1);
            });
    assertThat(salted.published())
        .as("the burst key was published hot during its burst")
        .anySatisfy(
            h -> {
              assertThat(h.key()).isEqualTo("ad999");
              assertThat(h.fanout()).isGreaterThan(1);
            });
    assertThat(salted.results().keySet()).isEqualTo(plain.results().keySet());
    salted
        .results()
        .forEach(
            (k, r) -> {
              ResultRecord p = plain.results().get(k);
              assertThat(r.count()).as(k).isEqualTo(p.count());
              assertThat(r.sum())
                  .as(k)
                  .isCloseTo(p.sum(), Assertions.within(1e-6 * Math.max(1, Math.abs(p.sum()))));
              assertThat(r.min()).as(k).isEqualTo(p.min());
              assertThat(r.max()).as(k).isEqualTo(p.max());
              assertThat(r.distinctEstimate())
                  .as("HLL union of salted partials equals the unsalted one: " + k)
                  .isEqualTo(p.distinctEstimate());
            });
  }
}
