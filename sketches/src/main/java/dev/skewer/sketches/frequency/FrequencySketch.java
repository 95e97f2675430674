package dev.skewer.sketches.frequency;

import com.clearspring.analytics.stream.frequency.CountMinSketch;
import dev.skewer.sketches.CodecException;
import dev.skewer.sketches.HeavyHitter;
import dev.skewer.sketches.codec.ByteSink;
import dev.skewer.sketches.codec.ByteSource;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Item frequencies and heavy hitters of one (key, window slice).
 *
 * <p>Contract: while at most {@code capacity} distinct items have been seen, counts are exact
 * ({@link HeavyHitter#maxOverestimate()} 0). Past that, a Count-Min Sketch (Cormode and
 * Muthukrishnan 2005; stream-lib's {@link CountMinSketch}, width &lceil;2/&epsilon;&rceil;, depth
 * &lceil;log2(1/&delta;)&rceil;) answers every point query: the estimate never under-estimates and
 * over-estimates by at most &lceil;&epsilon;&middot;N&rceil; with probability at least
 * 1&minus;&delta; (N = total item count). A candidate set of {@code capacity} items answers top-N.
 * Whether the sketch is exact depends only on the number of distinct items seen, so it is the same
 * for any split of a stream; the CMS is linear, so merged tables equal the whole stream's table
 * exactly.
 *
 * <p>Candidates: on each update the item's CMS estimate replaces its cached estimate; a new item
 * enters a full candidate set when its estimate exceeds the smallest cached estimate (ties evict
 * the lexicographically largest item). Cached estimates only grow, so on a single stream an item of
 * true frequency f is missing from the candidates only if {@code capacity} candidates have
 * estimates &ge; f; hence if fewer than {@code capacity} items have frequency &ge; &epsilon;N,
 * every item with frequency &ge; 2&epsilon;N is a candidate (with the CMS's probability). A merge
 * takes the union of both candidate sets (and exact items), re-estimates them from the merged CMS
 * and keeps the {@code capacity} largest (ties by item): deterministic, but for adversarial splits
 * (an item that is light in every part) membership after merges is best effort, while its estimate
 * stays sound.
 *
 * <p>Implementation note: the CMS is created lazily (the exact map costs bytes; a CMS with
 * &epsilon;=0.001, &delta;=0.01 is 7&times;2000 longs = 112 KB). stream-lib's Space-Saving {@code
 * StreamSummary} is not used: it has no merge and serialises with Java serialization. stream-lib
 * hashes string items as UTF-16 bytes with MurmurHash (portable across JVMs).
 *
 * <p>Not thread-safe.
 */
public final class FrequencySketch {
  /** Seed of the CMS's long-item hashes (unused for strings, fixed so that tables merge). */
  private static final int CMS_SEED = 0x5ce3e7;

  private static final Comparator<Map.Entry<String, Long>> HEAVIEST_FIRST =
      Map.Entry.<String, Long>comparingByValue()
          .reversed()
          .thenComparing(Map.Entry.comparingByKey());

  private final double epsilon;
  private final int depth;
  private final int width;
  private final int capacity;

  // exact mode (cms == null)
  private HashMap<String, Long> exact = new HashMap<>();

  // sketch mode
  private CountMinSketch cms;
  private HashMap<String, Integer> slotOf;
  private String[] items;
  private long[] estimates;
  private int candidates;
  private int minSlot = -1;

  public FrequencySketch(double epsilon, double delta, int capacity) {
    this.epsilon = epsilon;
    this.width = cmsWidth(epsilon);
    this.depth = cmsDepth(delta);
    this.capacity = capacity;
  }

  /** stream-lib's width for &epsilon;: &lceil;2/&epsilon;&rceil;. */
  public static int cmsWidth(double epsilon) {
    return (int) Math.ceil(2 / epsilon);
  }

  /** stream-lib's depth for confidence 1&minus;&delta;: &lceil;&minus;log2(&delta;)&rceil;. */
  public static int cmsDepth(double delta) {
    return (int) Math.ceil(-Math.log(1 - (1 - delta)) / Math.log(2));
  }

  public boolean isExact() {
    return cms == null;
  }

  /** Total number of items folded in (N). */
  public long total() {
    if (cms != null) {
      return cms.size();
    }
    long n = 0;
    for (long c : exact.values()) {
      n += c;
    }
    return n;
  }

  public void update(String item) {
    if (cms == null) {
      exact.merge(item, 1L, Long::sum);
      if (exact.size() > capacity) {
        toSketch(exact, null, null);
      }
      return;
    }
    cms.add(item, 1);
    offerCandidate(item, cms.estimateCount(item));
  }

  private void offerCandidate(String item, long estimate) {
    Integer slot = slotOf.get(item);
    if (slot != null) {
      estimates[slot] = estimate;
      if (slot == minSlot) {
        minSlot = -1;
      }
      return;
    }
    if (candidates < capacity) {
      put(candidates++, item, estimate);
      minSlot = -1;
      return;
    }
    int min = minSlot();
    if (estimate > estimates[min]) {
      slotOf.remove(items[min]);
      put(min, item, estimate);
      minSlot = -1;
    }
  }

  private void put(int slot, String item, long estimate) {
    items[slot] = item;
    estimates[slot] = estimate;
    slotOf.put(item, slot);
  }

  private int minSlot() {
    if (minSlot < 0) {
      int min = 0;
      for (int i = 1; i < candidates; i++) {
        if (estimates[i] < estimates[min]
            || (estimates[i] == estimates[min] && items[i].compareTo(items[min]) > 0)) {
          min = i;
        }
      }
      minSlot = min;
    }
    return minSlot;
  }

  /**
   * Switches to (or rebuilds) sketch mode: {@code base} (a CMS, or null for an empty one) plus the
   * exact counts, candidates = the {@code capacity} heaviest of {@code exactItems}' keys and {@code
   * extraCandidates} by merged estimate.
   */
  private void toSketch(
      Map<String, Long> exactItems, CountMinSketch base, Iterable<String> extraCandidates) {
    CountMinSketch table = base != null ? base : new CountMinSketch(depth, width, CMS_SEED);
    TreeSet<String> union = new TreeSet<>(exactItems.keySet());
    for (Map.Entry<String, Long> e : new TreeMap<>(exactItems).entrySet()) {
      table.add(e.getKey(), e.getValue());
    }
    if (extraCandidates != null) {
      for (String s : extraCandidates) {
        union.add(s);
      }
    }
    installCandidates(table, union);
  }

  private void installCandidates(CountMinSketch table, Iterable<String> union) {
    List<Map.Entry<String, Long>> ranked = new ArrayList<>();
    for (String s : union) {
      ranked.add(Map.entry(s, table.estimateCount(s)));
    }
    ranked.sort(HEAVIEST_FIRST);
    cms = table;
    exact = null;
    int n = Math.min(capacity, ranked.size());
    items = new String[capacity];
    estimates = new long[capacity];
    slotOf = new HashMap<>(capacity * 2);
    candidates = 0;
    for (int i = 0; i < n; i++) {
      put(candidates++, ranked.get(i).getKey(), ranked.get(i).getValue());
    }
    minSlot = -1;
  }

  public void merge(FrequencySketch other) {
    if (other.depth != depth || other.width != width || other.capacity != capacity) {
      throw new IllegalArgumentException("cannot merge frequency sketches of different shapes");
    }
    if (cms == null && other.cms == null) {
      other.exact.forEach((k, v) -> exact.merge(k, v, Long::sum));
      if (exact.size() > capacity) {
        toSketch(exact, null, null);
      }
      return;
    }
    if (cms == null && exact.isEmpty()) {
      copyFrom(other); // into an empty sketch: a copy (cached estimates included)
      return;
    }
    if (cms == null) {
      // this exact, other sketch: other's table plus this map
      CountMinSketch table = mergeTables(other.cms, null);
      toSketch(exact, table, other.candidateItems());
      return;
    }
    List<String> union = candidateItems();
    if (other.cms == null) {
      for (Map.Entry<String, Long> e : new TreeMap<>(other.exact).entrySet()) {
        cms.add(e.getKey(), e.getValue());
        union.add(e.getKey());
      }
      installCandidates(cms, new TreeSet<>(union));
      return;
    }
    union.addAll(other.candidateItems());
    installCandidates(mergeTables(cms, other.cms), new TreeSet<>(union));
  }

  private static CountMinSketch mergeTables(CountMinSketch a, CountMinSketch b) {
    try {
      return b == null ? CountMinSketch.merge(a) : CountMinSketch.merge(a, b);
    } catch (Exception e) { // stream-lib's CMSMergeException is not public
      throw new IllegalArgumentException("cannot merge CMS: " + e.getMessage(), e);
    }
  }

  private List<String> candidateItems() {
    List<String> list = new ArrayList<>(candidates);
    for (int i = 0; i < candidates; i++) {
      list.add(items[i]);
    }
    return list;
  }

  /** An identical, independent sketch (candidates and their cached estimates included). */
  public FrequencySketch copy() {
    FrequencySketch copy = new FrequencySketch(epsilon, depth, width, capacity);
    copy.copyFrom(this);
    return copy;
  }

  private void copyFrom(FrequencySketch other) {
    if (other.cms == null) {
      exact = new HashMap<>(other.exact);
      return;
    }
    exact = null;
    cms = mergeTables(other.cms, null);
    items = other.items.clone();
    estimates = other.estimates.clone();
    slotOf = new HashMap<>(other.slotOf);
    candidates = other.candidates;
    minSlot = -1;
  }

  private FrequencySketch(double epsilon, int depth, int width, int capacity) {
    this.epsilon = epsilon;
    this.depth = depth;
    this.width = width;
    this.capacity = capacity;
  }

  /** The estimate of any item; exact (bound 0) while in exact mode. */
  public HeavyHitter estimate(String item) {
    if (cms == null) {
      return new HeavyHitter(item, exact.getOrDefault(item, 0L), 0);
    }
    return new HeavyHitter(item, cms.estimateCount(item), maxOverestimate());
  }

  private long maxOverestimate() {
    return (long) Math.ceil(epsilon * cms.size());
  }

  /** Up to n heaviest items, heaviest first, ties by item. */
  public List<HeavyHitter> heavyHitters(int n) {
    List<Map.Entry<String, Long>> ranked = new ArrayList<>();
    long bound = 0;
    if (cms == null) {
      ranked.addAll(exact.entrySet());
    } else { // current estimates; the cached ones (which steer eviction) stay as they are
      for (int i = 0; i < candidates; i++) {
        ranked.add(Map.entry(items[i], cms.estimateCount(items[i])));
      }
      bound = maxOverestimate();
    }
    ranked.sort(HEAVIEST_FIRST);
    List<HeavyHitter> out = new ArrayList<>(Math.min(n, ranked.size()));
    for (int i = 0; i < Math.min(n, ranked.size()); i++) {
      out.add(new HeavyHitter(ranked.get(i).getKey(), ranked.get(i).getValue(), bound));
    }
    return out;
  }

  /** Approximate heap footprint in bytes. */
  public long heapBytes() {
    long bytes = 48;
    if (cms == null) {
      for (String s : exact.keySet()) {
        bytes += 48 + 16 + 40 + s.length(); // node, boxed Long, String (Latin-1)
      }
      return bytes + 16 + 4L * Math.max(16, Integer.highestOneBit(Math.max(1, exact.size())) * 2);
    }
    bytes += 64 + 16 + 8L * depth + (long) depth * (16 + 8L * width); // CMS, hashA, table rows
    bytes += 16 + 4L * capacity + 16 + 8L * capacity; // items[], estimates[]
    for (int i = 0; i < candidates; i++) {
      bytes += 48 + 16 + 40 + items[i].length();
    }
    return bytes;
  }

  /**
   * Writes: u8 mode; exact mode: varint n, n &times; (string item, varint count) by item; sketch
   * mode: varint N, depth&times;width varint cells row by row, varint c, c &times; (string item,
   * varint cached estimate) sorted by item. The cached estimates are written because they decide
   * evictions: a decoded sketch continues exactly as the original.
   */
  public void encodeTo(ByteSink out) {
    if (cms == null) {
      out.writeByte(0);
      TreeMap<String, Long> sorted = new TreeMap<>(exact);
      out.writeVarLong(sorted.size());
      for (Map.Entry<String, Long> e : sorted.entrySet()) {
        out.writeString(e.getKey());
        out.writeVarLong(e.getValue());
      }
      return;
    }
    out.writeByte(1);
    out.writeVarLong(cms.size());
    ByteBuffer raw = ByteBuffer.wrap(CountMinSketch.serialize(cms));
    raw.getLong(); // size
    raw.getInt(); // depth
    raw.getInt(); // width
    for (int row = 0; row < depth; row++) {
      raw.getLong(); // hashA[row], derived from the fixed seed
      for (int col = 0; col < width; col++) {
        out.writeVarLong(raw.getLong());
      }
    }
    TreeMap<String, Long> sorted = new TreeMap<>();
    for (int i = 0; i < candidates; i++) {
      sorted.put(items[i], estimates[i]);
    }
    out.writeVarLong(sorted.size());
    for (Map.Entry<String, Long> e : sorted.entrySet()) {
      out.writeString(e.getKey());
      out.writeVarLong(e.getValue());
    }
  }

  /**
   * Reads what {@link #encodeTo} wrote; see the codec package for the checks. Without {@code
   * cachedEstimates} (format 1, which did not write them) the candidates get current estimates.
   */
  public static FrequencySketch decodeFrom(
      ByteSource in,
      double epsilon,
      double delta,
      int capacity,
      long aggregateCount,
      boolean cachedEstimates) {
    FrequencySketch sketch = new FrequencySketch(epsilon, delta, capacity);
    int mode = in.readUnsignedByte("frequency mode");
    if (mode == 0) {
      int n = in.readVarInt("exact item count", 0, capacity);
      in.require(2L * n, "exact items");
      String previous = null;
      long total = 0;
      for (int i = 0; i < n; i++) {
        String item = in.readString("exact item");
        if (previous != null && previous.compareTo(item) >= 0) {
          throw new CodecException("exact items not strictly increasing at item " + i);
        }
        long count = in.readVarLong("exact item count", 1, aggregateCount);
        total += count;
        if (total > aggregateCount) {
          throw new CodecException("item counts exceed the aggregate's count " + aggregateCount);
        }
        sketch.exact.put(item, count);
        previous = item;
      }
      return sketch;
    }
    if (mode != 1) {
      throw new CodecException("unknown frequency mode " + mode);
    }
    long total = in.readVarLong("CMS total", capacity + 1L, aggregateCount);
    long cells = (long) sketch.depth * sketch.width;
    in.require(cells, "CMS cells"); // at least one byte per cell, before allocating
    ByteArrayOutputStream raw = new ByteArrayOutputStream((int) (16 + 8 * (cells + sketch.depth)));
    try (DataOutputStream data = new DataOutputStream(raw)) {
      long[] hashA = seedHashes(sketch.depth);
      data.writeLong(total);
      data.writeInt(sketch.depth);
      data.writeInt(sketch.width);
      for (int row = 0; row < sketch.depth; row++) {
        data.writeLong(hashA[row]);
        long rowSum = 0;
        for (int col = 0; col < sketch.width; col++) {
          long cell = in.readVarLong("CMS cell", 0, total);
          rowSum += cell;
          if (rowSum > total) {
            throw new CodecException("CMS row " + row + " sums past the total " + total);
          }
          data.writeLong(cell);
        }
        if (rowSum != total) {
          throw new CodecException("CMS row " + row + " sums to " + rowSum + ", not " + total);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    CountMinSketch table;
    try {
      table = CountMinSketch.deserialize(raw.toByteArray());
    } catch (RuntimeException e) {
      throw new CodecException("stream-lib refused CMS bytes: " + e.getMessage(), e);
    }
    int c = in.readVarInt("candidate count", capacity, capacity);
    in.require(2L * c, "candidates");
    sketch.cms = table;
    sketch.exact = null;
    sketch.items = new String[capacity];
    sketch.estimates = new long[capacity];
    sketch.slotOf = new HashMap<>(capacity * 2);
    String previous = null;
    for (int i = 0; i < c; i++) {
      String item = in.readString("candidate");
      if (previous != null && previous.compareTo(item) >= 0) {
        throw new CodecException("candidates not strictly increasing at item " + i);
      }
      long current = table.estimateCount(item);
      if (current < 1) {
        throw new CodecException("candidate " + i + " has a zero CMS estimate");
      }
      // a cached estimate is the CMS estimate at some earlier point: at least 1, at most today's
      long cached = cachedEstimates ? in.readVarLong("candidate estimate", 1, current) : current;
      sketch.put(sketch.candidates++, item, cached);
      previous = item;
    }
    return sketch;
  }

  private static long[] seedHashes(int depth) {
    // an empty depth x 1 sketch with the same seed carries the same hashA
    ByteBuffer b =
        ByteBuffer.wrap(CountMinSketch.serialize(new CountMinSketch(depth, 1, CMS_SEED)));
    b.getLong();
    b.getInt();
    b.getInt();
    long[] hashA = new long[depth];
    for (int row = 0; row < depth; row++) {
      hashA[row] = b.getLong();
      b.getLong(); // the single cell
    }
    return hashA;
  }
}
