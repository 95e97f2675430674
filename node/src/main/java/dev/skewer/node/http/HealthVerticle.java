package dev.skewer.node.http;

import dev.skewer.core.health.Readiness;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's HTTP endpoints, the same as the coordinator's:
 *
 * <ul>
 *   <li>{@code GET /health/live}: 200 {@code {"status":"UP"}} while the process runs;
 *   <li>{@code GET /health/ready}: 200 {@code {"status":"UP","detail":...}} when the supplied
 *       {@link Readiness} is ready, else 503 {@code {"status":"DOWN","detail":...}};
 *   <li>{@code GET /metrics}: the registry in Prometheus text format (404 when it is not a
 *       Prometheus registry).
 * </ul>
 *
 * Anything else is 404, any method but GET and HEAD 405. The readiness supplier is called on this
 * verticle's event loop, so it must not block (read a volatile).
 */
public final class HealthVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(HealthVerticle.class);

  private final String host;
  private final int port;
  private final Supplier<Readiness> readiness;
  private final MeterRegistry registry;
  private HttpServer server;

  /**
   * @param host the address to bind
   * @param port the port (0 = any free port; see {@link #actualPort()})
   * @param readiness what {@code /health/ready} reports
   * @param registry what {@code /metrics} serves
   */
  public HealthVerticle(
      String host, int port, Supplier<Readiness> readiness, MeterRegistry registry) {
    this.host = host;
    this.port = port;
    this.readiness = readiness;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    server = vertx.createHttpServer().requestHandler(this::handle);
    return server
        .listen(port, host)
        .onSuccess(s -> LOG.info("health and metrics on http://{}:{}", host, s.actualPort()));
  }

  /** The port actually bound. */
  public int actualPort() {
    return server.actualPort();
  }

  private void handle(HttpServerRequest request) {
    if (request.method() != HttpMethod.GET && request.method() != HttpMethod.HEAD) {
      json(request, 405, new JsonObject().put("error", "only GET"));
      return;
    }
    switch (request.path()) {
      case "/health/live" -> json(request, 200, new JsonObject().put("status", "UP"));
      case "/health/ready" -> {
        Readiness r = readiness.get();
        json(
            request,
            r.ready() ? 200 : 503,
            new JsonObject().put("status", r.ready() ? "UP" : "DOWN").put("detail", r.detail()));
      }
      case "/metrics" -> {
        if (registry instanceof PrometheusMeterRegistry prometheus) {
          request
              .response()
              .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
              .end(prometheus.scrape());
        } else {
          json(request, 404, new JsonObject().put("error", "no Prometheus registry configured"));
        }
      }
      default -> json(request, 404, new JsonObject().put("error", "not found: " + request.path()));
    }
  }

  private static void json(HttpServerRequest request, int status, JsonObject body) {
    request
        .response()
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .end(body.encode());
  }
}
