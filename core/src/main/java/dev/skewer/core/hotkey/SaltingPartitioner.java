package dev.skewer.core.hotkey;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.PartitionInfo;

/**
 * A Kafka producer {@link Partitioner} that spreads hot keys over several partitions and leaves
 * every other key where Kafka's default partitioner puts it. Use it with {@link
 * SaltingKeySerializer}, which writes a hot key's records as {@code key#0 .. key#(f-1)}; the
 * routing rule is {@link SaltRouter}'s: salt {@code i} of a hot key goes to {@code (partition(key)
 * + i) mod P}.
 *
 * <p>Configuration (producer properties, see {@link SaltingConfig}): {@code partitioner.class},
 * optionally {@code skewer.hotkeys.topic}, {@code skewer.hotkeys.separator}, {@code
 * skewer.hotkeys.source}. Without a supplied source, the table follows the compacted hot-key topic
 * on a daemon thread (a {@link HotKeyFollower} shared with the serializer); {@link #partition} only
 * reads a volatile reference and never blocks. {@link #close} releases the follower.
 *
 * <p>Records without a key go round-robin over the available partitions (a custom partitioner
 * cannot hand them to Kafka's built-in sticky partitioning).
 *
 * <p>Thread-safe.
 */
public final class SaltingPartitioner implements Partitioner {

  private final AtomicInteger unkeyed = new AtomicInteger();
  private volatile SaltRouter router = SaltRouter.withDefaultSeparator();
  private volatile HotKeySource source = HotKeySource.fixed(HotKeyTable.EMPTY);
  private SharedFollowers.Lease lease;

  @Override
  public void configure(Map<String, ?> configs) {
    router = SaltingConfig.router(configs);
    HotKeySource supplied = SaltingConfig.suppliedSource(configs);
    if (supplied != null) {
      source = supplied;
    } else {
      lease = SharedFollowers.acquire(configs);
      source = lease.follower;
    }
  }

  /** The table this partitioner routes by right now. */
  public HotKeyTable table() {
    return source.current();
  }

  @Override
  public int partition(
      String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster) {
    int partitions = cluster.partitionCountForTopic(topic);
    if (keyBytes == null) {
      List<PartitionInfo> available = cluster.availablePartitionsForTopic(topic);
      int next = unkeyed.getAndIncrement() & 0x7fffffff;
      return available.isEmpty()
          ? next % partitions
          : available.get(next % available.size()).partition();
    }
    return router.partition(source.current(), keyBytes, partitions);
  }

  @Override
  public void close() {
    if (lease != null) {
      lease.close();
    }
  }
}
