package dev.skewer.coordinator.hotkey;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.hotkey.HotKeyReport;
import dev.skewer.core.hotkey.HotKeyTable;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coordinator's share of hot-key detection, one {@link #tick} a second: close the fanout policy's
 * windows up to the global watermark, feed it the nodes' reports (from Hazelcast) for the keys this
 * coordinator owns, and publish the table when it changed. Event loop only, but for {@link
 * #status}.
 */
public final class HotKeyDecisions {

  private static final Logger LOG = LoggerFactory.getLogger(HotKeyDecisions.class);

  private final Vertx vertx;
  private final String coordinatorId;
  private final FanoutPolicy fanout;
  private final HotKeyPublisher publisher;
  private final HazelcastInstance hazelcast; // null: no node reports
  private final String reportsMap;
  private final int partialsPartitions;
  private boolean running;
  private volatile List<HotKeyStatus> status = List.of();

  public HotKeyDecisions(
      Vertx vertx,
      String coordinatorId,
      FanoutPolicy fanout,
      HotKeyPublisher publisher,
      HazelcastInstance hazelcast,
      String reportsMap,
      int partialsPartitions) {
    this.vertx = vertx;
    this.coordinatorId = coordinatorId;
    this.fanout = fanout;
    this.publisher = publisher;
    this.hazelcast = hazelcast;
    this.reportsMap = reportsMap;
    this.partialsPartitions = partialsPartitions;
  }

  /**
   * One decision round for the partials partitions {@code owned}, whose smallest global watermark
   * is {@code minGlobalWatermarkMs} ({@code Long.MIN_VALUE}: none yet); skipped while the previous
   * round is still reading or publishing.
   */
  public void tick(Set<Integer> owned, long minGlobalWatermarkMs) {
    if (owned.isEmpty() || running) {
      return;
    }
    if (minGlobalWatermarkMs != Long.MIN_VALUE) {
      fanout.sealWindowsEndingBy(minGlobalWatermarkMs);
    }
    running = true;
    vertx
        .executeBlocking(this::readReports, false)
        .compose(
            reports -> {
              observe(reports, owned);
              HotKeyTable table = fanout.decide();
              status = List.copyOf(fanout.status());
              return vertx.executeBlocking(() -> publisher.publish(table), false);
            })
        .onComplete(
            ar -> {
              running = false;
              if (ar.failed()) {
                LOG.warn("coordinator={} hot-key tick failed", coordinatorId, ar.cause());
              }
            });
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
                int q =
                    Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8)))
                        % partialsPartitions;
                if (owned.contains(q)) {
                  fanout.observeCandidate(r.partition(), key, rate);
                }
              });
    }
  }

  /** The hot keys decided, with their measured rates (thread-safe; for the HTTP API). */
  public List<HotKeyStatus> status() {
    return status;
  }

  /** Closes the publisher's producer (blocking). */
  public void close() {
    publisher.close();
  }
}
