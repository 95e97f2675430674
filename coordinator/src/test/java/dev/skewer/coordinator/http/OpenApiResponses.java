package dev.skewer.coordinator.http;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.validation.ResponseValidator;
import io.vertx.openapi.validation.ValidatableResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Checks HTTP responses against the OpenAPI document the coordinator serves ({@value
 * ApiVerticle#OPENAPI_RESOURCE}): status code, content type and body schema of the named operation.
 * Also used by the launcher's integration tests (test-jar).
 */
public final class OpenApiResponses implements AutoCloseable {

  private final Vertx vertx;
  private final ResponseValidator validator;
  private int checked;

  private OpenApiResponses(Vertx vertx, ResponseValidator validator) {
    this.vertx = vertx;
    this.validator = validator;
  }

  /** Loads the document from the classpath. */
  public static OpenApiResponses load() {
    Vertx vertx = Vertx.vertx();
    try (InputStream in = ApiVerticle.class.getResourceAsStream(ApiVerticle.OPENAPI_RESOURCE)) {
      JsonObject doc = new JsonObject(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      OpenAPIContract contract = OpenAPIContract.from(vertx, doc).await(30, TimeUnit.SECONDS);
      return new OpenApiResponses(vertx, ResponseValidator.create(vertx, contract));
    } catch (IOException e) {
      vertx.close();
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      vertx.close();
      throw new IllegalStateException("invalid OpenAPI document: " + e, e);
    }
  }

  /**
   * Fails with an {@link AssertionError} naming the operation, status and reason when the response
   * does not match the document.
   */
  public void check(String operationId, int status, String contentType, String body) {
    try {
      validator
          .validate(
              ValidatableResponse.create(status, Buffer.buffer(body), contentType), operationId)
          .await(30, TimeUnit.SECONDS);
      checked++;
    } catch (Exception e) {
      throw new AssertionError(
          "response of "
              + operationId
              + " (status "
              + status
              + ") does not match the OpenAPI document: "
              + e
              + "\nbody: "
              + (body.length() > 2000 ? body.substring(0, 2000) + "..." : body),
          e);
    }
  }

  /** Responses checked so far. */
  public int checked() {
    return checked;
  }

  @Override
  public void close() {
    vertx.close();
  }
}
