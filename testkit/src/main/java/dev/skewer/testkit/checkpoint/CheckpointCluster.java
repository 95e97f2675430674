package dev.skewer.testkit.checkpoint;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.checkpoint.Saved;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.net.FreePorts;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import java.util.Arrays;
import java.util.List;

/**
 * The checkpoint store as shipped, for tests of large checkpoints: an embedded broker, two
 * Hazelcast members on loopback (so every map entry has its backup on the other member) and a
 * {@link HazelcastCheckpointStore} on the first one, mirroring to a compacted topic. Closing it
 * closes the store, terminates both members and stops the broker.
 */
public final class CheckpointCluster implements AutoCloseable {

  private final EmbeddedKafka kafka;
  private final HazelcastInstance first;
  private final HazelcastInstance second;
  private final HazelcastCheckpointStore store;

  private CheckpointCluster(
      EmbeddedKafka kafka,
      HazelcastInstance first,
      HazelcastInstance second,
      HazelcastCheckpointStore store) {
    this.kafka = kafka;
    this.first = first;
    this.second = second;
    this.store = store;
  }

  /**
   * Starts the broker, the two members (with the member role {@code role}, e.g. {@code node}) and
   * the store of job {@code job}.
   */
  public static CheckpointCluster start(String job, String role) {
    EmbeddedKafka kafka = EmbeddedKafka.start();
    HazelcastInstance a = null;
    HazelcastInstance b = null;
    try {
      int p1 = FreePorts.next();
      int p2 = FreePorts.next();
      List<String> members = List.of("127.0.0.1:" + p1, "127.0.0.1:" + p2);
      a = HazelcastMembers.start(ClusterSettings.loopback(job + "-" + p1, p1, members), "a", role);
      b = HazelcastMembers.start(ClusterSettings.loopback(job + "-" + p1, p2, members), "b", role);
      HazelcastCheckpointStore store =
          HazelcastCheckpointStore.create(
              a,
              KafkaSettings.of(kafka.bootstrapServers()),
              JobNames.of(job),
              job + ".checkpoints",
              true);
      return new CheckpointCluster(kafka, a, b, store);
    } catch (RuntimeException e) {
      terminate(b);
      terminate(a);
      kafka.close();
      throw e;
    }
  }

  public HazelcastCheckpointStore store() {
    return store;
  }

  /**
   * What {@link #roundTrip} read back, and how long each step took.
   *
   * @param read the checkpoint read back from the topic at the position the save reported
   */
  public record RoundTrip(
      Checkpoint read, int chunkBytes, long saveMs, long loadMs, long readBackMs) {

    /** Chunks the state took (0 when it fits one record unchunked). */
    public int chunks() {
      int length = read.state().length;
      return length <= chunkBytes ? 0 : (length + chunkBytes - 1) / chunkBytes;
    }

    /** Size, chunks and timings, with the bytes per (key, window) for {@code keys} of them. */
    public String describe(long keys) {
      return String.format(
          "%,d state bytes (%.1f B per key and window), %d chunks of %,d bytes; save (2 Hazelcast"
              + " members + Kafka mirror) %d ms, load %d ms, read back from the topic %d ms",
          read.state().length,
          read.state().length / (double) keys,
          chunks(),
          chunkBytes,
          saveMs,
          loadMs,
          readBackMs);
    }
  }

  /**
   * Saves {@code state} as the checkpoint of {@code id} at a new epoch (chunk map, fenced slot,
   * Kafka mirror), loads it back from Hazelcast and reads it back from the topic at the position
   * the save reported.
   *
   * @throws AssertionError when the save is refused or not logged, or when what is loaded or read
   *     back differs from what was saved
   */
  public RoundTrip roundTrip(String id, long nextOffset, byte[] state) {
    Checkpoint checkpoint = new Checkpoint(store.nextEpoch(id), nextOffset, 1, state);
    long t0 = System.nanoTime();
    Saved saved = store.save(id, checkpoint);
    long t1 = System.nanoTime();
    if (!saved.accepted() || saved.logPartition() < 0) {
      throw new AssertionError(id + ": save not accepted and logged: " + saved);
    }
    Checkpoint loaded =
        store.load(id).orElseThrow(() -> new AssertionError(id + ": nothing to load"));
    long t2 = System.nanoTime();
    if (!Arrays.equals(loaded.state(), checkpoint.state())) {
      throw new AssertionError(id + ": the state loaded differs from the state saved");
    }
    loaded = null; // a large state: only one copy at a time besides the caller's
    Checkpoint read =
        store
            .read(id, saved.logPartition(), saved.logOffset())
            .orElseThrow(() -> new AssertionError(id + ": nothing at " + saved));
    long t3 = System.nanoTime();
    if (!read.equals(checkpoint)) {
      throw new AssertionError(id + ": the checkpoint read back differs from the one saved");
    }
    return new RoundTrip(read, store.chunkBytes(), ms(t0, t1), ms(t1, t2), ms(t2, t3));
  }

  private static long ms(long fromNs, long toNs) {
    return (toNs - fromNs) / 1_000_000;
  }

  @Override
  public void close() {
    try {
      store.close();
    } finally {
      terminate(second);
      terminate(first);
      kafka.close();
    }
  }

  private static void terminate(HazelcastInstance member) {
    if (member != null) {
      member.getLifecycleService().terminate();
    }
  }
}
