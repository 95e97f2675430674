package dev.skewer.coordinator.hotkey;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import dev.skewer.core.hotkey.HotKeyReport;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.core.wire.PartialsPartition;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coordinator's share of hot-key detection: a decision <em>round</em> closes the fanout policy's
 * windows up to the global watermark, feeds it the nodes' reports (from Hazelcast) for the keys
 * this coordinator owns, and publishes the table when it changed.
 *
 * <p>Rounds run on {@link #tick} (once a second: windows sealed, cooled keys lowered after their
 * quiet period) and, after {@link #listen}, as soon as a node's report names a key owned here whose
 * fanout it would raise: a key that turns hot is salted one report after the node saw it, not up to
 * a tick later. One round at a time; a round asked for while one runs follows it. Event loop only
 * (the verticle's context), but for {@link #status} and {@link #close}.
 */
public final class HotKeyDecisions {

  private static final Logger LOG = LoggerFactory.getLogger(HotKeyDecisions.class);

  /**
   * What a round needs from its coordinator, read on the event loop when the round starts.
   *
   * @param owned the partials partitions owned
   * @param minGlobalWatermarkMs their smallest global watermark ({@code Long.MIN_VALUE}: none yet)
   */
  public record Scope(Set<Integer> owned, long minGlobalWatermarkMs) {
    public Scope {
      owned = Set.copyOf(owned);
    }
  }

  private final Vertx vertx;
  private final String coordinatorId;
  private final FanoutPolicy fanout;
  private final HotKeyPublisher publisher;
  private final HazelcastInstance hazelcast; // null: no node reports
  private final String reportsMap;
  private final int partialsPartitions;
  private final Supplier<Scope> scope;
  private boolean running;
  private boolean again;
  private UUID listener; // null: not listening
  private volatile List<HotKeyStatus> status = List.of();

  public HotKeyDecisions(
      Vertx vertx,
      String coordinatorId,
      FanoutPolicy fanout,
      HotKeyPublisher publisher,
      HazelcastInstance hazelcast,
      String reportsMap,
      int partialsPartitions,
      Supplier<Scope> scope) {
    this.vertx = vertx;
    this.coordinatorId = coordinatorId;
    this.fanout = fanout;
    this.publisher = publisher;
    this.hazelcast = hazelcast;
    this.reportsMap = reportsMap;
    this.partialsPartitions = partialsPartitions;
    this.scope = scope;
  }

  /**
   * Starts a round as soon as a node's report would raise a key's fanout (a Hazelcast entry
   * listener on the reports map; the reports are decoded on its thread, judged on the calling
   * context). Call once, on the verticle's context; a no-op without Hazelcast.
   */
  public void listen() {
    if (hazelcast == null || listener != null) {
      return;
    }
    Context context = vertx.getOrCreateContext();
    listener =
        hazelcast.<String, byte[]>getMap(reportsMap).addEntryListener(new Reports(context), true);
  }

  /** A round now (the periodic one), or right after the one running. */
  public void tick() {
    round();
  }

  private void round() {
    if (running) {
      again = true;
      return;
    }
    Scope s = scope.get();
    if (s.owned().isEmpty()) {
      return;
    }
    if (s.minGlobalWatermarkMs() != Long.MIN_VALUE) {
      fanout.sealWindowsEndingBy(s.minGlobalWatermarkMs());
    }
    running = true;
    vertx
        .executeBlocking(this::readReports, false)
        .compose(
            reports -> {
              observe(reports, s.owned());
              HotKeyTable table = fanout.decide();
              status = List.copyOf(fanout.status());
              if (LOG.isDebugEnabled()) {
                LOG.debug(
                    "coordinator={} hot-key round over partials partitions {}: reports {}; table"
                        + " of {} keys {}",
                    coordinatorId,
                    s.owned(),
                    describe(reports, System.currentTimeMillis()),
                    table.size(),
                    largest(table));
              }
              return vertx.executeBlocking(() -> publisher.publish(table), false);
            })
        .onComplete(
            ar -> {
              running = false;
              if (ar.failed()) {
                LOG.warn("coordinator={} hot-key round failed", coordinatorId, ar.cause());
              }
              if (again) {
                again = false;
                round();
              }
            });
  }

  /** On the event loop: a round if {@code report} would raise the fanout of a key owned here. */
  void onReport(HotKeyReport report) {
    Set<Integer> owned = scope.get().owned();
    for (Map.Entry<String, Double> c : report.candidates().entrySet()) {
      if (owned.contains(partialsPartition(c.getKey()))
          && fanout.wouldRaise(c.getKey(), c.getValue())) {
        round();
        return;
      }
    }
  }

  private List<HotKeyReport> readReports() {
    return hazelcast == null
        ? List.of()
        : HotKeyReport.decodeAll(hazelcast.<String, byte[]>getMap(reportsMap).values());
  }

  private void observe(List<HotKeyReport> reports, Set<Integer> owned) {
    for (HotKeyReport r : reports) {
      fanout.observePartitionRate(r.partition(), r.eventsPerSecond());
      r.candidates()
          .forEach(
              (key, rate) -> {
                if (owned.contains(partialsPartition(key))) {
                  fanout.observeCandidate(r.partition(), key, rate);
                }
              });
    }
  }

  /** Per report: its partition, age, rate and top candidate (a round's DEBUG line). */
  private static String describe(List<HotKeyReport> reports, long nowMs) {
    StringBuilder b = new StringBuilder("[");
    for (HotKeyReport r : reports) {
      if (b.length() > 1) {
        b.append(", ");
      }
      b.append('p')
          .append(r.partition())
          .append(' ')
          .append(nowMs - r.atMs())
          .append(" ms old ")
          .append(Math.round(r.eventsPerSecond()))
          .append("/s");
      r.candidates().entrySet().stream()
          .max(Map.Entry.comparingByValue())
          .ifPresent(
              c ->
                  b.append(" top ")
                      .append(c.getKey())
                      .append(' ')
                      .append(Math.round(c.getValue())));
    }
    return b.append(']').toString();
  }

  /** The table's five keys of the largest fanout, as {@code key×fanout}. */
  private static List<String> largest(HotKeyTable table) {
    return table.entries().stream()
        .sorted((a, b) -> Integer.compare(b.fanout(), a.fanout()))
        .limit(5)
        .map(h -> h.key() + "×" + h.fanout())
        .toList();
  }

  private int partialsPartition(String key) {
    return PartialsPartition.of(key, partialsPartitions);
  }

  /** The hot keys decided, with their measured rates (thread-safe; for the HTTP API). */
  public List<HotKeyStatus> status() {
    return status;
  }

  /** Stops listening and closes the publisher's producer (blocking). */
  public void close() {
    if (listener != null) {
      try {
        hazelcast.<String, byte[]>getMap(reportsMap).removeEntryListener(listener);
      } catch (RuntimeException e) {
        LOG.debug("coordinator={} could not remove its report listener", coordinatorId, e);
      }
      listener = null;
    }
    publisher.close();
  }

  /** Each report put or replaced in the map, decoded on Hazelcast's event thread. */
  private final class Reports
      implements EntryAddedListener<String, byte[]>, EntryUpdatedListener<String, byte[]> {
    private final Context context;

    Reports(Context context) {
      this.context = context;
    }

    @Override
    public void entryAdded(EntryEvent<String, byte[]> event) {
      arrived(event.getValue());
    }

    @Override
    public void entryUpdated(EntryEvent<String, byte[]> event) {
      arrived(event.getValue());
    }

    private void arrived(byte[] value) {
      if (value == null) {
        return;
      }
      HotKeyReport report;
      try {
        report = HotKeyReport.decode(value);
      } catch (IllegalArgumentException e) {
        return; // a report from a newer or broken node: the periodic rounds skip it too
      }
      if (!report.candidates().isEmpty()) {
        context.runOnContext(v -> onReport(report));
      }
    }
  }
}
