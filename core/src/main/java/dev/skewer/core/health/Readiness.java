package dev.skewer.core.health;

import java.util.Objects;

/**
 * Whether a process is ready (serves {@code /health/ready} with 200) and, for operators, why or why
 * not: {@code "4 partitions restored and consuming"}, {@code "partitions [1, 3] not restored yet"}.
 *
 * @param ready true: 200, false: 503
 * @param detail one line for humans; non-null
 */
public record Readiness(boolean ready, String detail) {

  public Readiness {
    Objects.requireNonNull(detail, "detail");
  }

  public static Readiness up(String detail) {
    return new Readiness(true, detail);
  }

  public static Readiness down(String detail) {
    return new Readiness(false, detail);
  }
}
