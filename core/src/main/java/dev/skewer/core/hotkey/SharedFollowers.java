package dev.skewer.core.hotkey;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * One {@link HotKeyFollower} per (bootstrap servers, topic, client id), reference-counted, so a
 * producer's partitioner and key serializer read the same table through one consumer.
 */
final class SharedFollowers {

  private static final Map<String, Shared> FOLLOWERS = new HashMap<>();

  private SharedFollowers() {}

  /** A lease on the shared follower for these producer configs; close it to release. */
  static synchronized Lease acquire(Map<String, ?> producerConfigs) {
    String topic = SaltingConfig.topic(producerConfigs);
    String id =
        producerConfigs.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)
            + "|"
            + topic
            + "|"
            + producerConfigs.get(CommonClientConfigs.CLIENT_ID_CONFIG);
    Shared s = FOLLOWERS.get(id);
    if (s == null) {
      s = new Shared(HotKeyFollower.start(SaltingConfig.consumerConfig(producerConfigs), topic));
      FOLLOWERS.put(id, s);
    }
    s.refs++;
    return new Lease(id, s.follower);
  }

  private static synchronized void release(String id) {
    Shared s = FOLLOWERS.get(id);
    if (s != null && --s.refs == 0) {
      FOLLOWERS.remove(id);
      s.follower.close();
    }
  }

  private static final class Shared {
    final HotKeyFollower follower;
    int refs;

    Shared(HotKeyFollower follower) {
      this.follower = follower;
    }
  }

  /** A reference to a shared follower; {@link #close} releases it once. */
  static final class Lease implements AutoCloseable {
    private final String id;
    final HotKeyFollower follower;
    private boolean closed;

    private Lease(String id, HotKeyFollower follower) {
      this.id = id;
      this.follower = follower;
    }

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        release(id);
      }
    }
  }
}
