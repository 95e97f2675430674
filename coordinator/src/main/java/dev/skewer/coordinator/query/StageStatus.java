package dev.skewer.coordinator.query;

import dev.skewer.coordinator.merge.SourceWatermarks;
import dev.skewer.coordinator.merge.WindowMerger;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one partials partition's merger knows, published by its owner once a second so that every
 * coordinator can answer for the whole cluster: the global watermark and every source partition's
 * watermark, epoch and idleness, how much it holds, and the speculative totals of its open windows.
 *
 * @param partition the partials partition
 * @param coordinator the owning coordinator's id
 * @param epoch the owner's fencing epoch for this partition
 * @param atMs when it was taken (wall clock)
 * @param globalWatermarkMs the partition's global watermark ({@code Long.MIN_VALUE}: held back)
 * @param heldPartials Partials held
 * @param sources every source partition's status, by partition
 * @param open speculative totals of open windows (empty when the stage sends none)
 */
public record StageStatus(
    int partition,
    String coordinator,
    long epoch,
    long atMs,
    long globalWatermarkMs,
    long heldPartials,
    List<SourceStatus> sources,
    List<OpenWindowTotals> open) {

  public StageStatus {
    Objects.requireNonNull(coordinator, "coordinator");
    sources = List.copyOf(sources);
    open = List.copyOf(open);
    if (partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0, was " + partition);
    }
  }

  /**
   * The status of one owned partition's merger. Call on the merger's owner thread.
   *
   * @param open the speculative totals of its open windows, or an empty list
   */
  public static StageStatus of(
      int partition,
      String coordinator,
      long epoch,
      WindowMerger merger,
      long nowMs,
      List<OpenWindowTotals> open) {
    SourceWatermarks w = merger.watermarks();
    List<SourceStatus> sources = new ArrayList<>(w.sourcePartitions());
    for (int s = 0; s < w.sourcePartitions(); s++) {
      sources.add(new SourceStatus(s, w.watermarkMs(s), w.epoch(s), w.idle(s), w.reported(s)));
    }
    return new StageStatus(
        partition,
        coordinator,
        epoch,
        nowMs,
        merger.globalWatermarkMs(),
        merger.heldPartials(),
        sources,
        open);
  }

  /** Whether this partition's global watermark has reached {@code windowEndMs}. */
  public boolean closed(long windowEndMs) {
    return globalWatermarkMs != Long.MIN_VALUE && globalWatermarkMs >= windowEndMs;
  }

  /** JSON text (what the Hazelcast map holds). */
  public String encode() {
    JsonArray src = new JsonArray();
    for (SourceStatus s : sources) {
      src.add(
          new JsonArray()
              .add(s.partition())
              .add(s.watermarkMs())
              .add(s.epoch())
              .add(s.idle())
              .add(s.reported()));
    }
    JsonArray windows = new JsonArray();
    for (OpenWindowTotals o : open) {
      JsonArray keys = new JsonArray();
      for (OpenWindowTotals.KeyTotals k : o.keys()) {
        JsonArray sums = new JsonArray();
        for (double d : k.sums()) {
          sums.add(Double.isFinite(d) ? d : null);
        }
        keys.add(
            new JsonArray()
                .add(k.key())
                .add(k.count())
                .add(sums)
                .add(Double.isFinite(k.distinct()) ? k.distinct() : null));
      }
      windows.add(
          new JsonObject()
              .put("start", o.windowStartMs())
              .put("end", o.windowEndMs())
              .put("keys", keys));
    }
    return new JsonObject()
        .put("partition", partition)
        .put("coordinator", coordinator)
        .put("epoch", epoch)
        .put("at", atMs)
        .put("global", globalWatermarkMs)
        .put("held", heldPartials)
        .put("sources", src)
        .put("open", windows)
        .encode();
  }

  /**
   * Decodes {@link #encode}.
   *
   * @throws IllegalArgumentException for anything else
   */
  public static StageStatus decode(String text) {
    try {
      JsonObject o = new JsonObject(text);
      List<SourceStatus> sources = new ArrayList<>();
      for (Object e : o.getJsonArray("sources")) {
        JsonArray a = (JsonArray) e;
        sources.add(
            new SourceStatus(
                a.getInteger(0), a.getLong(1), a.getLong(2), a.getBoolean(3), a.getBoolean(4)));
      }
      List<OpenWindowTotals> open = new ArrayList<>();
      for (Object e : o.getJsonArray("open")) {
        JsonObject w = (JsonObject) e;
        List<OpenWindowTotals.KeyTotals> keys = new ArrayList<>();
        for (Object k : w.getJsonArray("keys")) {
          JsonArray a = (JsonArray) k;
          JsonArray sumsJson = a.getJsonArray(2);
          double[] sums = new double[sumsJson.size()];
          for (int i = 0; i < sums.length; i++) {
            Number n = sumsJson.getNumber(i);
            sums[i] = n == null ? Double.NaN : n.doubleValue();
          }
          Number d = a.getNumber(3);
          keys.add(
              new OpenWindowTotals.KeyTotals(
                  a.getString(0), a.getLong(1), sums, d == null ? Double.NaN : d.doubleValue()));
        }
        open.add(new OpenWindowTotals(w.getLong("start"), w.getLong("end"), keys));
      }
      return new StageStatus(
          o.getInteger("partition"),
          o.getString("coordinator"),
          o.getLong("epoch"),
          o.getLong("at"),
          o.getLong("global"),
          o.getLong("held"),
          sources,
          open);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("malformed stage status: " + e.getMessage(), e);
    }
  }
}
