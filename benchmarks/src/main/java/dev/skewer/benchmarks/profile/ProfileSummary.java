package dev.skewer.benchmarks.profile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import jdk.jfr.EventType;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code skewer bench profile}: where a Skewer process's (or the broker's) CPU goes, from a JFR
 * recording's execution samples ({@code jdk.ExecutionSample}, what {@code jfr print --events
 * jdk.ExecutionSample} lists): shares of samples by thread group, by component, by leaf frame and
 * by Skewer method (inclusive), plus the recording's JIT and GC time.
 *
 * <p>A sample's <b>component</b> is decided in two steps. First the whole stack is searched for the
 * <i>purposes</i> in the order listed (checkpoint snapshot, checkpoint store, restore, hot keys,
 * JSON decoding, Partials encoding and decoding, result formatting and writing): a t-digest encoded
 * inside a checkpoint snapshot counts as the checkpoint. Otherwise the frame nearest the leaf that
 * belongs to a known library or Skewer package names it (Kafka client, Hazelcast, Vert.x/Netty,
 * sketches, node aggregation, coordinator merge, stage runtime, ...); a stack of JDK frames only is
 * "JDK/other". Only threads running Java code are sampled: GC and JIT compiler threads never appear
 * (the recording's compilation and GC totals are printed beside; {@code bench deployed} reports
 * per-thread CPU including them).
 *
 * <p>What the JIT compiled comes from the recording's {@code jdk.Compilation} events, which {@code
 * bench deployed --jfr} and {@code bench startup --jfr} record for every compilation ({@link
 * #EVERY_COMPILATION}): the compile time by tier (C1's levels 1–3, C2's level 4), C2's by the
 * compiled method's component (the same classes as the samples') and by method, and how much of
 * C2's went to methods it compiled again (after a deoptimisation). A compilation's duration is wall
 * time: with more compiler threads than free cores it includes waiting for a core, so the shares
 * say more than the seconds.
 */
@Command(
    name = "profile",
    mixinStandardHelpOptions = true,
    description =
        "Summarise JFR recordings (e.g. from bench deployed --jfr): CPU samples by thread group,"
            + " component, leaf frame and Skewer method.")
public final class ProfileSummary implements Callable<Integer> {

  @Parameters(paramLabel = "FILE.jfr", arity = "1..*", description = "JFR recordings.")
  List<Path> files;

  @Option(
      names = "--top",
      defaultValue = "15",
      description = "Rows per table. Default: ${DEFAULT-VALUE}.")
  int top;

  @Option(
      names = "--threads",
      paramLabel = "REGEX",
      description =
          "Only samples of threads whose name matches (e.g. 'vert.x-eventloop.*' or 'hz\\..*').")
  Pattern threadFilter;

  /** A component: a name and what a frame ({@code class.method}) of it looks like. */
  record Component(String name, Predicate<String> frame) {}

  /** Searched anywhere in the stack, in this order. */
  static final List<Component> PURPOSES =
      List.of(
          component(
              "checkpoint: snapshot (encode state)",
              "dev\\.skewer\\..*\\.(snapshot|writeTo)$|dev\\.skewer\\.coordinator\\.merge\\.Snapshots\\."),
          component(
              "checkpoint: store (Hazelcast put, Kafka mirror)",
              "^dev\\.skewer\\.core\\.checkpoint\\."),
          component("checkpoint: restore", "^dev\\.skewer\\..*\\.restore$"),
          component(
              "hot keys (detect, report, publish)",
              "^dev\\.skewer\\.(node|coordinator|core)\\.hotkey\\.|\\.reportHotKeys$"),
          component("JSON decoding (events)", "^dev\\.skewer\\.core\\.event\\."),
          component(
              "Partials encode (wire + sketches codec)",
              "^dev\\.skewer\\.core\\.wire\\.WireCodec\\.encode"),
          component(
              "Partials decode (wire + sketches codec)",
              "^dev\\.skewer\\.core\\.wire\\.WireCodec\\.decode"),
          component("result formatting (JSON)", "^dev\\.skewer\\.core\\.result\\."),
          component(
              "result writing (dedupe, top-K index)",
              "^dev\\.skewer\\.coordinator\\.stream\\.(ResultWriter|WrittenResults)\\."
                  + "|^dev\\.skewer\\.coordinator\\.topk\\."));

  /** Otherwise: the frame nearest the leaf that matches one of these (first match per frame). */
  static final List<Component> LIBRARIES =
      List.of(
          component(
              "sketches", "^dev\\.skewer\\.sketches\\.|^com\\.clearspring\\.|^com\\.tdunning\\."),
          component("node aggregation", "^dev\\.skewer\\.node\\.aggregate\\."),
          component("node ingest (task, side outputs)", "^dev\\.skewer\\.node\\."),
          component("coordinator merge", "^dev\\.skewer\\.coordinator\\.merge\\."),
          component("coordinator query/API/view", "^dev\\.skewer\\.coordinator\\.(query|http)\\."),
          component("coordinator (other)", "^dev\\.skewer\\.coordinator\\."),
          component("stage runtime (poll loop, sender, ownership)", "^dev\\.skewer\\.stage\\."),
          component("skewer (other)", "^dev\\.skewer\\."),
          component("Kafka client/broker", "^org\\.apache\\.kafka\\.|^kafka\\."),
          component("compression (lz4)", "^net\\.jpountz\\."),
          component("Hazelcast", "^com\\.hazelcast\\."),
          component("Vert.x / Netty", "^io\\.vertx\\.|^io\\.netty\\."),
          component("Jackson", "^com\\.fasterxml\\.jackson\\."),
          component("metrics (Micrometer)", "^io\\.micrometer\\."),
          component("logging", "^ch\\.qos\\.logback\\.|^org\\.slf4j\\."),
          component("JFR itself", "^jdk\\.jfr\\."),
          component("Scala (broker)", "^scala\\."));

  /**
   * The JFR option that records every JIT compilation ({@code settings=profile} records only those
   * over 100 ms), for {@code -XX:StartFlightRecording}.
   */
  public static final String EVERY_COMPILATION = "jdk.Compilation#threshold=0ms";

  /** The compilation tier C2 compiles at. */
  private static final int C2_LEVEL = 4;

  private static final Pattern HZ_INSTANCE = Pattern.compile("^hz\\.[^.]+\\.");
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");

  private static Component component(String name, String regex) {
    Pattern p = Pattern.compile(regex);
    return new Component(name, s -> p.matcher(s).find());
  }

  @Override
  public Integer call() throws IOException {
    for (Path file : files) {
      if (!Files.isRegularFile(file)) {
        System.err.println("no such file: " + file);
        return 2;
      }
      summarise(file);
    }
    return 0;
  }

  /** The figures of one recording. */
  static final class Profile {
    long samples;
    final Map<String, Long> threads = new HashMap<>();
    final Map<String, Long> components = new HashMap<>();
    final Map<String, Long> leaves = new HashMap<>();
    final Map<String, Long> skewerInclusive = new HashMap<>();
    Duration compilation = Duration.ZERO;
    long compilations;
    String compilationThreshold = "?";
    final Map<String, Duration> compileByTier = new HashMap<>();
    final Map<String, Long> compilationsByTier = new HashMap<>();
    final Map<String, Duration> c2ByComponent = new HashMap<>();
    final Map<String, Duration> c2ByMethod = new HashMap<>();
    final Map<String, Long> c2CompilationsByMethod = new HashMap<>();
    long c2Osr;
    Duration c2OsrTime = Duration.ZERO;
    // standard (not OSR) C2 compilations per method and signature: beyond the first, a
    // compilation replaced code the JVM threw away (a deoptimisation)
    final Map<String, Long> c2StandardBySignature = new HashMap<>();
    long c2Again;
    Duration c2AgainTime = Duration.ZERO;
    long compileCount = -1;
    Duration compileTotal = Duration.ZERO;
    Duration gcPauses = Duration.ZERO;
    long gcs;
    Duration span = Duration.ZERO;
  }

  static Profile read(Path file) throws IOException {
    return read(file, null);
  }

  /** Reads a recording; {@code threads} != null keeps only samples of matching thread names. */
  static Profile read(Path file, Pattern threads) throws IOException {
    Profile p = new Profile();
    java.time.Instant first = null;
    java.time.Instant last = null;
    try (RecordingFile recording = new RecordingFile(file)) {
      long compilationType =
          recording.readEventTypes().stream()
              .filter(t -> t.getName().equals("jdk.Compilation"))
              .mapToLong(EventType::getId)
              .findFirst()
              .orElse(-1);
      while (recording.hasMoreEvents()) {
        RecordedEvent e = recording.readEvent();
        if (first == null || e.getStartTime().isBefore(first)) {
          first = e.getStartTime();
        }
        if (last == null || e.getEndTime().isAfter(last)) {
          last = e.getEndTime();
        }
        switch (e.getEventType().getName()) {
          case "jdk.ExecutionSample" -> sample(p, e, threads);
          case "jdk.Compilation" -> compilation(p, e);
          case "jdk.ActiveSetting" -> {
            if (e.getLong("id") == compilationType && "threshold".equals(e.getString("name"))) {
              p.compilationThreshold = e.getString("value");
            }
          }
          case "jdk.CompilerStatistics" -> {
            // periodic and cumulative: the last one counts
            p.compileCount = e.getLong("compileCount");
            p.compileTotal = e.getDuration("totalTimeSpent");
          }
          case "jdk.GarbageCollection" -> {
            p.gcPauses = p.gcPauses.plus(e.getDuration("sumOfPauses"));
            p.gcs++;
          }
          default -> {
            // not summarised
          }
        }
      }
    }
    if (first != null) {
      p.span = Duration.between(first, last);
    }
    return p;
  }

  private static void compilation(Profile p, RecordedEvent e) {
    RecordedMethod m = e.getValue("method");
    compilation(
        p,
        e.getShort("compileLevel"),
        m == null ? "?" : m.getType().getName() + "." + m.getName(),
        m == null ? "" : m.getDescriptor(),
        e.getBoolean("isOsr"),
        e.getDuration());
  }

  /** Counts one compilation of {@code method} (class.name, with its descriptor) at a tier. */
  static void compilation(
      Profile p, int level, String method, String descriptor, boolean osr, Duration d) {
    p.compilation = p.compilation.plus(d);
    p.compilations++;
    String tier = level == C2_LEVEL ? "C2 (level 4)" : "C1 (level " + level + ")";
    p.compileByTier.merge(tier, d, Duration::plus);
    p.compilationsByTier.merge(tier, 1L, Long::sum);
    if (level != C2_LEVEL) {
      return;
    }
    p.c2ByMethod.merge(method, d, Duration::plus);
    p.c2CompilationsByMethod.merge(method, 1L, Long::sum);
    p.c2ByComponent.merge(componentOf(List.of(method)), d, Duration::plus);
    if (osr) {
      p.c2Osr++;
      p.c2OsrTime = p.c2OsrTime.plus(d);
    } else if (p.c2StandardBySignature.merge(method + descriptor, 1L, Long::sum) > 1) {
      p.c2Again++;
      p.c2AgainTime = p.c2AgainTime.plus(d);
    }
  }

  private static void sample(Profile p, RecordedEvent e, Pattern threads) {
    RecordedThread thread = e.getThread("sampledThread");
    String threadName = thread == null ? "?" : thread.getJavaName();
    if (threads != null && (threadName == null || !threads.matcher(threadName).matches())) {
      return;
    }
    p.samples++;
    p.threads.merge(group(threadName == null ? "?" : threadName), 1L, Long::sum);
    RecordedStackTrace stack = e.getStackTrace();
    List<String> frames = new ArrayList<>();
    if (stack != null) {
      for (RecordedFrame f : stack.getFrames()) {
        if (f.isJavaFrame() && f.getMethod() != null) {
          frames.add(f.getMethod().getType().getName() + "." + f.getMethod().getName());
        }
      }
    }
    if (!frames.isEmpty()) {
      p.leaves.merge(frames.get(0), 1L, Long::sum);
    }
    p.components.merge(componentOf(frames), 1L, Long::sum);
    Set<String> seen = new HashSet<>();
    for (String f : frames) {
      if (f.startsWith("dev.skewer.") && seen.add(f)) {
        p.skewerInclusive.merge(f, 1L, Long::sum);
      }
    }
  }

  /** The component of a stack, leaf first. */
  static String componentOf(List<String> frames) {
    for (Component c : PURPOSES) {
      for (String f : frames) {
        if (c.frame().test(f)) {
          return c.name();
        }
      }
    }
    for (String f : frames) {
      for (Component c : LIBRARIES) {
        if (c.frame().test(f)) {
          return c.name();
        }
      }
    }
    return "JDK/other";
  }

  /** The group of a thread name: digit runs become N, a Hazelcast instance name becomes *. */
  static String group(String threadName) {
    String name = HZ_INSTANCE.matcher(threadName).replaceFirst("hz.*.");
    return DIGITS.matcher(name).replaceAll("N");
  }

  private void summarise(Path file) throws IOException {
    Profile p = read(file, threadFilter);
    System.out.printf(
        "%n== %s"
            + (threadFilter == null ? "" : " (threads " + threadFilter + ")")
            + ": %,d execution samples over %.1fs; JIT: %,d methods compiled in %.1fs (%,d"
            + " compilations over the recording's threshold: %.1fs); GC: %,d collections, %.2fs of"
            + " pauses%n",
        file,
        p.samples,
        p.span.toMillis() / 1000.0,
        p.compileCount,
        p.compileTotal.toMillis() / 1000.0,
        p.compilations,
        p.compilation.toMillis() / 1000.0,
        p.gcs,
        p.gcPauses.toMillis() / 1000.0);
    if (p.samples == 0) {
      System.out.println("  (no execution samples: was the recording made with settings=profile?)");
    } else {
      table("thread groups", p.threads, p.samples);
      table("components", p.components, p.samples);
      table("leaf frames (self)", p.leaves, p.samples);
      table("Skewer methods (inclusive)", p.skewerInclusive, p.samples);
    }
    if (p.compilations > 0) {
      jit(p);
    }
  }

  /** The JIT tables: compile time by tier, C2's by component and by method, recompilations. */
  private void jit(Profile p) {
    System.out.printf(
        "  JIT: %,d compilations recorded (the recording's threshold: %s%s), %.1fs of compile"
            + " time (wall)%n",
        p.compilations,
        p.compilationThreshold,
        p.compilationThreshold.startsWith("0 ") ? ": every one" : ": only the longer ones",
        p.compilation.toMillis() / 1000.0);
    Map<String, Long> byTier = millis(p.compileByTier);
    long all = byTier.values().stream().mapToLong(Long::longValue).sum();
    System.out.println("  compile time by tier:");
    byTier.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                System.out.printf(
                    "    %5.1f%% %7.1fs  %s, %,d compilations%n",
                    100.0 * e.getValue() / Math.max(1, all),
                    e.getValue() / 1000.0,
                    e.getKey(),
                    p.compilationsByTier.get(e.getKey())));
    Map<String, Long> c2 = millis(p.c2ByMethod);
    long c2All = c2.values().stream().mapToLong(Long::longValue).sum();
    if (c2All == 0) {
      return;
    }
    timeTable("C2 compile time by the compiled method's component", millis(p.c2ByComponent), c2All);
    Map<String, Long> labelled = new HashMap<>();
    c2.forEach((m, ms) -> labelled.put(m + " (x" + p.c2CompilationsByMethod.get(m) + ")", ms));
    timeTable(
        "C2 compile time by method (xN: compiled N times, overloads and OSR included)",
        labelled,
        c2All);
    System.out.printf(
        "  C2: %,d methods; %,d on-stack-replacement compilations (%.1f%% of C2's time); %,d"
            + " compilations of a method compiled before, replacing code the JVM threw away"
            + " (%.1f%%)%n",
        p.c2StandardBySignature.size(),
        p.c2Osr,
        100.0 * p.c2OsrTime.toMillis() / c2All,
        p.c2Again,
        100.0 * p.c2AgainTime.toMillis() / c2All);
  }

  private static Map<String, Long> millis(Map<String, Duration> durations) {
    Map<String, Long> ms = new HashMap<>();
    durations.forEach((k, d) -> ms.put(k, d.toMillis()));
    return ms;
  }

  private void table(String title, Map<String, Long> counts, long total) {
    table(title, counts, total, v -> String.format("%8d", v));
  }

  /** A table of compile times, in milliseconds, printed as seconds. */
  private void timeTable(String title, Map<String, Long> millis, long total) {
    table(title, millis, total, v -> String.format("%7.1fs", v / 1000.0));
  }

  private void table(
      String title, Map<String, Long> counts, long total, LongFunction<String> value) {
    System.out.println("  " + title + ":");
    Map<String, Long> sorted = new LinkedHashMap<>();
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(top)
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    sorted.forEach(
        (k, v) -> System.out.printf("    %5.1f%% %s  %s%n", 100.0 * v / total, value.apply(v), k));
  }
}
