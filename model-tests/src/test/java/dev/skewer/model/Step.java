package dev.skewer.model;

import java.util.List;

/** One thing that happens in a history. {@link #fault()} steps are left out of the baseline run. */
sealed interface Step {

  /** Which stage a process step is about. */
  enum Stage {
    NODE,
    COORDINATOR
  }

  /** Whether this step is a failure, left out of the failure-free run. */
  default boolean fault() {
    return false;
  }

  /** Producers append these records to the events topic (each to its partition). */
  record Append(List<InputEvent> events) implements Step {
    @Override
    public String toString() {
      return "append " + events;
    }
  }

  /** Wait until every process has read its input to the end and everything is acknowledged. */
  record Settle() implements Step {
    @Override
    public String toString() {
      return "settle";
    }
  }

  /** Settle, move processing time on by {@code ms}, and let every task tick on it. */
  record Advance(long ms) implements Step {
    @Override
    public String toString() {
      return "advance the clock " + ms + "ms";
    }
  }

  /** Settle, then hand the coordinators' frontier to the nodes (as the frontier map does). */
  record PushFrontier() implements Step {
    @Override
    public String toString() {
      return "push the coordinators' frontier to the nodes";
    }
  }

  /** The group moves a partition to process {@code to} of the stage (a new owner and epoch). */
  record Move(Stage stage, int partition, int to) implements Step {
    @Override
    public boolean fault() {
      return true;
    }

    @Override
    public String toString() {
      return "move " + stage + " partition " + partition + " to process " + to;
    }
  }

  /** A process stops (final checkpoints) and a new one takes its partitions over. */
  record Restart(Stage stage, int process) implements Step {
    @Override
    public boolean fault() {
      return true;
    }

    @Override
    public String toString() {
      return "restart " + stage + " process " + process;
    }
  }

  /** The {@code skip}-th next send of a process to {@code topic} is lost. */
  record FailNext(Stage stage, int process, String topic, int skip) implements Step {
    @Override
    public boolean fault() {
      return true;
    }

    @Override
    public String toString() {
      return "lose the send #" + skip + " of " + stage + " process " + process + " to " + topic;
    }
  }

  /** The next checkpoint of one of the stage's partitions cannot be stored. */
  record FailCheckpoint(Stage stage) implements Step {
    @Override
    public boolean fault() {
      return true;
    }

    @Override
    public String toString() {
      return "fail the next checkpoint store of the " + stage;
    }
  }

  /** The broker stops acknowledging a process's sends (back-pressure builds up). */
  record Stall(Stage stage, int process) implements Step {
    @Override
    public boolean fault() {
      return true;
    }

    @Override
    public String toString() {
      return "stall the sends of " + stage + " process " + process;
    }
  }

  /**
   * Waits until the stalled process is held back (or has read everything), then acknowledges again;
   * with {@code loseFirst} the first held send is lost — and with {@code othersAfterRetake} the
   * others land only once the partition has been taken over again (or a second has passed).
   */
  record Release(Stage stage, int process, boolean loseFirst, boolean othersAfterRetake)
      implements Step {

    Release(Stage stage, int process, boolean loseFirst) {
      this(stage, process, loseFirst, false);
    }

    @Override
    public boolean fault() {
      return true;
    }

    @Override
    public String toString() {
      return "release the sends of "
          + stage
          + " process "
          + process
          + (loseFirst ? ", losing the first" : "")
          + (othersAfterRetake ? ", the others after the partition is taken over again" : "");
    }
  }

  /** End of input: silence until every partition is finalized, then settle. */
  record End() implements Step {
    @Override
    public String toString() {
      return "end of input";
    }
  }
}
