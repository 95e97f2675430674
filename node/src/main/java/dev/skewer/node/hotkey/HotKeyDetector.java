package dev.skewer.node.hotkey;

import com.clearspring.analytics.stream.Counter;
import com.clearspring.analytics.stream.StreamSummary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fast hot-key detection on one source partition: per-key rate estimates over a sliding window of
 * the last {@code buckets × bucket} of time, from a Space-Saving heavy-hitter sketch per bucket.
 *
 * <p>Contract: {@link #update} once per event (bare key, i.e. salt stripped, and the current time);
 * {@link #candidates} per tick returns every key whose <em>guaranteed</em> count over the window
 * (Space-Saving count minus its error, never more than the true count) is at least {@code minShare}
 * of the partition's events and at least {@code minRate} per second. With {@code capacity} counters
 * per bucket, any key with more than {@code 1/capacity} of a bucket's events is tracked in that
 * bucket (Metwally, Agrawal, El Abbadi: "Efficient computation of frequent and top-k elements in
 * data streams", ICDT 2005), so a key whose share exceeds {@code minShare} comfortably above {@code
 * 1/capacity} is reported; a key of a uniform spread over many more keys than {@code capacity}
 * never is, since its guaranteed count is near zero.
 *
 * <p>The window covers at most {@code buckets × bucket} ms: the current bucket and the {@code
 * buckets − 1} before it, so a key that turns hot is reported within one tick once its share of the
 * window passes {@code minShare}, and a key that cools is forgotten after the window.
 *
 * <p>Not thread-safe: one owner (the ingest verticle's event loop). Times must not go backwards by
 * more than a bucket (a backwards time is treated as the current bucket). The sketches live on the
 * heap only: Space-Saving has no merge and must never be serialized.
 *
 * <p>Implementation note: one {@code StreamSummary} per bucket, rotated on the first update or read
 * past the bucket's end; an update is one hash lookup and a move between the sketch's count buckets
 * (allocating at most a small node).
 */
public final class HotKeyDetector {

  /**
   * Configuration.
   *
   * @param bucket time span of one sketch
   * @param buckets how many buckets make the sliding window (>= 1)
   * @param capacity counters per bucket sketch
   * @param minShare smallest share of the partition's events reported (0 < minShare <= 1)
   * @param minRate smallest rate reported, events per second (>= 0)
   */
  public record Config(
      Duration bucket, int buckets, int capacity, double minShare, double minRate) {
    public static final Duration DEFAULT_BUCKET = Duration.ofMillis(500);
    public static final int DEFAULT_BUCKETS = 4;
    public static final int DEFAULT_CAPACITY = 2_000;
    public static final double DEFAULT_MIN_SHARE = 0.002;
    public static final double DEFAULT_MIN_RATE = 10;

    public Config {
      if (bucket == null || bucket.toMillis() < 1) {
        throw new IllegalArgumentException("bucket must be >= 1 ms: " + bucket);
      }
      if (buckets < 1) {
        throw new IllegalArgumentException("buckets must be >= 1: " + buckets);
      }
      if (capacity < 1) {
        throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
      }
      if (!(minShare > 0 && minShare <= 1)) {
        throw new IllegalArgumentException("minShare must be in (0, 1]: " + minShare);
      }
      if (!(minRate >= 0) || Double.isInfinite(minRate)) {
        throw new IllegalArgumentException("minRate must be finite and >= 0: " + minRate);
      }
    }

    /** 4 buckets of 500 ms (a 2 s window), 2,000 counters each, share >= 0.2%, >= 10 events/s. */
    public static Config defaults() {
      return new Config(
          DEFAULT_BUCKET, DEFAULT_BUCKETS, DEFAULT_CAPACITY, DEFAULT_MIN_SHARE, DEFAULT_MIN_RATE);
    }

    public Config withMinShare(double minShare) {
      return new Config(bucket, buckets, capacity, minShare, minRate);
    }

    public Config withMinRate(double minRate) {
      return new Config(bucket, buckets, capacity, minShare, minRate);
    }

    public Config withWindow(Duration bucket, int buckets) {
      return new Config(bucket, buckets, capacity, minShare, minRate);
    }

    public Config withCapacity(int capacity) {
      return new Config(bucket, buckets, capacity, minShare, minRate);
    }
  }

  // configuration
  private final Config config;
  private final long bucketMs;

  // transient state (never checkpointed: detection restarts empty)
  private final StreamSummary<String>[] sketches;
  private final long[] totals;
  private int current;
  private long currentStartMs = Long.MIN_VALUE;
  private long firstMs = Long.MIN_VALUE;

  @SuppressWarnings({"unchecked", "rawtypes"}) // generic array of sketches
  public HotKeyDetector(Config config) {
    this.config = config;
    this.bucketMs = config.bucket().toMillis();
    this.sketches = new StreamSummary[config.buckets()];
    this.totals = new long[config.buckets()];
    for (int i = 0; i < sketches.length; i++) {
      sketches[i] = new StreamSummary<>(config.capacity());
    }
  }

  public Config config() {
    return config;
  }

  /** Folds in one event of bare key {@code key} at time {@code nowMs}. */
  public void update(String key, long nowMs) {
    advance(nowMs);
    sketches[current].offer(key);
    totals[current]++;
  }

  /** Events in the window ending at {@code nowMs}. */
  public long windowEvents(long nowMs) {
    advance(nowMs);
    long n = 0;
    for (long t : totals) {
      n += t;
    }
    return n;
  }

  /** The partition's total rate over the window ending at {@code nowMs}, events per second. */
  public double rate(long nowMs) {
    long events = windowEvents(nowMs);
    return events == 0 ? 0 : events * 1000.0 / spanMs(nowMs);
  }

  /** The keys reported hot at {@code nowMs} (see the class contract), highest rate first. */
  public List<HotKeyCandidate> candidates(long nowMs) {
    long events = windowEvents(nowMs);
    if (events == 0) {
      return List.of();
    }
    long minCount = (long) Math.ceil(config.minShare() * events);
    double seconds = spanMs(nowMs) / 1000.0;
    List<HotKeyCandidate> out = new ArrayList<>();
    for (Map.Entry<String, Long> e : guaranteedAtLeast(sketches, minCount).entrySet()) {
      long count = e.getValue();
      double rate = count / seconds;
      if (rate >= config.minRate()) {
        out.add(new HotKeyCandidate(e.getKey(), rate, Math.min(1.0, (double) count / events)));
      }
    }
    out.sort(
        (a, b) -> {
          int c = Double.compare(b.eventsPerSecond(), a.eventsPerSecond());
          return c != 0 ? c : a.key().compareTo(b.key());
        });
    return out;
  }

  /**
   * Each key's guaranteed count (its count minus its error) summed over {@code sketches}, for the
   * keys whose sum is at least {@code minCount} (>= 1). Such a key has at least {@code minCount /
   * sketches} in one of them, so only the keys that do are summed: a map of the few candidates, not
   * of every counter of every sketch.
   */
  static Map<String, Long> guaranteedAtLeast(StreamSummary<String>[] sketches, long minCount) {
    long inOne = Math.max(1, (minCount + sketches.length - 1) / sketches.length);
    List<List<Counter<String>>> counters = new ArrayList<>(sketches.length);
    Map<String, long[]> sums = new HashMap<>();
    for (StreamSummary<String> sketch : sketches) {
      if (sketch.size() == 0) {
        continue;
      }
      List<Counter<String>> top = sketch.topK(sketch.getCapacity());
      counters.add(top);
      for (Counter<String> c : top) {
        if (c.getCount() - c.getError() >= inOne) {
          sums.putIfAbsent(c.getItem(), new long[1]);
        }
      }
    }
    if (sums.isEmpty()) {
      return Map.of();
    }
    for (List<Counter<String>> top : counters) {
      for (Counter<String> c : top) {
        long lower = c.getCount() - c.getError();
        long[] sum = lower > 0 ? sums.get(c.getItem()) : null;
        if (sum != null) {
          sum[0] += lower;
        }
      }
    }
    Map<String, Long> out = new HashMap<>();
    for (Map.Entry<String, long[]> e : sums.entrySet()) {
      if (e.getValue()[0] >= minCount) {
        out.put(e.getKey(), e.getValue()[0]);
      }
    }
    return out;
  }

  private long spanMs(long nowMs) {
    long windowStart = currentStartMs - (sketches.length - 1) * bucketMs;
    long start = Math.max(windowStart, firstMs);
    return Math.max(1, Math.max(nowMs, currentStartMs) - start + 1);
  }

  private void advance(long nowMs) {
    if (currentStartMs == Long.MIN_VALUE) {
      currentStartMs = Math.floorDiv(nowMs, bucketMs) * bucketMs;
      firstMs = nowMs;
      return;
    }
    if (nowMs < currentStartMs + bucketMs) {
      return;
    }
    long steps = (nowMs - currentStartMs) / bucketMs;
    int clear = (int) Math.min(steps, sketches.length);
    for (int i = 0; i < clear; i++) {
      current = (current + 1) % sketches.length;
      sketches[current] = new StreamSummary<>(config.capacity());
      totals[current] = 0;
    }
    if (steps > sketches.length) {
      current = (int) ((current + steps - sketches.length) % sketches.length);
    }
    currentStartMs += steps * bucketMs;
  }
}
