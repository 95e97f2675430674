package dev.skewer.core.wire;

/** A message on the partials topic: a {@link Partial} or a {@link Watermark}. */
public sealed interface PartialsMessage permits Partial, Watermark {

  /** The source (events) partition the message comes from. */
  int sourcePartition();

  /** The fencing epoch of the node that owned the source partition when it sent this. */
  long epoch();
}
