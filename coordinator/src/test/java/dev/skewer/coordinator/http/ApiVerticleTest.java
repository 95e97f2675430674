package dev.skewer.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.coordinator.query.OpenWindowTotals;
import dev.skewer.coordinator.query.QueryFixtures;
import dev.skewer.coordinator.query.QueryService;
import dev.skewer.coordinator.query.QuerySettings;
import dev.skewer.coordinator.query.ResultParser;
import dev.skewer.coordinator.query.ResultsView;
import dev.skewer.coordinator.query.SideOutputStats;
import dev.skewer.coordinator.query.SourceStatus;
import dev.skewer.coordinator.query.StageStatus;
import dev.skewer.coordinator.query.StageStatusStore;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.job.JobSpec;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The API over real HTTP, answering from a view filled with envelopes the real formatter wrote:
 * values, error bars, every response checked against the OpenAPI document, bad and fuzzed
 * parameters, auth, CORS, the dashboard's files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiVerticleTest {

  private static final long NOW = 1_000_000;
  private static final String TOKEN = "s3cret-token";

  private final JobSpec job = QueryFixtures.job();
  private final HttpClient http = HttpClient.newHttpClient();
  private Vertx vertx;
  private OpenApiResponses contract;
  private int openPort;
  private int securedPort;
  private int catchingUpPort;

  @BeforeAll
  void start() throws Exception {
    vertx = Vertx.vertx();
    contract = OpenApiResponses.load();
    Clock clock = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
    ResultsView view = new ResultsView(1 << 30);
    ResultParser parser = new ResultParser(job);
    // window [10 s, 20 s): closed everywhere; [20 s, 30 s): closed on partition 0 only
    for (int i = 0; i < 30; i++) {
      view.add(
          parser.parse(QueryFixtures.envelope(job, "k" + i, 10_000, 100 - i, i, 5 + i, 0)),
          NOW,
          NOW);
    }
    view.add(parser.parse(QueryFixtures.envelope(job, "k1", 10_000, 200, 1, 5, 1)), NOW, NOW);
    view.add(parser.parse(QueryFixtures.envelope(job, "k1", 20_000, 3, 1, 2, 0)), NOW, NOW);
    SideOutputStats side = new SideOutputStats(job);
    RecordHeaders late = new RecordHeaders();
    late.add(SideOutputStats.WATERMARK_HEADER, "26000".getBytes(StandardCharsets.UTF_8));
    side.onLate(
        "{\"key\":\"k1\",\"ts\":12000,\"value\":1}".getBytes(StandardCharsets.UTF_8), late, NOW);
    StageStatusStore stages = StageStatusStore.inMemory(clock);
    List<SourceStatus> sources =
        List.of(
            new SourceStatus(0, 31_000, 1, false, true),
            new SourceStatus(1, 33_000, 1, false, true));
    stages.publish(
        List.of(
            new StageStatus(0, "coordinator-1", 1, NOW, 31_000, 4, sources, List.of()),
            new StageStatus(
                1,
                "coordinator-2",
                1,
                NOW,
                20_000,
                9,
                sources,
                List.of(
                    new OpenWindowTotals(
                        30_000,
                        40_000,
                        List.of(
                            new OpenWindowTotals.KeyTotals("k5", 7, new double[] {3, 7}, 2),
                            new OpenWindowTotals.KeyTotals("k9", 11, new double[] {1, 11}, 4)))))));
    view.markCaughtUp();
    QueryService service = new QueryService(job, view, side, stages, null, clock);
    openPort = deploy(QuerySettings.defaults(), service);
    // a coordinator whose view has not yet read what the results topic held at start
    ResultsView reading = new ResultsView(1 << 30);
    reading.add(parser.parse(QueryFixtures.envelope(job, "k1", 10_000, 3, 1, 2, 0)), NOW, NOW);
    catchingUpPort =
        deploy(QuerySettings.defaults(), new QueryService(job, reading, side, stages, null, clock));
    securedPort =
        deploy(
            QuerySettings.defaults().withApiToken(TOKEN).withCorsOrigin("https://ops.example"),
            service);
  }

  private int deploy(QuerySettings settings, QueryService service) throws Exception {
    ApiVerticle api =
        new ApiVerticle(
            "127.0.0.1",
            0,
            settings,
            service,
            null,
            "skewer.test.hotkeys",
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            () -> Readiness.up("test"),
            List::of);
    vertx.deployVerticle(api).await(30, TimeUnit.SECONDS);
    return api.actualPort();
  }

  @AfterAll
  void stop() throws Exception {
    contract.close();
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  private HttpResponse<String> get(int port, String pathAndQuery, String... headers)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
            .timeout(Duration.ofSeconds(30));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** GETs and checks the answer against the OpenAPI document. */
  private HttpResponse<String> call(String operation, String pathAndQuery) throws Exception {
    HttpResponse<String> r = get(openPort, pathAndQuery);
    contract.check(
        operation, r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
    return r;
  }

  private JsonObject ok(String operation, String pathAndQuery) throws Exception {
    HttpResponse<String> r = call(operation, pathAndQuery);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }

  @Test
  void shouldAnswerTheLatestClosedWindowsTopKExactlyByEveryMeasure() throws Exception {
    JsonObject top = ok("topk", "/api/v1/topk?k=3");
    assertThat(top.getLong("window_start_ms")).isEqualTo(10_000);
    assertThat(top.getString("state")).isEqualTo("closed");
    assertThat(top.getBoolean("speculative")).isFalse();
    assertThat(top.getInteger("partitions_reporting")).isEqualTo(2);
    assertThat(top.getInteger("keys_in_window")).isEqualTo(30);
    assertThat(top.getLong("late_events")).isEqualTo(1);
    JsonArray keys = top.getJsonArray("keys");
    assertThat(keys.stream().map(o -> ((JsonObject) o).getString("key")))
        .containsExactly("k1", "k0", "k2");
    assertThat(keys.getJsonObject(0).getLong("count")).isEqualTo(200);
    assertThat(keys.getJsonObject(0).getInteger("revision")).isEqualTo(1);
    // by sum of value: count × value, k29 = 71 × 29 largest
    JsonObject bySum = ok("topk", "/api/v1/topk?by=sum&field=value&k=1");
    assertThat(bySum.getJsonArray("keys").getJsonObject(0).getString("key")).isEqualTo("k29");
    assertThat(bySum.getString("field")).isEqualTo("value");
    JsonObject byDistinct = ok("topk", "/api/v1/topk?by=distinct&k=2");
    assertThat(byDistinct.getJsonArray("keys").getJsonObject(0).getString("key")).isEqualTo("k29");
    // every key of the window for k above the key count
    assertThat(ok("topk", "/api/v1/topk?k=10000").getJsonArray("keys")).hasSize(30);
    // a window by start, not closed everywhere yet
    JsonObject closing = ok("topk", "/api/v1/topk?window=20000");
    assertThat(closing.getString("state")).isEqualTo("closing");
    assertThat(closing.getInteger("partitions_reporting")).isEqualTo(1);
  }

  @Test
  void shouldAnswerTheOpenWindowSpeculativelyFromTheStagesTotals() throws Exception {
    JsonObject open = ok("topk", "/api/v1/topk?window=open");
    assertThat(open.getBoolean("speculative")).isTrue();
    assertThat(open.getString("state")).isEqualTo("open");
    assertThat(open.getLong("window_start_ms")).isEqualTo(30_000);
    assertThat(open.getJsonArray("keys").getJsonObject(0).getString("key")).isEqualTo("k9");
    JsonObject bySum = ok("topk", "/api/v1/topk?window=open&by=sum");
    assertThat(bySum.getJsonArray("keys").getJsonObject(0).getString("key")).isEqualTo("k5");
  }

  @Test
  void shouldAnswerAKeyWithEveryEstimatesErrorBars() throws Exception {
    JsonObject key = ok("key", "/api/v1/keys/k1");
    JsonArray windows = key.getJsonArray("windows");
    assertThat(windows).hasSize(2);
    JsonObject w = windows.getJsonObject(0);
    assertThat(w.getLong("event_count")).isEqualTo(200);
    assertThat(w.getInteger("revision")).isEqualTo(1);
    JsonObject estimates = w.getJsonObject("estimates");
    JsonObject distinct = estimates.getJsonObject("distinct_user");
    double e = distinct.getDouble("estimate");
    double rse = distinct.getDouble("rse");
    assertThat(distinct.getJsonArray("ci95").getDouble(0))
        .isCloseTo(e * (1 - 1.959964 * rse), Offset.offset(1e-9));
    assertThat(distinct.getJsonArray("ci68").getDouble(1))
        .isCloseTo(e * (1 + rse), Offset.offset(1e-9));
    assertThat(estimates.getJsonObject("p99_value").getDouble("quantile")).isEqualTo(0.99);
    assertThat(estimates.getJsonObject("p99_value").getJsonArray("rank_interval")).hasSize(2);
    JsonArray hitters = estimates.getJsonObject("top_page").getJsonArray("items");
    assertThat(hitters).hasSize(3);
    JsonObject h = hitters.getJsonObject(0);
    assertThat(h.getJsonArray("interval").getLong(1)).isEqualTo(h.getLong("estimate"));
    assertThat(h.getJsonArray("interval").getLong(0))
        .isEqualTo(Math.max(0, h.getLong("estimate") - h.getLong("error")));
    assertThat(w.getJsonObject("exact").getDouble("sum_value")).isEqualTo(200.0);
    assertThat(w.getJsonObject("result").getJsonObject("value").getInteger("revision"))
        .isEqualTo(1);
    // a range: ISO instants and epoch ms
    JsonObject ranged = ok("key", "/api/v1/keys/k1?from=1970-01-01T00:00:15Z&to=" + 30_000);
    assertThat(ranged.getJsonArray("windows")).hasSize(1);
    assertThat(ranged.getLong("from_ms")).isEqualTo(15_000);
    assertThat(call("key", "/api/v1/keys/nobody").statusCode()).isEqualTo(404);
  }

  @Test
  void shouldListWindowsOpenAndClosedNewestFirst() throws Exception {
    JsonObject w = ok("windows", "/api/v1/windows?limit=5");
    assertThat(w.getLong("global_watermark_ms")).isEqualTo(20_000);
    JsonArray rows = w.getJsonArray("windows");
    // open [30 s, 40 s) (sources reached 33 s + 1 s delay), closing [20 s, 30 s), closed [10 s, 20
    // s)
    assertThat(rows.stream().map(o -> ((JsonObject) o).getLong("window_start_ms")))
        .containsExactly(30_000L, 20_000L, 10_000L);
    assertThat(rows.stream().map(o -> ((JsonObject) o).getString("state")))
        .containsExactly("open", "closing", "closed");
    JsonObject closed = rows.getJsonObject(2);
    assertThat(closed.getInteger("keys")).isEqualTo(30);
    assertThat(closed.getLong("result_records")).isEqualTo(31);
    assertThat(closed.getLong("revisions")).isEqualTo(1);
    assertThat(closed.getLong("late_events")).isEqualTo(1);
  }

  @Test
  void shouldAnswerStatusLatenessClusterAndHotKeysInTheDocumentsShape() throws Exception {
    JsonObject status = ok("status", "/api/v1/status");
    assertThat(status.getJsonObject("watermark").getLong("lag_ms")).isEqualTo(NOW - 20_000);
    assertThat(status.getJsonObject("late").getLong("total")).isEqualTo(1);
    JsonObject lateness = ok("lateness", "/api/v1/lateness");
    assertThat(lateness.getLong("measured")).isEqualTo(1);
    assertThat(lateness.getJsonObject("needed_lateness_ms").getLong("max")).isEqualTo(6_001);
    assertThat(lateness.getString("text")).contains("99%");
    ok("cluster", "/api/v1/cluster");
    ok("hotkeys", "/api/v1/hotkeys");
  }

  @Test
  void shouldAnswer400NamingEveryBadParameter() throws Exception {
    Map<String, String> cases =
        Map.ofEntries(
            Map.entry("/api/v1/topk?k=0", "k"),
            Map.entry("/api/v1/topk?k=abc", "k"),
            Map.entry("/api/v1/topk?by=median", "by"),
            Map.entry("/api/v1/topk?window=yesterday", "window"),
            Map.entry("/api/v1/topk?by=sum&field=nope", "field"),
            Map.entry("/api/v1/topk?field=value", "field"),
            Map.entry("/api/v1/topk?kk=1", "kk"),
            Map.entry("/api/v1/topk?k=1&k=2", "k"),
            Map.entry("/api/v1/keys/k1?from=soon", "from"),
            Map.entry("/api/v1/keys/k1?from=20&to=10", "to"),
            Map.entry("/api/v1/windows?limit=1001", "limit"),
            Map.entry("/api/v1/status?x=1", "x"),
            Map.entry("/api/v1/lateness?verbose=true", "verbose"),
            Map.entry("/api/v1/hotkeys?k=1", "k"),
            Map.entry("/api/v1/cluster?all=1", "all"));
    for (Map.Entry<String, String> c : cases.entrySet()) {
      String operation = c.getKey().substring(8).split("[/?]")[0];
      HttpResponse<String> r = call(operation.equals("keys") ? "key" : operation, c.getKey());
      assertThat(r.statusCode()).as(c.getKey()).isEqualTo(400);
      JsonObject body = new JsonObject(r.body());
      assertThat(body.getString("parameter")).as(c.getKey()).isEqualTo(c.getValue());
      assertThat(body.getString("error")).as(c.getKey()).contains(c.getValue());
    }
    HttpResponse<String> tooMany = call("topk", "/api/v1/topk?k=20000");
    assertThat(new JsonObject(tooMany.body()).getString("error")).contains("10000");
  }

  @Test
  void shouldNeverAnswer5xxToFuzzedParametersOrPaths() throws Exception {
    SplittableRandom random = new SplittableRandom(42);
    String[][] endpoints = {
      {"topk", "/api/v1/topk", "by", "window", "k", "field"},
      {"key", "/api/v1/keys/k1", "from", "to"},
      {"windows", "/api/v1/windows", "limit"},
      {"status", "/api/v1/status", "x"},
      {"lateness", "/api/v1/lateness", "x"},
    };
    for (int i = 0; i < 400; i++) {
      String[] e = endpoints[random.nextInt(endpoints.length)];
      StringBuilder q = new StringBuilder(e[1]).append('?');
      int n = random.nextInt(3) + 1;
      for (int p = 0; p < n; p++) {
        String name = e[2 + random.nextInt(e.length - 2)];
        q.append(p == 0 ? "" : "&")
            .append(name)
            .append('=')
            .append(URLEncoder.encode(fuzz(random), StandardCharsets.UTF_8));
      }
      HttpResponse<String> r = call(e[0], q.toString());
      assertThat(r.statusCode()).as(q.toString()).isLessThan(500);
      if (r.statusCode() != 200) {
        assertThat(new JsonObject(r.body()).getString("error")).as(q.toString()).isNotBlank();
      }
    }
    for (int i = 0; i < 200; i++) {
      String key = URLEncoder.encode(fuzz(random), StandardCharsets.UTF_8).replace("+", "%20");
      HttpResponse<String> r = get(openPort, "/api/v1/keys/" + (key.isEmpty() ? "%00" : key));
      assertThat(r.statusCode()).as(key).isIn(200, 400, 404);
      assertThat(new JsonObject(r.body()).containsKey("error") || r.statusCode() == 200).isTrue();
    }
    for (String raw :
        new String[] {"/api/v1/keys/%", "/api/v1/topk?k=%zz", "/api/v1/%", "/api/v1/topk?&&==&k"}) {
      assertThat(rawGetStatus(openPort, raw)).as(raw).isBetween(400, 499);
    }
  }

  /** A GET the JDK client would refuse to send (malformed escapes): the status line's code. */
  private static int rawGetStatus(int port, String target) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      socket
          .getOutputStream()
          .write(
              ("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.ISO_8859_1));
      String statusLine =
          new BufferedReader(
                  new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1))
              .readLine();
      return Integer.parseInt(statusLine.split(" ")[1]);
    }
  }

  private static String fuzz(SplittableRandom random) {
    String[] seeds = {
      "",
      "0",
      "-1",
      "10001",
      "9999999999999999999999",
      "1e3",
      "NaN",
      "latest",
      "open",
      "count",
      "sum",
      "distinct",
      "value",
      "bytes",
      "2024-01-01T00:00:00Z",
      "\u0000",
      "' OR 1=1 --",
      "<script>",
      "%",
      "\uD83D\uDE00",
      "\uD800",
      "  7  ",
      "0x10",
      "+5"
    };
    if (random.nextBoolean()) {
      return seeds[random.nextInt(seeds.length)];
    }
    StringBuilder s = new StringBuilder();
    int len = random.nextInt(40);
    for (int i = 0; i < len; i++) {
      s.append((char) (random.nextInt(3) == 0 ? random.nextInt(0x3000) : 32 + random.nextInt(95)));
    }
    return s.toString();
  }

  @Test
  void shouldAnswerUnknownPathsAndMethodsWithJsonErrors() throws Exception {
    HttpResponse<String> missing = get(openPort, "/api/v1/nothing");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(new JsonObject(missing.body()).getString("error")).contains("/api/v1/nothing");
    HttpResponse<String> post =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + openPort + "/api/v1/topk"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(new JsonObject(post.body()).getString("error")).contains("GET");
  }

  @Test
  void shouldRequireTheBearerTokenOnDataEndpointsOnlyWhenConfigured() throws Exception {
    HttpResponse<String> none = get(securedPort, "/api/v1/topk");
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
    contract.check("topk", 401, "application/json", none.body());
    assertThat(get(securedPort, "/api/v1/topk", "Authorization", "Bearer wrong").statusCode())
        .isEqualTo(401);
    assertThat(
            get(securedPort, "/api/v1/topk", "Authorization", "Bearer " + TOKEN + "x").statusCode())
        .isEqualTo(401);
    assertThat(get(securedPort, "/api/v1/topk", "Authorization", "Bearer " + TOKEN).statusCode())
        .isEqualTo(200);
    assertThat(get(securedPort, "/api/v1/topk", "Authorization", "bearer " + TOKEN).statusCode())
        .isEqualTo(200);
    // health, metrics, the document and the dashboard's files stay open (probes, scrapers)
    assertThat(get(securedPort, "/health/ready").statusCode()).isEqualTo(200);
    assertThat(get(securedPort, "/metrics").statusCode()).isEqualTo(200);
    assertThat(get(securedPort, "/api/v1/openapi.json").statusCode()).isEqualTo(200);
    assertThat(get(securedPort, "/dashboard/").statusCode()).isEqualTo(200);
    // without a token, everything is open
    assertThat(get(openPort, "/api/v1/topk").statusCode()).isEqualTo(200);
  }

  @Test
  void shouldSendCorsHeadersOnlyForTheConfiguredOrigin() throws Exception {
    HttpResponse<String> closed = get(openPort, "/api/v1/topk", "Origin", "https://ops.example");
    assertThat(closed.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    HttpResponse<String> allowed =
        get(securedPort, "/health/live", "Origin", "https://ops.example");
    assertThat(allowed.headers().firstValue("Access-Control-Allow-Origin"))
        .hasValue("https://ops.example");
    HttpResponse<String> other = get(securedPort, "/health/live", "Origin", "https://evil.example");
    assertThat(other.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    assertThat(other.statusCode()).isLessThan(500);
  }

  @Test
  void shouldAnswer503InsteadOfAPartialWindowWhileTheViewIsStillReadingTheResultsTopic()
      throws Exception {
    for (String[] q :
        new String[][] {
          {"topk", "/api/v1/topk?k=10"},
          {"topk", "/api/v1/topk?window=10000&k=10000"},
          {"key", "/api/v1/keys/k1"},
          {"windows", "/api/v1/windows"}
        }) {
      HttpResponse<String> r = get(catchingUpPort, q[1]);
      contract.check(
          q[0], r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
      assertThat(r.statusCode()).as(q[1]).isEqualTo(503);
      assertThat(new JsonObject(r.body()).getString("error"))
          .contains("still reading the results topic");
    }
    // what does not come from the view still answers
    assertThat(get(catchingUpPort, "/api/v1/topk?window=open").statusCode()).isEqualTo(200);
    assertThat(get(catchingUpPort, "/api/v1/status").statusCode()).isEqualTo(200);
  }

  @Test
  void shouldServeTheDashboardAndTheOpenApiDocument() throws Exception {
    HttpResponse<String> root = get(openPort, "/");
    assertThat(root.statusCode()).isEqualTo(302);
    assertThat(root.headers().firstValue("location")).hasValue("/dashboard/");
    HttpResponse<String> page = get(openPort, "/dashboard/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("<title>Skewer dashboard</title>").contains("app.js");
    assertThat(get(openPort, "/dashboard/app.js").body()).contains("/api/v1/topk");
    JsonObject doc = new JsonObject(get(openPort, "/api/v1/openapi.json").body());
    assertThat(doc.getJsonObject("paths").fieldNames())
        .contains("/api/v1/topk", "/api/v1/keys/{key}", "/api/v1/windows", "/api/v1/lateness");
    assertThat(contract.checked()).isGreaterThanOrEqualTo(0);
  }
}
