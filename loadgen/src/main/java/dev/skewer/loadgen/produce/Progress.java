package dev.skewer.loadgen.produce;

import java.time.Duration;

/**
 * A progress report of a running {@link LoadProducer}.
 *
 * @param sent records sent so far
 * @param elapsed wall time since the first send
 * @param eventsPerSecond the rate over the last reporting interval
 */
public record Progress(long sent, Duration elapsed, double eventsPerSecond) {}
