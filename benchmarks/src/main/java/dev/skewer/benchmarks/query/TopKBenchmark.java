package dev.skewer.benchmarks.query;

import dev.skewer.coordinator.query.QueryService;
import dev.skewer.coordinator.query.ResultParser;
import dev.skewer.coordinator.query.ResultsView;
import dev.skewer.coordinator.query.SideOutputStats;
import dev.skewer.coordinator.query.StageStatusStore;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Microseconds per {@code GET /api/v1/topk?k=10&window=...} answered by {@link QueryService} (no
 * HTTP) over a closed W1 window of 50,000 keys in the view: the ranking is made once per window
 * version, so what a request pays is its ten entries.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TopKBenchmark {
  private static final int KEYS = 50_000;

  private QueryService service;
  private Map<String, List<String>> topTen;

  @Setup
  public void setUp() {
    W1Results results = new W1Results(KEYS, 1);
    ResultParser parser = new ResultParser(results.job);
    ResultsView view = new ResultsView(Long.MAX_VALUE);
    for (int k = 0; k < KEYS; k++) {
      view.add(parser.parse(results.envelope("ad" + k, W1Results.START, k)), 0, 0);
    }
    view.markCaughtUp();
    Clock clock = Clock.fixed(Instant.ofEpochMilli(W1Results.END + 60_000), ZoneOffset.UTC);
    service =
        new QueryService(
            results.job,
            view,
            new SideOutputStats(results.job),
            StageStatusStore.inMemory(clock),
            null,
            clock);
    topTen = Map.of("k", List.of("10"), "window", List.of(Long.toString(W1Results.START)));
    JsonObject answer = service.topK(topTen);
    if (answer.getJsonArray("keys").size() != 10
        || answer.getJsonArray("keys").getJsonObject(0).getJsonObject("provenance") == null) {
      throw new IllegalStateException("not ten keys with their provenance: " + answer);
    }
  }

  @Benchmark
  public JsonObject topTenOfAW1Window() {
    return service.topK(topTen);
  }
}
