package dev.skewer.core.event;

import dev.skewer.core.job.JobSpec;

/** Decodes raw JSON event bytes. (API first; body follows.) */
public final class EventDecoder {
  public EventDecoder(JobSpec job) {}

  /** Fills {@code into} from {@code value}; returns null on success, else the DLQ reason. */
  public DlqReason decode(byte[] value, DecodedEvent into) {
    throw new UnsupportedOperationException("not yet");
  }
}
