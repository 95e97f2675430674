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
import java.util.function.Predicate;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
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
          case "jdk.Compilation" -> {
            p.compilation = p.compilation.plus(e.getDuration());
            p.compilations++;
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
      return;
    }
    table("thread groups", p.threads, p.samples);
    table("components", p.components, p.samples);
    table("leaf frames (self)", p.leaves, p.samples);
    table("Skewer methods (inclusive)", p.skewerInclusive, p.samples);
  }

  private void table(String title, Map<String, Long> counts, long total) {
    System.out.println("  " + title + ":");
    Map<String, Long> sorted = new LinkedHashMap<>();
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(top)
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    sorted.forEach((k, v) -> System.out.printf("    %5.1f%% %8d  %s%n", 100.0 * v / total, v, k));
  }
}
