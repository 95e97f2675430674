package dev.skewer.core.hotkey;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A key {@link Serializer} for {@code String} keys that writes a hot key's records as salted
 * sub-keys: {@code key + separator + i} with {@code i} drawn uniformly from {@code [0, f)} per
 * record ({@code f} the key's fanout in the current table). A cold key is written as plain UTF-8,
 * exactly as Kafka's {@code StringSerializer} would. Pair it with {@link SaltingPartitioner}, which
 * reads the salt back from the bytes: a Kafka partitioner cannot change the record key.
 *
 * <p>Configured as {@code key.serializer} it reads the same properties as the partitioner and
 * shares its table (one {@link HotKeyFollower} per producer); constructed by hand, it takes a
 * {@link HotKeySource}. Thread-safe; never blocks.
 *
 * <p>Implementation note: a random salt needs no per-key state and no coordination between sending
 * threads; over n records of a key each sub-key receives n/f ± sqrt(n/f) of them.
 */
public final class SaltingKeySerializer implements Serializer<String> {

  private volatile SaltRouter router = SaltRouter.withDefaultSeparator();
  private volatile HotKeySource source;
  private SharedFollowers.Lease lease;

  /** For {@code key.serializer}: {@link #configure} finds the table. */
  public SaltingKeySerializer() {
    this.source = HotKeySource.fixed(HotKeyTable.EMPTY);
  }

  /** A serializer reading {@code source} with separator {@code separator}. */
  public SaltingKeySerializer(HotKeySource source, String separator) {
    if (source == null) {
      throw new IllegalArgumentException("source must not be null");
    }
    this.source = source;
    this.router = new SaltRouter(separator);
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    if (!isKey) {
      throw new IllegalArgumentException("SaltingKeySerializer serializes record keys only");
    }
    router = SaltingConfig.router(configs);
    HotKeySource supplied = SaltingConfig.suppliedSource(configs);
    if (supplied != null) {
      source = supplied;
    } else {
      lease = SharedFollowers.acquire(configs);
      source = lease.follower;
    }
  }

  @Override
  public byte[] serialize(String topic, String key) {
    if (key == null) {
      return null;
    }
    HotKey hot = source.current().get(key);
    if (hot == null) {
      return key.getBytes(StandardCharsets.UTF_8);
    }
    int salt = ThreadLocalRandom.current().nextInt(hot.fanout());
    return (key + router.separator() + salt).getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    if (lease != null) {
      lease.close();
    }
  }
}
