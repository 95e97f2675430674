package dev.skewer.coordinator.http;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import dev.skewer.coordinator.hotkey.HotKeyPublisher;
import dev.skewer.coordinator.hotkey.HotKeyStatus;
import dev.skewer.coordinator.query.BadParameter;
import dev.skewer.coordinator.query.NotFound;
import dev.skewer.coordinator.query.QueryService;
import dev.skewer.coordinator.query.QuerySettings;
import dev.skewer.coordinator.query.Unavailable;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyTable;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.CorsHandler;
import io.vertx.ext.web.handler.StaticHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's HTTP server: the query API, the dashboard, health and metrics. Every
 * coordinator answers for the whole cluster (see {@link QueryService}).
 *
 * <ul>
 *   <li>{@code GET /api/v1/topk}, {@code /api/v1/keys/{key}}, {@code /api/v1/windows}, {@code
 *       /api/v1/status}, {@code /api/v1/lateness}, {@code /api/v1/hotkeys}, {@code /api/v1/cluster}
 *       — JSON, described by {@code GET /api/v1/openapi.json};
 *   <li>{@code GET /dashboard/} — one static page that polls the API ({@code /} redirects there);
 *   <li>{@code GET /health/live}, {@code GET /health/ready}, {@code GET /metrics} (Prometheus).
 * </ul>
 *
 * <p>Errors are JSON {@code {"error": <message>, "parameter": <name or null>}}: 400 for a bad,
 * unknown or repeated parameter (naming it), 401 without the bearer token when one is configured,
 * 404 for nothing to answer, 405 for a method other than GET; never a 5xx for anything a client
 * sends. The token is compared in constant time (SHA-256 of both sides, {@link
 * MessageDigest#isEqual}). CORS headers are sent only for the configured origin.
 */
public final class ApiVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(ApiVerticle.class);

  /** Where the dashboard's files are on the classpath. */
  public static final String DASHBOARD_ROOT = "skewer-dashboard";

  /** Threads answering queries, apart from the Vert.x worker pool the merge stage uses. */
  static final int WORKER_THREADS = 2;

  /** Where the OpenAPI document is on the classpath. */
  public static final String OPENAPI_RESOURCE = "/dev/skewer/coordinator/http/openapi.json";

  private final String host;
  private final int port;
  private final QuerySettings query;
  private final QueryService service;
  private final HazelcastInstance hazelcast; // may be null
  private final String hotKeysMap;
  private final MeterRegistry registry;
  private final Supplier<Readiness> readiness;
  private final Supplier<List<HotKeyStatus>> localHotKeys;
  private final byte[] tokenDigest; // null: open
  private String openApi;
  private HttpServer server;
  private WorkerExecutor workers; // the API's own: never queued behind the merge stage's I/O

  /**
   * @param host the address to bind
   * @param hotKeysMap the job's Hazelcast map of the published hot-key table
   */
  public ApiVerticle(
      String host,
      int port,
      QuerySettings query,
      QueryService service,
      HazelcastInstance hazelcast,
      String hotKeysMap,
      MeterRegistry registry,
      Supplier<Readiness> readiness,
      Supplier<List<HotKeyStatus>> localHotKeys) {
    this.port = port;
    this.host = host == null ? "0.0.0.0" : host;
    this.query = query;
    this.service = service;
    this.hazelcast = hazelcast;
    this.hotKeysMap = hotKeysMap;
    this.registry = registry;
    this.readiness = readiness;
    this.localHotKeys = localHotKeys;
    this.tokenDigest = query.apiToken() == null ? null : sha256(query.apiToken());
  }

  @Override
  public Future<?> start() {
    openApi = readResource(OPENAPI_RESOURCE);
    workers = vertx.createSharedWorkerExecutor("skewer-api-" + deploymentID(), WORKER_THREADS);
    Router router = Router.router(vertx);
    if (query.corsOrigin() != null) {
      router
          .route()
          .handler(
              CorsHandler.create()
                  .addOrigin(query.corsOrigin())
                  .allowedMethod(HttpMethod.GET)
                  .allowedHeader("Authorization"));
    }
    router.get("/health/live").handler(rc -> json(rc, 200, new JsonObject().put("status", "UP")));
    router
        .get("/health/ready")
        .handler(
            rc -> {
              Readiness r = readiness.get();
              json(
                  rc,
                  r.ready() ? 200 : 503,
                  new JsonObject()
                      .put("status", r.ready() ? "UP" : "DOWN")
                      .put("detail", r.detail()));
            });
    router.get("/metrics").handler(this::metrics);
    router.get("/").handler(rc -> rc.redirect("/dashboard/"));
    router.get("/dashboard/*").handler(StaticHandler.create(DASHBOARD_ROOT));
    router
        .get("/api/v1/openapi.json")
        .handler(
            rc ->
                rc.response()
                    .putHeader("content-type", "application/json")
                    .putHeader("cache-control", "no-cache")
                    .end(openApi));
    router.route("/api/v1/*").handler(this::authorize);
    router.get("/api/v1/topk").handler(rc -> answer(rc, params -> service.topK(params)));
    router
        .get("/api/v1/keys/:key")
        .handler(rc -> answer(rc, params -> service.key(rc.pathParam("key"), params)));
    router.get("/api/v1/windows").handler(rc -> answer(rc, params -> service.windows(params)));
    router.get("/api/v1/status").handler(rc -> answer(rc, params -> service.status(params)));
    router.get("/api/v1/lateness").handler(rc -> answer(rc, params -> service.lateness(params)));
    router.get("/api/v1/cluster").handler(rc -> answer(rc, this::cluster));
    router.get("/api/v1/hotkeys").handler(rc -> answer(rc, this::hotKeys));
    router
        .route()
        .last()
        .handler(
            rc -> {
              if (rc.request().method() != HttpMethod.GET) {
                error(rc, 405, "method not allowed: only GET is served here", null);
              } else {
                error(rc, 404, "no such resource: " + clip(rc.request().path()), null);
              }
            });
    router.errorHandler(
        405, rc -> error(rc, 405, "method not allowed: only GET is served here", null));
    router.errorHandler(400, rc -> error(rc, 400, "malformed request", null));
    router.errorHandler(
        500,
        rc -> {
          LOG.warn("HTTP request failed: {}", rc.request().path(), rc.failure());
          error(rc, 500, "internal error", null);
        });
    server = vertx.createHttpServer().requestHandler(router);
    return server
        .listen(port, host)
        .onSuccess(
            s ->
                LOG.info(
                    "HTTP API on {}:{} (dashboard /dashboard/, auth {}, CORS {})",
                    host,
                    s.actualPort(),
                    tokenDigest == null ? "off" : "bearer token",
                    query.corsOrigin() == null ? "off" : query.corsOrigin()));
  }

  @Override
  public Future<?> stop() {
    return workers == null ? Future.succeededFuture() : workers.close();
  }

  /** The port actually bound (useful with port 0). */
  public int actualPort() {
    return server.actualPort();
  }

  private interface Answer {
    JsonObject apply(Map<String, List<String>> params) throws Exception;
  }

  /** Parses the query string, then answers on a worker thread. */
  private void answer(RoutingContext rc, Answer answer) {
    Map<String, List<String>> params;
    try {
      params = new LinkedHashMap<>();
      for (Map.Entry<String, String> e : rc.queryParams()) {
        params.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue());
      }
    } catch (RuntimeException e) {
      error(rc, 400, "malformed query string: " + clip(String.valueOf(e.getMessage())), null);
      return;
    }
    Callable<JsonObject> work = () -> answer.apply(params);
    workers
        .executeBlocking(work, false)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                json(rc, 200, ar.result());
              } else if (ar.cause() instanceof BadParameter b) {
                error(rc, 400, b.getMessage(), b.parameter());
              } else if (ar.cause() instanceof NotFound n) {
                error(rc, 404, n.getMessage(), null);
              } else if (ar.cause() instanceof Unavailable u) {
                error(rc, 503, u.getMessage(), null);
              } else {
                LOG.warn("query failed: {}", rc.request().uri(), ar.cause());
                error(rc, 503, "the query could not be answered now: " + ar.cause(), null);
              }
            });
  }

  private void authorize(RoutingContext rc) {
    if (tokenDigest == null) {
      rc.next();
      return;
    }
    String header = rc.request().getHeader("Authorization");
    String presented =
        header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
            ? header.substring(7).trim()
            : "";
    if (MessageDigest.isEqual(tokenDigest, sha256(presented))) {
      rc.next();
      return;
    }
    rc.response().putHeader("WWW-Authenticate", "Bearer realm=\"skewer\"");
    error(
        rc,
        401,
        header == null ? "missing bearer token (Authorization: Bearer <token>)" : "wrong token",
        null);
  }

  private JsonObject cluster(Map<String, List<String>> params) {
    QueryService.checkParameters(params, Set.of());
    if (hazelcast == null) {
      return new JsonObject().put("cluster", null).put("size", 0).put("members", new JsonArray());
    }
    JsonArray members = new JsonArray();
    for (Member m : hazelcast.getCluster().getMembers()) {
      members.add(
          new JsonObject()
              .put("address", m.getAddress().toString())
              .put("uuid", m.getUuid().toString())
              .put("name", m.getAttribute("skewer.name"))
              .put("role", m.getAttribute("skewer.role"))
              .put("job", m.getAttribute("skewer.job"))
              .put("local", m.localMember()));
    }
    return new JsonObject()
        .put("cluster", hazelcast.getConfig().getClusterName())
        .put("size", members.size())
        .put("members", members);
  }

  private JsonObject hotKeys(Map<String, List<String>> params) {
    QueryService.checkParameters(params, Set.of());
    HotKeyTable table =
        hazelcast == null
            ? HotKeyTable.EMPTY
            : HotKeyPublisher.readHazelcast(hazelcast, hotKeysMap);
    JsonArray hot = new JsonArray();
    for (HotKey h : table.entries()) {
      hot.add(
          new JsonObject()
              .put("key", h.key())
              .put("fanout", h.fanout())
              .put("since_ms", h.sinceMs()));
    }
    JsonArray local = new JsonArray();
    for (HotKeyStatus st : localHotKeys.get()) {
      local.add(
          new JsonObject()
              .put("key", st.key())
              .put("fanout", st.fanout())
              .put("since_ms", st.sinceMs())
              .put("events_per_second", st.eventsPerSecond())
              .put("cooling", st.cooling()));
    }
    return new JsonObject().put("hot_keys", hot).put("measured_here", local);
  }

  private void metrics(RoutingContext rc) {
    if (registry instanceof PrometheusMeterRegistry prometheus) {
      rc.response()
          .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
          .end(prometheus.scrape());
    } else {
      error(rc, 404, "no Prometheus registry configured", null);
    }
  }

  private static void error(RoutingContext rc, int status, String message, String parameter) {
    if (rc.response().ended()) {
      return;
    }
    json(rc, status, new JsonObject().put("error", message).put("parameter", parameter));
  }

  private static void json(RoutingContext rc, int status, JsonObject body) {
    if (rc.response().ended()) {
      return;
    }
    rc.response()
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .putHeader("cache-control", "no-store")
        .end(body.encode());
  }

  private static String clip(String s) {
    return s.length() <= 128 ? s : s.substring(0, 128) + "...";
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static String readResource(String name) {
    try (InputStream in = ApiVerticle.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
