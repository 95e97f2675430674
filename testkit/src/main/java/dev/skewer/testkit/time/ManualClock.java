package dev.skewer.testkit.time;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that stands still until a test moves it ({@link #advance}). Thread-safe. */
public final class ManualClock extends Clock {

  private final AtomicLong millis;

  public ManualClock(long startMs) {
    this.millis = new AtomicLong(startMs);
  }

  /** Sets the clock to {@code ms}. */
  public void set(long ms) {
    millis.set(ms);
  }

  /** Moves the clock {@code ms} forward. */
  public void advance(long ms) {
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
