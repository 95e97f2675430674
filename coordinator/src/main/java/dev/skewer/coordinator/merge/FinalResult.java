package dev.skewer.coordinator.merge;

import dev.skewer.sketches.Aggregate;

/**
 * A merged (key, window) ready to be written: revision 0 is the final result emitted when the
 * window closed; higher revisions follow late-but-allowed input.
 */
public record FinalResult(
    String key, long windowStartMs, long windowEndMs, Aggregate aggregate, int revision) {}
