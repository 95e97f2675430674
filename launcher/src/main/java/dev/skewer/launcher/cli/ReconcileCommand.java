package dev.skewer.launcher.cli;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.reconcile.ExitCode;
import dev.skewer.reconcile.ReconcileOptions;
import dev.skewer.reconcile.ReconcileReport;
import dev.skewer.reconcile.Reconciler;
import dev.skewer.reconcile.TimeArgument;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code skewer reconcile}: recomputes a job's results for an event-time range from the raw input
 * and reconciles the results topic, the late topic and the DLQ against them (docs/reconcile.md).
 */
@Command(
    name = "reconcile",
    mixinStandardHelpOptions = true,
    description = {
      "Recompute every result of a job whose window lies inside [--from, --to) exactly from the",
      "input topic, compare with the latest streamed results, and check every input event is in",
      "exactly one of {a result, the late topic, the DLQ}.",
      "Exit codes: 0 match, 1 differences, 2 usage or job-file error, 3 only sketch estimates",
      "outside their error bars, 4 the run failed (broker, topic, disk)."
    })
public final class ReconcileCommand implements Callable<Integer> {

  @Option(names = "--job", required = true, paramLabel = "FILE", description = "The job file.")
  Path job;

  @Mixin KafkaOptions kafka;

  @Option(
      names = "--from",
      required = true,
      paramLabel = "INSTANT",
      description =
          "Range start (inclusive): 2024-05-01T00:00:00Z, 2024-05-01, epoch ms, now-2h, today-1d.")
  String from;

  @Option(
      names = "--to",
      required = true,
      paramLabel = "INSTANT",
      description =
          "Range end (exclusive), same forms. Results whose window lies inside are checked.")
  String to;

  @Option(
      names = "--margin",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "Read this much further either side, by record timestamp. Default: watermark delay +"
              + " allowed lateness + window size (or session gap) + 1m.")
  Duration margin;

  @Option(
      names = "--report",
      paramLabel = "FILE",
      defaultValue = "reconcile-report.json",
      description =
          "Where the JSON report goes ('-' = standard output). Default: ${DEFAULT-VALUE}.")
  String report;

  @Option(
      names = "--write-corrections",
      description = "Write corrected results (\"source\": \"batch\") to the corrections topic.")
  boolean writeCorrections;

  @Option(
      names = "--corrections-topic",
      paramLabel = "TOPIC",
      description =
          "The corrections topic (created compacted). Default: <results topic>.corrections.")
  String correctionsTopic;

  @Option(
      names = "--memory-budget",
      paramLabel = "SIZE",
      defaultValue = "256m",
      description = "Sort buffer before spilling to disk (k, m, g). Default: ${DEFAULT-VALUE}.")
  String memoryBudget;

  @Option(
      names = "--spill-dir",
      paramLabel = "DIR",
      description = "Where spill files go. Default: the system temp directory.")
  Path spillDir;

  @Option(
      names = "--sigmas",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "A distinct count is flagged beyond N x rse x exact from the exact count."
              + " Default: ${DEFAULT-VALUE}.")
  double sigmas;

  @Option(
      names = "--max-listed",
      paramLabel = "N",
      defaultValue = "1000",
      description = "List at most N differences, flags and issues each. Default: ${DEFAULT-VALUE}.")
  int maxListed;

  @Option(names = "--quiet", description = "No progress lines.")
  boolean quiet;

  @Override
  public Integer call() {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ReconcileOptions options;
    try {
      JobSpec spec = JobSpecLoader.load(job, System.getenv());
      Clock clock = Clock.systemUTC();
      Instant f = TimeArgument.parse(from, clock);
      Instant t = TimeArgument.parse(to, clock);
      options =
          ReconcileOptions.of(spec, kafka.settings(), f, t)
              .withMargin(margin)
              .withMemoryBudget(parseSize(memoryBudget), spillDir)
              .withSigmas(sigmas)
              .withMaxListed(maxListed);
      if (writeCorrections || correctionsTopic != null) {
        options =
            options.withCorrections(
                correctionsTopic != null
                    ? correctionsTopic
                    : ReconcileOptions.defaultCorrectionsTopic(spec));
      }
    } catch (IllegalArgumentException e) { // a JobSpecException too
      err.println("skewer reconcile: " + e.getMessage());
      return ExitCode.USAGE;
    }
    ReconcileReport result;
    try {
      result =
          Reconciler.run(
              options,
              quiet
                  ? null
                  : p -> {
                    err.println(p.line());
                    err.flush();
                  });
    } catch (RuntimeException e) {
      err.println("skewer reconcile: failed: " + e.getMessage());
      return ExitCode.FAILURE;
    }
    String json = result.toJsonText();
    if ("-".equals(report)) {
      out.println(json);
    } else {
      try {
        Files.writeString(Path.of(report), json + System.lineSeparator(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        err.println("skewer reconcile: cannot write the report to " + report + ": " + e);
        out.print(result.summaryTable());
        return ExitCode.FAILURE;
      }
    }
    PrintStream table = "-".equals(report) ? err : out;
    table.print(result.summaryTable());
    if (!"-".equals(report)) {
      table.println("Report: " + Path.of(report).toAbsolutePath());
    }
    return result.exitCode();
  }

  /** {@code 512k}, {@code 256m}, {@code 2g} or a number of bytes. */
  static long parseSize(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    if (t.endsWith("k")) {
      unit = 1L << 10;
    } else if (t.endsWith("m")) {
      unit = 1L << 20;
    } else if (t.endsWith("g")) {
      unit = 1L << 30;
    }
    String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
    try {
      long n = Long.parseLong(digits);
      if (n <= 0) {
        throw new NumberFormatException();
      }
      return Math.multiplyExact(n, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          "--memory-budget must be a positive size like 512k, 256m or 2g, was '" + text + "'");
    }
  }
}
