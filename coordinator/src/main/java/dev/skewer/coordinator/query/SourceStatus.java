package dev.skewer.coordinator.query;

/**
 * One source (events) partition as a partials partition's merger sees it.
 *
 * @param partition the source partition
 * @param watermarkMs its highest watermark seen ({@code Long.MIN_VALUE} before its first event)
 * @param epoch the newest fencing epoch seen from it
 * @param idle whether it is idle (does not hold the global watermark back)
 * @param reported whether any watermark from it has arrived
 */
public record SourceStatus(
    int partition, long watermarkMs, long epoch, boolean idle, boolean reported) {}
