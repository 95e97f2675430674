package dev.skewer.coordinator.http;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import dev.skewer.coordinator.hotkey.HotKeyPublisher;
import dev.skewer.coordinator.hotkey.HotKeyStatus;
import dev.skewer.coordinator.topk.TopKEntry;
import dev.skewer.coordinator.topk.TopKStore;
import dev.skewer.coordinator.topk.TopKView;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyTable;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves:
 *
 * <ul>
 *   <li>{@code GET /api/v1/topk?k=10&window=latest|<startMs>} — the top keys of a closed window by
 *       exact count, merged across coordinators;
 *   <li>{@code GET /api/v1/cluster} — the Hazelcast members and their roles;
 *   <li>{@code GET /api/v1/hotkeys} — the published hot-key table (key → fanout, since) and the
 *       rates this coordinator measured for the keys it owns;
 *   <li>{@code GET /health/live}, {@code GET /health/ready};
 *   <li>{@code GET /metrics} — Prometheus text format.
 * </ul>
 *
 * Bad parameters answer 400 with a JSON {@code {"error": ...}} naming the parameter.
 */
public final class ApiVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(ApiVerticle.class);
  public static final int MAX_K = 1000;

  private final String host;
  private final int port;
  private final TopKStore topK;
  private final int partialsPartitions;
  private final HazelcastInstance hazelcast; // may be null
  private final String hotKeysMap;
  private final MeterRegistry registry;
  private final Supplier<Readiness> readiness;
  private final java.util.function.Supplier<java.util.List<HotKeyStatus>> localHotKeys;
  private HttpServer server;

  /**
   * @param host the address to bind
   * @param hotKeysMap the job's Hazelcast map of the published hot-key table
   */
  public ApiVerticle(
      String host,
      int port,
      TopKStore topK,
      int partialsPartitions,
      HazelcastInstance hazelcast,
      String hotKeysMap,
      MeterRegistry registry,
      Supplier<Readiness> readiness,
      java.util.function.Supplier<java.util.List<HotKeyStatus>> localHotKeys) {
    this.host = host;
    this.port = port;
    this.topK = topK;
    this.partialsPartitions = partialsPartitions;
    this.hazelcast = hazelcast;
    this.hotKeysMap = hotKeysMap;
    this.registry = registry;
    this.readiness = readiness;
    this.localHotKeys = localHotKeys;
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
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
    router.get("/api/v1/topk").handler(this::topK);
    router.get("/api/v1/cluster").handler(this::cluster);
    router.get("/api/v1/hotkeys").handler(this::hotKeys);
    router.get("/metrics").handler(this::metrics);
    server = vertx.createHttpServer().requestHandler(router);
    return server
        .listen(port, host)
        .onSuccess(s -> LOG.info("HTTP API listening on {}:{}", host, s.actualPort()));
  }

  /** The port actually bound (useful with port 0). */
  public int actualPort() {
    return server.actualPort();
  }

  private void topK(RoutingContext rc) {
    int k;
    String kParam = rc.request().getParam("k", "10");
    try {
      k = Integer.parseInt(kParam);
    } catch (NumberFormatException e) {
      k = -1;
    }
    if (k < 1 || k > MAX_K) {
      badRequest(rc, "k must be an integer in [1, " + MAX_K + "], was '" + kParam + "'");
      return;
    }
    String window = rc.request().getParam("window", "latest");
    Long windowStart = null;
    if (!"latest".equals(window)) {
      try {
        windowStart = Long.parseLong(window);
      } catch (NumberFormatException e) {
        badRequest(
            rc, "window must be 'latest' or a window start in epoch ms, was '" + window + "'");
        return;
      }
    }
    int kk = k;
    Long requested = windowStart;
    vertx
        .executeBlocking(
            () -> {
              Optional<Long> start =
                  requested != null ? Optional.of(requested) : topK.latestWindowStartMs();
              return start.flatMap(s -> topK.read(s, kk, partialsPartitions));
            },
            false)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                LOG.warn("top-K read failed", ar.cause());
                json(rc, 500, new JsonObject().put("error", "top-K index unavailable"));
                return;
              }
              Optional<TopKView> view = ar.result();
              if (view.isEmpty()) {
                json(
                    rc,
                    404,
                    new JsonObject()
                        .put(
                            "error",
                            requested == null
                                ? "no window has closed yet"
                                : "no top-K for window " + requested + " (not closed or expired)"));
                return;
              }
              TopKView v = view.get();
              JsonArray keys = new JsonArray();
              for (TopKEntry e : v.keys()) {
                keys.add(new JsonObject().put("key", e.key()).put("count", e.count()));
              }
              json(
                  rc,
                  200,
                  new JsonObject()
                      .put("window_start_ms", v.windowStartMs())
                      .put("window_end_ms", v.windowEndMs())
                      .put("k", kk)
                      .put("partitions_reporting", v.partitionsReporting())
                      .put("partitions", v.partitions())
                      .put("keys", keys));
            });
  }

  private void cluster(RoutingContext rc) {
    if (hazelcast == null) {
      json(rc, 200, new JsonObject().put("size", 0).put("members", new JsonArray()));
      return;
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
    json(
        rc,
        200,
        new JsonObject()
            .put("cluster", hazelcast.getConfig().getClusterName())
            .put("size", members.size())
            .put("members", members));
  }

  private void hotKeys(RoutingContext rc) {
    vertx
        .executeBlocking(
            () ->
                hazelcast == null
                    ? HotKeyTable.EMPTY
                    : HotKeyPublisher.readHazelcast(hazelcast, hotKeysMap),
            false)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                LOG.warn("hot-key read failed", ar.cause());
                json(rc, 500, new JsonObject().put("error", "hot-key table unavailable"));
                return;
              }
              JsonArray table = new JsonArray();
              for (HotKey h : ar.result().entries()) {
                table.add(
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
              json(rc, 200, new JsonObject().put("hot_keys", table).put("measured_here", local));
            });
  }

  private void metrics(RoutingContext rc) {
    if (registry instanceof PrometheusMeterRegistry prometheus) {
      rc.response()
          .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
          .end(prometheus.scrape());
    } else {
      json(rc, 404, new JsonObject().put("error", "no Prometheus registry configured"));
    }
  }

  private static void badRequest(RoutingContext rc, String message) {
    json(rc, 400, new JsonObject().put("error", message));
  }

  private static void json(RoutingContext rc, int status, JsonObject body) {
    rc.response()
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .end(body.encode());
  }
}
