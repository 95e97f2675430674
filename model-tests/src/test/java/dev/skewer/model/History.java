package dev.skewer.model;

import dev.skewer.core.hotkey.HotKeyTable;
import java.util.ArrayList;
import java.util.List;

/**
 * One generated history: the job, the hot-key table the producers salt by, how the runtimes are
 * tuned, and the steps. Everything is a function of {@link #seed} ({@link HistoryGenerator}).
 *
 * @param maxPollRecords records per poll (where poll batches are cut)
 * @param maxPendingRecords unacknowledged records above which a runtime takes no new batch
 * @param checkpointIntervalMs how often each owned partition is checkpointed
 * @param frontier whether the coordinators' frontier is handed to the nodes
 */
record History(
    long seed,
    ModelJob job,
    HotKeyTable hotKeys,
    int maxPollRecords,
    int maxPendingRecords,
    long checkpointIntervalMs,
    boolean frontier,
    List<Step> steps) {

  /** Every appended record, in append order. */
  List<InputEvent> events() {
    List<InputEvent> all = new ArrayList<>();
    for (Step s : steps) {
      if (s instanceof Step.Append a) {
        all.addAll(a.events());
      }
    }
    return all;
  }

  /** The same history without its failures. */
  History withoutFaults() {
    List<Step> kept = new ArrayList<>();
    for (Step s : steps) {
      if (!s.fault()) {
        kept.add(s);
      }
    }
    return new History(
        seed,
        job,
        hotKeys,
        maxPollRecords,
        maxPendingRecords,
        checkpointIntervalMs,
        frontier,
        kept);
  }

  long faults() {
    return steps.stream().filter(Step::fault).count();
  }

  /** A readable account of the history, for failure messages. */
  String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append("seed ")
        .append(seed)
        .append(": ")
        .append(job)
        .append("; hot keys ")
        .append(hotKeys)
        .append("; maxPollRecords ")
        .append(maxPollRecords)
        .append(", maxPendingRecords ")
        .append(maxPendingRecords)
        .append(", checkpoints every ")
        .append(checkpointIntervalMs)
        .append("ms")
        .append(frontier ? ", frontier handed to the nodes" : "")
        .append('\n');
    for (int i = 0; i < steps.size(); i++) {
      sb.append(String.format("  %3d ", i)).append(steps.get(i)).append('\n');
    }
    return sb.toString();
  }
}
