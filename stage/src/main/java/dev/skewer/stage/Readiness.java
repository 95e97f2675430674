package dev.skewer.stage;

/**
 * Whether a runtime is doing its job, for {@code /health/ready}: it has joined its group, every
 * partition the group assigned it is restored and consuming, and none keeps failing.
 *
 * @param ready true when it is
 * @param reason what is missing when it is not (empty when ready)
 */
public record Readiness(boolean ready, String reason) {

  private static final Readiness READY = new Readiness(true, "");

  public Readiness {
    if (reason == null || (!ready && reason.isBlank())) {
      throw new IllegalArgumentException("a not-ready readiness needs a reason, was " + reason);
    }
  }

  public static Readiness up() {
    return READY;
  }

  public static Readiness down(String reason) {
    return new Readiness(false, reason);
  }
}
