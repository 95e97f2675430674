package dev.skewer.core.job;

import java.util.Locale;

/**
 * What a job promises about its outputs after failures, chosen per job as Kafka Streams' {@code
 * processing.guarantee}: pick the weakest one the use case can tolerate. Neither loses an event.
 *
 * <ul>
 *   <li>{@link #AT_LEAST_ONCE}: outputs are sent by one idempotent producer per process and a
 *       checkpoint is stored once everything before it is acknowledged. After a failure the new
 *       owner replays from the last checkpoint: results stay exact (a replay replaces, never adds),
 *       but a result or side output written between the checkpoint and the failure can be written
 *       again, and a paused process can still write until it learns it was replaced.
 *   <li>{@link #EXACTLY_ONCE}: every owned partition writes through its own transactional producer;
 *       a checkpoint commits the partition's outputs, its checkpoint record and its input offset in
 *       one Kafka transaction. Readers with {@code isolation.level=read_committed} see each output
 *       exactly once, and nothing a replaced (zombie) owner writes after its successor started.
 *       Results become visible at each checkpoint of each stage.
 * </ul>
 */
public enum Guarantee {
  AT_LEAST_ONCE("at_least_once"),
  EXACTLY_ONCE("exactly_once");

  private final String label;

  Guarantee(String label) {
    this.label = label;
  }

  /**
   * How it is written in job files and in every result: {@code at_least_once}, {@code
   * exactly_once}.
   */
  public String label() {
    return label;
  }

  /**
   * The guarantee written as {@code text}: its label, case-insensitive, {@code -} read as {@code
   * _}.
   *
   * @throws JobSpecException naming {@code field} for anything else
   */
  public static Guarantee parse(String field, String text) {
    String norm = text == null ? "" : text.trim().toLowerCase(Locale.ROOT).replace('-', '_');
    for (Guarantee g : values()) {
      if (g.label.equals(norm)) {
        return g;
      }
    }
    throw new JobSpecException(
        field, "must be one of at_least_once, exactly_once, was '" + text + "'");
  }

  @Override
  public String toString() {
    return label;
  }
}
