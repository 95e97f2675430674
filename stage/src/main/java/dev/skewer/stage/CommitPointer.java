package dev.skewer.stage;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

/**
 * What an owner commits with a partition's input offset, in the offset's metadata: which checkpoint
 * the offset belongs to and ({@code exactly_once}) where that checkpoint's record is. {@code
 * exactly_once}: the transaction that commits the offset also commits the record, so the pointer
 * never names a checkpoint that is not there. {@code at_least_once}: committed once the checkpoint
 * is stored (no record position); a new owner takes an epoch above the pointer's and refuses a
 * store that does not reach its offset. Text form: {@code skewer-eos/1 epoch=3 next=1200
 * created=1700000000000 log=0@57} ({@code log=-} when the checkpoint store keeps no copy in Kafka).
 *
 * @param epoch the owner's fencing epoch
 * @param nextOffset the checkpoint's next input offset (the committed offset)
 * @param createdMs the checkpoint's creation time, unique per owner and partition
 * @param logPartition the checkpoint record's partition in the store's topic, or -1
 * @param logOffset the checkpoint record's offset there, or -1
 */
record CommitPointer(
    long epoch, long nextOffset, long createdMs, int logPartition, long logOffset) {

  private static final String PREFIX = "skewer-eos/1";
  private static final Pattern FORM =
      Pattern.compile(
          "skewer-eos/1 epoch=(-?\\d+) next=(\\d+) created=(-?\\d+) log=(?:(\\d+)@(\\d+)|-)");

  /** Whether the checkpoint record's position is known (the store keeps a copy in Kafka). */
  boolean hasLog() {
    return logPartition >= 0;
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
        + (hasLog() ? logPartition + "@" + logOffset : "-");
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
        m.group(5) == null ? -1 : Long.parseLong(m.group(5)));
  }

  /** Whether {@code cp} is the checkpoint this pointer names. */
  boolean names(dev.skewer.core.checkpoint.Checkpoint cp) {
    return cp.epoch() == epoch && cp.nextOffset() == nextOffset && cp.createdMs() == createdMs;
  }
}
