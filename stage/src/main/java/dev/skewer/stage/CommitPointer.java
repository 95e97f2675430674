package dev.skewer.stage;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.Saved;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

/**
 * What an owner commits with a partition's input offset, in the offset's metadata: which checkpoint
 * the offset belongs to, where that checkpoint's record is in the checkpoint store's topic, and the
 * highest epoch that has claimed the partition. {@code exactly_once}: the transaction that commits
 * the offset also commits the record, so the pointer never names a checkpoint that is not there.
 * {@code at_least_once}: committed once the checkpoint is stored and its copy in Kafka written
 * ({@link Saved}); a new owner takes an epoch above the pointer's {@link #fence}, and reads the
 * checkpoint back from the topic when its store does not reach the pointer's offset.
 *
 * <p>A new {@code at_least_once} owner first commits a <em>claim</em> ({@link #claimedBy}): the
 * pointer it found with its own epoch added, or one that names no checkpoint when there was none.
 * The group accepts a commit only from a member of its current generation, so the fence the group
 * holds is kept at the broker: an owner that finds a claim takes an epoch above it, even when its
 * checkpoint store (a Hazelcast member cut off from its cluster) hands out epochs of its own.
 *
 * <p>Text form: {@code skewer-eos/1 epoch=3 next=1200 created=1700000000000 log=0@57}, then {@code
 * claim=5} after a claim; {@code log=-} when the record's position is not known, {@code created=-1}
 * (and {@code epoch=0}) when it names no checkpoint.
 *
 * @param epoch the epoch of the checkpoint's owner
 * @param nextOffset the checkpoint's next input offset (the committed offset)
 * @param createdMs the checkpoint's creation time, unique per owner and partition; -1: none named
 * @param logPartition the checkpoint record's partition in the store's topic, or -1
 * @param logOffset the checkpoint record's offset there, or -1
 * @param claimEpoch the epoch of a later owner that claimed the partition, or -1
 */
record CommitPointer(
    long epoch,
    long nextOffset,
    long createdMs,
    int logPartition,
    long logOffset,
    long claimEpoch) {

  private static final String PREFIX = "skewer-eos/1";
  private static final Pattern FORM =
      Pattern.compile(
          "skewer-eos/1 epoch=(-?\\d+) next=(\\d+) created=(-?\\d+) log=(?:(\\d+)@(\\d+)|-)"
              + "(?: claim=(\\d+))?");

  /** The pointer to a checkpoint, not claimed since. */
  CommitPointer(long epoch, long nextOffset, long createdMs, int logPartition, long logOffset) {
    this(epoch, nextOffset, createdMs, logPartition, logOffset, -1);
  }

  /** The pointer to {@code cp}, whose copy in the checkpoint topic is where {@code saved} says. */
  static CommitPointer to(Checkpoint cp, Saved saved) {
    return new CommitPointer(
        cp.epoch(), cp.nextOffset(), cp.createdMs(), saved.logPartition(), saved.logOffset());
  }

  /**
   * The claim of the owner of {@code newEpoch} resuming at {@code nextOffset}: {@code found} (the
   * pointer committed before) with the new epoch, or without one a pointer that names no
   * checkpoint.
   */
  static CommitPointer claimedBy(long newEpoch, CommitPointer found, long nextOffset) {
    if (found == null || !found.namesCheckpoint()) {
      return new CommitPointer(0, nextOffset, -1, -1, -1, newEpoch);
    }
    return new CommitPointer(
        found.epoch,
        found.nextOffset,
        found.createdMs,
        found.logPartition,
        found.logOffset,
        newEpoch);
  }

  /** The highest epoch this pointer has seen: a new owner takes one above it. */
  long fence() {
    return Math.max(epoch, claimEpoch);
  }

  /** Whether the checkpoint record's position is known (the store keeps a copy in Kafka). */
  boolean hasLog() {
    return logPartition >= 0;
  }

  /** Whether the offset belongs to a checkpoint (false for a claim made without one). */
  boolean namesCheckpoint() {
    return createdMs >= 0;
  }

  String encode() {
    return PREFIX
        + " epoch="
        + epoch
        + " next="
        + nextOffset
        + " created="
        + createdMs
        + " log="
        + (hasLog() ? logPartition + "@" + logOffset : "-")
        + (claimEpoch >= 0 ? " claim=" + claimEpoch : "");
  }

  /** The pointer committed with {@code committed}; null when there is none (or not ours). */
  static CommitPointer of(OffsetAndMetadata committed) {
    if (committed == null || committed.metadata() == null) {
      return null;
    }
    Matcher m = FORM.matcher(committed.metadata());
    if (!m.matches()) {
      return null;
    }
    return new CommitPointer(
        Long.parseLong(m.group(1)),
        Long.parseLong(m.group(2)),
        Long.parseLong(m.group(3)),
        m.group(4) == null ? -1 : Integer.parseInt(m.group(4)),
        m.group(5) == null ? -1 : Long.parseLong(m.group(5)),
        m.group(6) == null ? -1 : Long.parseLong(m.group(6)));
  }

  /** Whether {@code cp} is the checkpoint this pointer names. */
  boolean names(Checkpoint cp) {
    return namesCheckpoint()
        && cp.epoch() == epoch
        && cp.nextOffset() == nextOffset
        && cp.createdMs() == createdMs;
  }
}
