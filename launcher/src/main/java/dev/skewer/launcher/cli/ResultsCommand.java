package dev.skewer.launcher.cli;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.reconcile.ExitCode;
import dev.skewer.reconcile.ResultsReader;
import dev.skewer.reconcile.TimeArgument;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code skewer results}: the latest record per result key of the upsert results topic, for one key
 * and/or one instant, or all of them (the latest {@code --limit} windows shown).
 */
@Command(
    name = "results",
    mixinStandardHelpOptions = true,
    description = {
      "Show the latest result per result key (<key>@<start>) of the job's results topic,",
      "for one key and/or the windows containing one instant (neither: every result key, the",
      "latest windows shown). Exit 0 with results, 1 without,",
      "2 on a usage error, 4 when the topic cannot be read."
    })
public final class ResultsCommand implements Callable<Integer> {

  @Option(names = "--job", required = true, paramLabel = "FILE", description = "The job file.")
  Path job;

  @Mixin KafkaOptions kafka;

  @Option(names = "--key", paramLabel = "KEY", description = "Only this key.")
  String key;

  @Option(
      names = "--window",
      paramLabel = "INSTANT",
      description =
          "Only results whose window (or session) contains this instant:"
              + " 2024-05-01T12:00:00Z, epoch ms, now-5m.")
  String window;

  @Option(
      names = "--topic",
      paramLabel = "TOPIC",
      description = "Read this topic instead (e.g. the corrections topic).")
  String topic;

  @Option(names = "--include-superseded", description = "Also sessions merged into another one.")
  boolean includeSuperseded;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "100",
      description = "Show at most N results (the latest starts last). Default: ${DEFAULT-VALUE}.")
  int limit;

  @Option(names = "--json", description = "One result JSON per line instead of a table.")
  boolean json;

  @Override
  public Integer call() {
    PrintStream out = System.out;
    PrintStream err = System.err;
    JobSpec spec;
    Long atMs = null;
    try {
      spec = JobSpecLoader.load(job, System.getenv());
      if (window != null) {
        atMs = TimeArgument.parse(window, Clock.systemUTC()).toEpochMilli();
      }
      if (limit < 1) {
        throw new IllegalArgumentException("--limit must be >= 1, was " + limit);
      }
    } catch (IllegalArgumentException e) { // a JobSpecException too
      err.println("skewer results: " + e.getMessage());
      return ExitCode.USAGE;
    }
    String t = topic != null ? topic : spec.topics().results();
    List<ResultsReader.Result> results;
    try {
      results =
          ResultsReader.read(
              kafka.settings(),
              new ResultsReader.Query(t, spec.output().keyField(), key, atMs, includeSuperseded),
              p -> {
                if (p.elapsed().toSeconds() >= 2) {
                  err.println(p.line());
                }
              },
              Duration.ofSeconds(60));
    } catch (RuntimeException e) {
      err.println("skewer results: failed: " + e.getMessage());
      return ExitCode.FAILURE;
    }
    List<ResultsReader.Result> shown =
        results.subList(Math.max(0, results.size() - limit), results.size());
    if (json) {
      shown.forEach(r -> out.println(r.json()));
    } else {
      out.printf(
          "%-40s %-24s %-24s %10s %4s%n",
          "result key", "start (UTC)", "end (UTC)", "events", "rev");
      for (ResultsReader.Result r : shown) {
        out.printf(
            "%-40s %-24s %-24s %,10d %4d%s%n",
            r.resultKey(),
            Instant.ofEpochMilli(r.startMs()),
            Instant.ofEpochMilli(r.endMs()),
            r.eventCount(),
            r.revision(),
            r.supersededBy() == null ? "" : "  superseded by " + r.supersededBy());
      }
      out.printf(
          "%d result(s) in %s%s%n",
          results.size(),
          t,
          shown.size() < results.size() ? " (the last " + shown.size() + " shown)" : "");
    }
    return results.isEmpty() ? 1 : 0;
  }
}
