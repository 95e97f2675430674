package dev.skewer.model;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** Processing time the history moves by hand: silence and idleness follow it, not the wall. */
final class ManualClock extends Clock {

  private final AtomicLong millis;

  ManualClock(long startMs) {
    this.millis = new AtomicLong(startMs);
  }

  void advance(long ms) {
    millis.addAndGet(ms);
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
