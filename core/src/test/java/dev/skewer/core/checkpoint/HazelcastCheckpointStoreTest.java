package dev.skewer.core.checkpoint;

import static dev.skewer.core.checkpoint.HazelcastCheckpointStore.DEFAULT_CHUNK_BYTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.net.FreePorts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The store on two real Hazelcast members (no Kafka mirror): the fence and the checkpoint of an id
 * change in one atomic step, so a zombie's save racing its successor's {@code nextEpoch} either
 * lands before it — and the successor loads it — or is refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HazelcastCheckpointStoreTest {

  private static final int ROUNDS = 24;
  private static final JobNames NAMES = JobNames.of("store-test");
  private static final JobNames SMALL = JobNames.of("store-test-small-chunks");

  private HazelcastInstance zombieMember;
  private HazelcastInstance successorMember;
  private HazelcastCheckpointStore zombieSide;
  private HazelcastCheckpointStore successorSide;

  @BeforeAll
  void startMembers() {
    int p1 = FreePorts.next();
    int p2 = FreePorts.next();
    List<String> members = List.of("127.0.0.1:" + p1, "127.0.0.1:" + p2);
    String cluster = "skewer-store-test-" + p1;
    zombieMember =
        HazelcastMembers.start(ClusterSettings.loopback(cluster, p1, members), "node-1", "node");
    successorMember =
        HazelcastMembers.start(ClusterSettings.loopback(cluster, p2, members), "node-2", "node");
    zombieSide = HazelcastCheckpointStore.create(zombieMember, null, NAMES, "unused", false);
    successorSide = HazelcastCheckpointStore.create(successorMember, null, NAMES, "unused", false);
  }

  @AfterAll
  void stopMembers() {
    for (HazelcastInstance hz : new HazelcastInstance[] {successorMember, zombieMember}) {
      if (hz != null) {
        hz.getLifecycleService().terminate();
      }
    }
  }

  /**
   * A zombie's save races its successor's {@code nextEpoch} and {@code load}. The zombie's
   * checkpoint is large (16 MB, 32 chunks) and travels to the entry owners on both members, so the
   * save takes tens of milliseconds while the successor's calls take about one: the successor calls
   * in, at a different moment each round, while the chunks or the manifest are being written. A
   * check-then-write store checks the epoch before the checkpoint travels and writes after, so in
   * most rounds the write lands after the successor has loaded (the previous implementation failed
   * here); an atomic one checks where it writes, so the successor either loads the zombie's
   * checkpoint or the zombie is refused.
   */
  @Test
  void shouldNeverLetAZombieSaveLandAfterItsSuccessorTookANewEpochAndLoaded() throws Exception {
    byte[] large = new byte[16 * 1024 * 1024];
    List<String> violations = new ArrayList<>();
    int landedBefore = 0;
    int refused = 0;
    for (int round = 0; round < ROUNDS; round++) {
      // given a zombie of epoch 1 with a small checkpoint stored, starting a large save
      String id = idOwnedBy(successorMember, "node/race/" + round + "/");
      long zombieEpoch = zombieSide.nextEpoch(id);
      Checkpoint small = new Checkpoint(zombieEpoch, 1, 0, new byte[8]);
      assertThat(zombieSide.save(id, small).accepted()).isTrue();
      Checkpoint big = new Checkpoint(zombieEpoch, 2, 0, large);
      CountDownLatch saving = new CountDownLatch(1);
      AtomicReference<Boolean> saved = new AtomicReference<>();
      AtomicReference<Throwable> failed = new AtomicReference<>();
      Thread zombie =
          new Thread(
              () -> {
                saving.countDown();
                try {
                  saved.set(zombieSide.save(id, big).accepted());
                } catch (RuntimeException | Error e) {
                  failed.set(e);
                }
              });
      zombie.start();
      assertThat(saving.await(10, TimeUnit.SECONDS)).isTrue();
      // a different moment of the save each round: its chunks take tens of milliseconds to write
      spin(Duration.ofNanos((round % 8) * 20_000_000L));

      // when its successor takes epoch 2 and loads what is stored
      long successorEpoch = successorSide.nextEpoch(id);
      Optional<Checkpoint> loaded = successorSide.load(id);
      zombie.join(30_000);

      // then the zombie's save is either what the successor loaded, or refused
      assertThat(successorEpoch).isEqualTo(zombieEpoch + 1);
      assertThat(failed.get()).as("the zombie's save failed").isNull();
      assertThat(saved.get()).as("the zombie's save finished").isNotNull();
      Optional<Checkpoint> now = successorSide.load(id);
      if (!now.equals(loaded)) {
        violations.add(
            id + ": the successor loaded " + loaded + ", then the zombie's save landed: " + now);
      } else if (saved.get()) {
        assertThat(loaded).contains(big);
        assertThat(chunkKeysOf(successorSide, id)).hasSize(large.length / DEFAULT_CHUNK_BYTES);
        landedBefore++;
      } else {
        assertThat(loaded).contains(small);
        assertThat(chunkKeysOf(successorSide, id)).as("the refused save's chunks").isEmpty();
        refused++;
      }
    }
    assertThat(violations).isEmpty();
    assertThat(landedBefore + refused).isEqualTo(ROUNDS);
    System.err.printf(
        "zombie saves: %d landed before the new epoch, %d refused%n", landedBefore, refused);
  }

  /** Busy-waits {@code d}: a timing jitter, not a synchronisation. */
  private static void spin(Duration d) {
    long until = System.nanoTime() + d.toNanos();
    while (System.nanoTime() < until) {
      Thread.onSpinWait();
    }
  }

  @Test
  void shouldFenceSavesAndCachesByEpochAndKeepTheLatestCheckpoint() {
    // given
    String id = "coordinator/fence/0";
    assertThat(successorSide.currentEpoch(id)).isZero();
    assertThat(successorSide.load(id)).isEmpty();
    long first = zombieSide.nextEpoch(id);
    Checkpoint a = new Checkpoint(first, 10, 1, new byte[] {1});

    // when / then
    assertThat(zombieSide.save(id, a).accepted()).isTrue();
    assertThat(successorSide.load(id)).contains(a);
    long second = successorSide.nextEpoch(id);
    assertThat(second).isEqualTo(first + 1);
    assertThat(successorSide.load(id)).as("a new epoch keeps the checkpoint").contains(a);
    assertThat(zombieSide.save(id, new Checkpoint(first, 11, 2, new byte[] {2})).accepted())
        .isFalse();
    assertThat(zombieSide.cache(id, new Checkpoint(first, 12, 3, new byte[] {3}))).isFalse();
    Checkpoint b = new Checkpoint(second, 20, 4, new byte[] {4, 5});
    assertThat(successorSide.cache(id, b)).isTrue();
    assertThat(zombieSide.load(id)).contains(b);
    assertThat(zombieSide.ids()).contains(id);
    assertThat(zombieSide.writeTransactional(id, b, null)).as("no Kafka: no topic").isEmpty();
    assertThat(successorMember.<String, Long>getMap(NAMES.epochsMap()).get(id)).isEqualTo(second);
  }

  @Test
  void shouldLoadCheckpointsOfEverySizeAroundTheChunkBoundary() {
    int chunk = HazelcastCheckpointStore.MIN_CHUNK_BYTES;
    try (HazelcastCheckpointStore store = smallChunks(successorMember)) {
      for (int size : new int[] {0, 1, chunk - 1, chunk, chunk + 1, 7 * chunk + 13}) {
        // given
        String id = "node/sizes/" + size;
        long epoch = store.nextEpoch(id);
        Checkpoint cp = new Checkpoint(epoch, size, 1_000 + size, random(size, size));

        // when
        assertThat(store.save(id, cp).accepted()).isTrue();

        // then
        assertThat(smallChunks(zombieMember).load(id)).as("size %d", size).contains(cp);
        int chunks = size > chunk ? (size + chunk - 1) / chunk : 0;
        assertThat(chunkKeysOf(store, id)).as("chunks of size %d", size).hasSize(chunks);
      }
    }
  }

  @Test
  void shouldDeleteTheChunksOfAReplacedCheckpointAndOfARefusedOne() {
    int chunk = HazelcastCheckpointStore.MIN_CHUNK_BYTES;
    try (HazelcastCheckpointStore zombie = smallChunks(zombieMember);
        HazelcastCheckpointStore successor = smallChunks(successorMember)) {
      // given a chunked checkpoint
      String id = "node/replace/0";
      long first = zombie.nextEpoch(id);
      Checkpoint a = new Checkpoint(first, 1, 1, random(3 * chunk, 1));
      assertThat(zombie.save(id, a).accepted()).isTrue();
      assertThat(chunkKeysOf(zombie, id)).hasSize(3).allMatch(k -> k.startsWith(id + "/1/1/"));

      // when a later one of the same owner replaces it
      Checkpoint b = new Checkpoint(first, 2, 2, random(2 * chunk + 1, 2));
      assertThat(zombie.save(id, b).accepted()).isTrue();

      // then only the later one's chunks are left
      assertThat(chunkKeysOf(zombie, id)).hasSize(3).allMatch(k -> k.startsWith(id + "/1/2/"));

      // when a successor takes over and the zombie's next save is refused
      successor.nextEpoch(id);
      Checkpoint c = new Checkpoint(first, 3, 3, random(5 * chunk, 3));
      assertThat(zombie.save(id, c).accepted()).isFalse();
      assertThat(zombie.cache(id, c)).isFalse();

      // then its chunks are gone and the successor loads the last accepted one
      assertThat(chunkKeysOf(zombie, id)).hasSize(3).allMatch(k -> k.startsWith(id + "/1/2/"));
      assertThat(successor.load(id)).contains(b);

      // when the successor saves an unchunked one, then every chunk is gone
      Checkpoint d = new Checkpoint(first + 1, 4, 4, random(10, 4));
      assertThat(successor.save(id, d).accepted()).isTrue();
      assertThat(chunkKeysOf(successor, id)).isEmpty();
      assertThat(zombie.load(id)).contains(d);
    }
  }

  @Test
  void shouldNotDeleteTheChunksOfACheckpointSavedTwice() {
    int chunk = HazelcastCheckpointStore.MIN_CHUNK_BYTES;
    try (HazelcastCheckpointStore store = smallChunks(zombieMember)) {
      String id = "node/twice/0";
      long epoch = store.nextEpoch(id);
      Checkpoint a = new Checkpoint(epoch, 1, 1, random(2 * chunk + 5, 1));
      assertThat(store.save(id, a).accepted()).isTrue();
      assertThat(store.cache(id, a)).isTrue();
      assertThat(store.load(id)).contains(a);
      store.nextEpoch(id);
      assertThat(store.cache(id, a)).as("refused: a newer epoch").isFalse();
      assertThat(store.load(id))
          .as("a refused copy of the stored one keeps its chunks")
          .contains(a);
    }
  }

  @Test
  void shouldNameTheMissingOrCorruptChunk() {
    int chunk = HazelcastCheckpointStore.MIN_CHUNK_BYTES;
    try (HazelcastCheckpointStore store = smallChunks(zombieMember)) {
      // given
      String id = "node/broken/0";
      long epoch = store.nextEpoch(id);
      assertThat(store.save(id, new Checkpoint(epoch, 1, 1, random(3 * chunk, 5))).accepted())
          .isTrue();
      IMap<String, byte[]> chunks = zombieMember.getMap(SMALL.checkpointChunksMap());
      String second = id + "/" + epoch + "/1/1";

      // when a chunk is corrupt, then
      byte[] flipped = chunks.get(second);
      flipped[7] ^= 1;
      chunks.set(second, flipped);
      assertThatThrownBy(() -> store.load(id))
          .isInstanceOf(CheckpointFormatException.class)
          .hasMessageContaining("CRC32");

      // when a chunk is missing, then
      chunks.delete(second);
      assertThatThrownBy(() -> store.load(id))
          .isInstanceOf(CheckpointFormatException.class)
          .hasMessageContaining("chunk " + second + " of 3 is missing");
    }
  }

  private static HazelcastCheckpointStore smallChunks(HazelcastInstance member) {
    return HazelcastCheckpointStore.create(
        member, null, SMALL, "unused", false, HazelcastCheckpointStore.MIN_CHUNK_BYTES);
  }

  private static List<String> chunkKeysOf(HazelcastCheckpointStore store, String id) {
    return store.chunkKeys().stream().filter(k -> k.startsWith(id + "/")).toList();
  }

  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** The first {@code prefix + i} whose map entry {@code member} owns. */
  private static String idOwnedBy(HazelcastInstance member, String prefix) {
    for (int i = 0; ; i++) {
      String id = prefix + i;
      var owner = member.getPartitionService().getPartition(id).getOwner();
      if (owner != null && owner.localMember()) {
        return id;
      }
    }
  }
}
