package dev.skewer.crossprocess;

import static org.awaitility.Awaitility.await;

import dev.skewer.core.wire.Watermark;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.testkit.kafka.StreamWatch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Measures failover after kill -9 of a node under a steady live load (event time = wall clock,
 * {@value #RATE} events/s, 3 nodes, 1 coordinator, 4 event partitions), several kills per consumer
 * session timeout, and prints the medians. Off by default (it takes about 5 minutes): run with
 * {@code -Dskewer.timing=true -Dit.test=FailoverTimingIT}.
 *
 * <p>For each kill at wall time t0 of a node owning partitions P, from the outside (a consumer of
 * the partials and results topics and describeConsumerGroups):
 *
 * <ul>
 *   <li><b>owned</b>: until the node group is stable again without the dead member and every
 *       partition is assigned;
 *   <li><b>caught up</b>: until, for every p in P, a Watermark of p from a newer epoch than the
 *       dead owner's reaches the watermark p had at t0 (state restored and the gap replayed);
 *   <li><b>live</b>: until, for every p in P, a newer-epoch Watermark's lag behind the wall clock
 *       is back within 1 s of its lag before the kill;
 *   <li><b>result stall</b>: for the windows whose nominal close (end + 2 s delay, event time
 *       tracking the wall clock) fell between t0 and the catch-up, the most their first result came
 *       after that nominal close (without a failure: a few hundred ms);
 *   <li><b>first result</b>: from t0 to the first result of the first window starting after t0, and
 *       how late that was compared with the window's nominal close.
 * </ul>
 */
@EnabledIfSystemProperty(named = "skewer.timing", matches = "true")
class FailoverTimingIT {

  static final int RATE = 5_000;
  static final long WINDOW_MS = 10_000;
  static final long DELAY_MS = 2_000;
  static final Duration STEADY = Duration.ofSeconds(12);

  /**
   * One kill's figures, in milliseconds from the kill.
   *
   * @param partitions the victim's partitions
   */
  record Timing(
      Set<Integer> partitions,
      long owned,
      long caughtUp,
      long live,
      long resultStall,
      long firstResult,
      long resultExcess) {}

  private ClusterUnderTest cluster;

  @AfterEach
  void closeCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void shouldMeasureFailoverAtSessionTimeoutsOf6And10Seconds() throws Exception {
    int runs = Integer.getInteger("skewer.timing.runs", 5);
    Map<Long, List<Timing>> all = new TreeMap<>();
    for (long sessionMs : List.of(6_000L, 10_000L)) {
      all.put(sessionMs, measure(sessionMs, runs));
    }
    StringBuilder report = new StringBuilder();
    report.append(
        String.format(
            "failover after kill -9 of 1 of 3 nodes, %d events/s, %d runs each (medians, ms):%n",
            RATE, runs));
    for (Map.Entry<Long, List<Timing>> e : all.entrySet()) {
      List<Timing> ts = e.getValue();
      report.append(
          String.format(
              "session.timeout.ms=%d: owned %d, caught up %d, live %d, result stall %d,"
                  + " first result %d (%+d vs nominal close); runs %s%n",
              e.getKey(),
              median(ts, Timing::owned),
              median(ts, Timing::caughtUp),
              median(ts, Timing::live),
              median(ts, Timing::resultStall),
              median(ts, Timing::firstResult),
              median(ts, Timing::resultExcess),
              ts));
    }
    System.err.print(report);
    Files.createDirectories(ClusterUnderTest.ROOT);
    Files.writeString(
        ClusterUnderTest.ROOT.resolve("timings.txt"),
        report.toString(),
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  @SuppressWarnings("try") // the load only has to run while the kills are timed
  private List<Timing> measure(long sessionMs, int runs) throws IOException, InterruptedException {
    cluster =
        ClusterUnderTest.builder("timing" + sessionMs / 1000)
            .broker(SharedBroker.get())
            .nodes(3)
            .coordinators(1)
            .sessionTimeout(Duration.ofMillis(sessionMs))
            .start();
    List<Timing> timings = new ArrayList<>();
    WorkloadSpec spec =
        WorkloadSpec.w1(Long.MAX_VALUE, 77)
            .withKeys(2_000)
            .withUsers(20_000)
            .withHotKeyShare(0.3)
            .withDisorder(Duration.ofSeconds(1));
    try (LoadRun load =
            LoadRun.start(
                cluster.bootstrap(),
                cluster.job(),
                Workload.live(spec, Clock.systemUTC()),
                null,
                RATE);
        StreamWatch watcher =
            new StreamWatch(
                cluster.bootstrap(),
                cluster.job().topics().partials(),
                cluster.job().topics().results())) {
      Thread.sleep(STEADY.toMillis()); // let the load run steadily before the first kill
      for (int run = 0; run < runs; run++) {
        SkewerProcess victim = cluster.nodes().get(run % cluster.nodes().size());
        timings.add(killAndTime(victim, watcher));
        victim.start();
        victim.awaitReady(ClusterUnderTest.READY_TIMEOUT);
        cluster.awaitSettled(Duration.ofSeconds(60));
        Thread.sleep(
            STEADY.toMillis()); // steady again (restores after the rejoin) before the next kill
      }
    } finally {
      cluster.close();
      cluster = null;
    }
    return timings;
  }

  private Timing killAndTime(SkewerProcess victim, StreamWatch watcher) {
    Set<Integer> partitions = cluster.partitionsOf(victim);
    long t0 = System.currentTimeMillis();
    Map<Integer, Long> wmBefore = new TreeMap<>();
    Map<Integer, Long> epochBefore = new TreeMap<>();
    Map<Integer, Long> lagBefore = new TreeMap<>();
    for (int p : partitions) {
      List<Watermark> recent = new ArrayList<>();
      List<Long> lags = new ArrayList<>();
      for (StreamWatch.Seen s : watcher.watermarks(p)) {
        if (s.seenMs() <= t0 && !s.watermark().idle()) {
          recent.add(s.watermark());
          if (s.seenMs() > t0 - 5_000) {
            lags.add(s.seenMs() - s.watermark().watermarkMs());
          }
        }
      }
      wmBefore.put(
          p, recent.stream().mapToLong(Watermark::watermarkMs).max().orElse(Long.MIN_VALUE));
      epochBefore.put(p, recent.stream().mapToLong(Watermark::epoch).max().orElse(0));
      Collections.sort(lags);
      lagBefore.put(p, lags.isEmpty() ? DELAY_MS : lags.get(lags.size() / 2));
    }

    // when
    victim.kill();

    // then
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(cluster::settled);
    long owned = System.currentTimeMillis() - t0;
    long[] caughtUp = {0};
    long[] live = {0};
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              long c = 0;
              long l = 0;
              for (int p : partitions) {
                Optional<Long> cp =
                    first(
                        watcher,
                        p,
                        epochBefore.get(p),
                        t0,
                        s -> s.watermark().watermarkMs() >= wmBefore.get(p));
                Optional<Long> lp =
                    first(
                        watcher,
                        p,
                        epochBefore.get(p),
                        t0,
                        s -> s.seenMs() - s.watermark().watermarkMs() <= lagBefore.get(p) + 1_000);
                if (cp.isEmpty() || lp.isEmpty()) {
                  return false;
                }
                c = Math.max(c, cp.get() - t0);
                l = Math.max(l, lp.get() - t0);
              }
              caughtUp[0] = c;
              live[0] = l;
              return true;
            });
    // the windows whose nominal close (end + delay) fell between the kill and the catch-up:
    // how much later than nominal their first results came
    long firstClosing = ((t0 - DELAY_MS) / WINDOW_MS - 1) * WINDOW_MS;
    long lastClosing = ((t0 + caughtUp[0] - DELAY_MS) / WINDOW_MS - 1) * WINDOW_MS;
    long[] stall = {Long.MIN_VALUE};
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              long worst = Long.MIN_VALUE;
              for (long w = firstClosing; w <= lastClosing; w += WINDOW_MS) {
                Optional<Long> r = watcher.firstResult(w);
                if (r.isEmpty()) {
                  return false;
                }
                worst = Math.max(worst, r.get() - (w + WINDOW_MS + DELAY_MS));
              }
              stall[0] = worst;
              return true;
            });
    long firstWindow = (t0 / WINDOW_MS + 1) * WINDOW_MS;
    Map.Entry<Long, Long> result =
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> watcher.firstResultFrom(firstWindow), Optional::isPresent)
            .get();
    long nominalClose = result.getKey() + WINDOW_MS + DELAY_MS;
    Timing t =
        new Timing(
            partitions,
            owned,
            caughtUp[0],
            live[0],
            stall[0],
            result.getValue() - t0,
            result.getValue() - nominalClose);
    System.err.println("failover " + victim.id() + ": " + t);
    return t;
  }

  private static Optional<Long> first(
      StreamWatch watcher,
      int p,
      long epochBefore,
      long t0,
      Predicate<StreamWatch.Seen> condition) {
    return watcher.watermarks(p).stream()
        .filter(
            s -> s.seenMs() > t0 && s.watermark().epoch() > epochBefore && !s.watermark().idle())
        .filter(condition)
        .map(StreamWatch.Seen::seenMs)
        .findFirst();
  }

  private static long median(List<Timing> ts, ToLongFunction<Timing> f) {
    long[] v = ts.stream().mapToLong(f).sorted().toArray();
    return v.length == 0 ? -1 : v[v.length / 2];
  }
}
