package dev.skewer.loadgen.produce;

import java.time.Duration;

/**
 * What a {@link LoadProducer} run sent.
 *
 * @param sent records handed to the producer (every kind)
 * @param normal NORMAL events among them
 * @param lateKind LATE-kind events (generated late; the watermark decides whether they are)
 * @param malformed MALFORMED events
 * @param future FUTURE events
 * @param failed records the broker did not acknowledge (logged at WARN)
 * @param elapsed wall time from the first send to the end of the final flush
 * @param eventsPerSecond {@code sent / elapsed}
 */
public record LoadSummary(
    long sent,
    long normal,
    long lateKind,
    long malformed,
    long future,
    long failed,
    Duration elapsed,
    double eventsPerSecond) {

  public LoadSummary {
    if (sent != normal + lateKind + malformed + future) {
      throw new IllegalArgumentException(
          "sent must equal normal + lateKind + malformed + future: "
              + sent
              + " != "
              + normal
              + " + "
              + lateKind
              + " + "
              + malformed
              + " + "
              + future);
    }
  }
}
