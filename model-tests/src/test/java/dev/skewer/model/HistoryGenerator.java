package dev.skewer.model;

import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.core.hotkey.SaltRouter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Generates a {@link History} from a seed: a random job and topology, then phases of input — keys
 * of skewed popularity (some hot, salted over several partitions by the {@link SaltRouter} rule),
 * disorder within the watermark delay, late events within and beyond the allowed lateness, a few
 * malformed, oversized and future-dated records — appended in chunks of any size, interleaved with
 * failures (lost sends, stalled acknowledgements, partitions moved to another process, process
 * restarts); some phases keep a subset of partitions silent until they are idle and then wake them
 * up with the events they held back; the coordinators' frontier is handed to the nodes at some
 * points; the history ends with the silence that finalizes every partition.
 */
final class HistoryGenerator {

  private static final long BASE_MS = 1_700_000_000_000L;

  private static final SaltRouter ROUTER = SaltRouter.withDefaultSeparator();

  private final Random random;
  private final long seed;
  private final ModelJob job;
  private final HotKeyTable hot;
  private final List<String> keys = new ArrayList<>();
  private final List<Step> steps = new ArrayList<>();
  private final List<InputEvent> backlog = new ArrayList<>();
  private final long stepMaxMs;
  private final long lateSpanMs;
  private int nextIndex;
  private long nowMs;
  private boolean faults;

  private HistoryGenerator(long seed) {
    this.seed = seed;
    this.random = new Random(seed);
    this.job = job(random);
    int keyCount = 2 + random.nextInt(7);
    List<HotKey> hotKeys = new ArrayList<>();
    boolean naturalKeys = random.nextInt(3) == 0;
    for (int k = 0; k < keyCount; k++) {
      // keys are the user's: one that looks salted (order#12) is aggregated as written
      String key = naturalKeys && k % 2 == 1 ? "order#" + (7 * k) : "k" + k;
      keys.add(key);
      if (job.sources() >= 2 && random.nextInt(10) < 3) {
        hotKeys.add(new HotKey(key, 2 + random.nextInt(Math.min(job.sources(), 3) - 1), 0));
      }
    }
    this.hot = HotKeyTable.of(hotKeys);
    long span =
        switch (job.shape()) {
          case TUMBLING -> job.sizeMs();
          case HOPPING -> job.hopMs();
          case SESSION -> job.gapMs();
        };
    this.stepMaxMs = Math.max(2, span / 4);
    this.lateSpanMs = 2 * job.latenessMs() + 2 * span + 1;
    this.nowMs = BASE_MS + random.nextInt(10_000);
  }

  /** The history of {@code seed}. */
  static History generate(long seed) {
    return new HistoryGenerator(seed).history();
  }

  private static ModelJob job(Random r) {
    ModelJob.Shape shape = ModelJob.Shape.values()[r.nextInt(3)];
    long size = 0;
    long hop = 0;
    long gap = 0;
    switch (shape) {
      case TUMBLING -> size = new long[] {300, 1_000, 2_000}[r.nextInt(3)];
      case HOPPING -> {
        long[][] shapes = {{1_500, 500}, {2_000, 500}, {3_000, 1_000}, {3_000, 2_000}, {800, 800}};
        long[] s = shapes[r.nextInt(shapes.length)];
        size = s[0];
        hop = s[1];
      }
      case SESSION -> gap = new long[] {7, 100, 400, 1_000}[r.nextInt(4)];
    }
    long delay = new long[] {0, 50, 200, 500}[r.nextInt(4)];
    long lateness = new long[] {0, 0, 300, 1_000, 3_000}[r.nextInt(5)];
    int sources = 1 + r.nextInt(4);
    int partials = 1 + r.nextInt(3);
    return new ModelJob(
        shape,
        size,
        hop,
        gap,
        delay,
        lateness,
        r.nextInt(3) == 0,
        sources,
        partials,
        1 + r.nextInt(Math.min(2, sources)),
        1 + r.nextInt(Math.min(2, partials)));
  }

  private History history() {
    int maxPollRecords = new int[] {1, 3, 7, 50, 500}[random.nextInt(5)];
    int maxPending = new int[] {2, 10, 1_000}[random.nextInt(3)];
    long checkpointMs = new long[] {5, 20, 50}[random.nextInt(3)];
    boolean frontier = random.nextBoolean();
    faults = random.nextInt(10) != 0;
    int phases = 2 + random.nextInt(4);
    for (int phase = 0; phase < phases; phase++) {
      Set<Integer> silent = silentPartitions();
      int n = 5 + random.nextInt(30);
      List<InputEvent> events = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        InputEvent e = event();
        if (silent.contains(e.partition())) {
          backlog.add(e);
        } else {
          events.add(e);
        }
      }
      appendInChunks(events);
      if (!silent.isEmpty()) {
        // the others go on while the silent ones become idle (and are finalized)
        for (int i = 0; i < 3; i++) {
          List<InputEvent> more = new ArrayList<>();
          for (int j = random.nextInt(4); j > 0; j--) {
            InputEvent e = event();
            (silent.contains(e.partition()) ? backlog : more).add(e);
          }
          appendInChunks(more);
          steps.add(new Step.Advance(ModelJob.IDLE_MS / 2 + random.nextInt(100)));
        }
        if (frontier && random.nextInt(3) != 0) {
          steps.add(new Step.PushFrontier()); // the idle ones adopt it before they wake up
        }
      } else if (random.nextInt(4) == 0) {
        steps.add(new Step.Advance(1 + random.nextInt((int) ModelJob.IDLE_MS / 2)));
      }
      if (!backlog.isEmpty()) {
        // the silent partitions wake up with the events they held back
        appendInChunks(new ArrayList<>(backlog));
        backlog.clear();
      }
      if (frontier && random.nextBoolean()) {
        steps.add(new Step.PushFrontier());
      }
    }
    steps.add(new Step.End());
    return new History(
        seed, job, hot, maxPollRecords, maxPending, checkpointMs, frontier, List.copyOf(steps));
  }

  private Set<Integer> silentPartitions() {
    Set<Integer> silent = new HashSet<>();
    if (job.sources() >= 2 && random.nextInt(3) == 0) {
      for (int p = 0; p < job.sources(); p++) {
        if (random.nextBoolean()) {
          silent.add(p);
        }
      }
      if (silent.size() == job.sources()) {
        silent.remove(random.nextInt(job.sources()));
      }
    }
    return silent;
  }

  private void appendInChunks(List<InputEvent> events) {
    int i = 0;
    while (i < events.size()) {
      int n = Math.min(events.size() - i, 1 + random.nextInt(12));
      steps.add(new Step.Append(List.copyOf(events.subList(i, i + n))));
      i += n;
      if (faults && random.nextInt(4) == 0) {
        fault();
      }
      if (random.nextInt(8) == 0) {
        steps.add(new Step.Settle());
      }
    }
  }

  private void fault() {
    Step.Stage stage = random.nextBoolean() ? Step.Stage.NODE : Step.Stage.COORDINATOR;
    int processes = stage == Step.Stage.NODE ? job.nodes() : job.coordinators();
    int partitions = stage == Step.Stage.NODE ? job.sources() : job.partials();
    int process = random.nextInt(processes);
    int kind = random.nextInt(6);
    switch (kind) {
      case 0 -> {
        String topic =
            stage == Step.Stage.COORDINATOR
                ? ModelJob.RESULTS
                : new String[] {ModelJob.PARTIALS, ModelJob.PARTIALS, ModelJob.LATE, ModelJob.DLQ}
                    [random.nextInt(4)];
        steps.add(new Step.FailNext(stage, process, topic, random.nextInt(6)));
      }
      case 1 ->
          steps.add(new Step.Move(stage, random.nextInt(partitions), random.nextInt(processes)));
      case 2 -> steps.add(new Step.Restart(stage, process));
      case 5 -> steps.add(new Step.FailCheckpoint(stage));
      default -> {
        steps.add(new Step.Stall(stage, process));
        List<InputEvent> more = new ArrayList<>();
        for (int j = 1 + random.nextInt(10); j > 0; j--) {
          more.add(event());
        }
        steps.add(new Step.Append(more));
        steps.add(new Step.Release(stage, process, random.nextInt(3) == 0));
      }
    }
  }

  private InputEvent event() {
    nowMs += random.nextInt((int) stepMaxMs + 1);
    int index = nextIndex++;
    String key = keys.get(Math.min(keys.size() - 1, (int) Math.abs(random.nextGaussian() * 2)));
    HotKey h = hot.get(key);
    int salt = h == null ? 0 : random.nextInt(h.fanout());
    String recordKey = ROUTER.recordKey(hot, key, salt);
    int partition = ROUTER.partition(hot, key, salt, job.sources());
    long t = nowMs - random.nextInt((int) job.delayMs() + 1);
    if (random.nextInt(100) < 6) {
      t = nowMs - job.delayMs() - 1 - (long) (random.nextDouble() * lateSpanMs);
    }
    double value = 1 + random.nextInt(100);
    String group = "g" + random.nextInt(3);
    String user = "u" + random.nextInt(20);
    String bad = null;
    String json;
    int badDraw = random.nextInt(100);
    if (badDraw < 4) {
      bad =
          new String[] {
                "not_json",
                "missing_key",
                "missing_time",
                "too_large",
                "future_time",
                "not_a_number"
              }
              [random.nextInt(6)];
      json =
          switch (bad) {
            case "not_json" -> "{\"key\": \"" + key + "\", \"ts\": " + t + ", oops";
            case "missing_key" -> "{\"ts\":" + t + ",\"value\":" + value + "}";
            case "missing_time" -> "{\"key\":\"" + key + "\",\"value\":" + value + "}";
            case "not_a_number" ->
                "{\"key\":\"" + key + "\",\"ts\":" + t + ",\"value\":\"" + (long) value + "\"}";
            case "too_large" ->
                // sometimes beyond what the producer and the DLQ take: cut to fit, never lost
                event(key, t, value, group, user)
                    + " "
                        .repeat(
                            random.nextBoolean()
                                ? ModelJob.MAX_RECORD_BYTES
                                : Cluster.NODE_MAX_REQUEST_BYTES + 100);
            default ->
                event(
                    key,
                    nowMs + ModelJob.MAX_FUTURE_SKEW_MS + 1 + random.nextInt(1000),
                    value,
                    group,
                    user);
          };
    } else {
      json = event(key, t, value, group, user);
    }
    return new InputEvent(
        index,
        partition,
        key,
        recordKey,
        t,
        value,
        group,
        user,
        bad,
        json.getBytes(StandardCharsets.UTF_8),
        nowMs);
  }

  private static String event(String key, long t, double value, String group, String user) {
    return "{\"key\":\""
        + key
        + "\",\"ts\":"
        + t
        + ",\"value\":"
        + (long) value
        + ",\"group\":\""
        + group
        + "\",\"user\":\""
        + user
        + "\"}";
  }
}
