package dev.skewer.launcher.browser;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's Chromium, headless, driven over the Chrome DevTools Protocol from the JDK's own HTTP and
 * WebSocket clients: navigate, evaluate JavaScript, take a screenshot. Started with the flags that
 * work on a machine with no network but loopback, and a fresh profile directory.
 */
public final class HeadlessChromium implements AutoCloseable {

  /** Where Debian installs it; {@code -Dskewer.chromium=/path} overrides. */
  public static final String DEFAULT_PATH = "/usr/bin/chromium";

  private static final Pattern DEVTOOLS = Pattern.compile("DevTools listening on (ws://\\S+)");

  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final Map<Integer, CompletableFuture<JsonObject>> pending = new ConcurrentHashMap<>();
  private final AtomicInteger ids = new AtomicInteger();

  private HeadlessChromium(Process process, Path profile, WebSocket socket) {
    this.process = process;
    this.profile = profile;
    this.socket = socket;
  }

  /** The executable, or null when none is installed. */
  public static Path executable() {
    Path p = Path.of(System.getProperty("skewer.chromium", DEFAULT_PATH));
    return Files.isExecutable(p) ? p : null;
  }

  /** Starts a browser with one blank page of {@code width} × {@code height} CSS pixels. */
  public static HeadlessChromium start(Path executable, int width, int height) throws Exception {
    Path profile = Files.createTempDirectory("skewer-chromium-");
    List<String> command =
        List.of(
            executable.toString(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--user-data-dir=" + profile,
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            "--window-size=" + width + "," + height,
            "about:blank");
    Process process =
        new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    CompletableFuture<String> browserUrl = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader err =
                  new BufferedReader(
                      new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = err.readLine()) != null) {
                  Matcher m = DEVTOOLS.matcher(line);
                  if (m.find()) {
                    browserUrl.complete(m.group(1));
                  }
                }
              } catch (IOException ignored) {
                // the browser ended
              }
              browserUrl.completeExceptionally(
                  new IllegalStateException("chromium exited before DevTools listened"));
            },
            "chromium-stderr");
    reader.setDaemon(true);
    reader.start();
    try {
      URI browser = URI.create(browserUrl.get(60, TimeUnit.SECONDS));
      HttpClient http = HttpClient.newHttpClient();
      String list =
          http.send(
                  HttpRequest.newBuilder(
                          URI.create("http://" + browser.getAuthority() + "/json/list"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      String pageUrl = null;
      for (Object o : new JsonArray(list)) {
        JsonObject target = (JsonObject) o;
        if ("page".equals(target.getString("type"))) {
          pageUrl = target.getString("webSocketDebuggerUrl");
        }
      }
      if (pageUrl == null) {
        throw new IllegalStateException("no page target in " + list);
      }
      HeadlessChromium[] self = new HeadlessChromium[1];
      WebSocket socket =
          http.newWebSocketBuilder()
              .buildAsync(URI.create(pageUrl), new Listener(self))
              .get(30, TimeUnit.SECONDS);
      self[0] = new HeadlessChromium(process, profile, socket);
      return self[0];
    } catch (Exception e) {
      process.destroyForcibly();
      deleteRecursively(profile);
      throw e;
    }
  }

  /** Sends one DevTools command and waits for its result. */
  public JsonObject send(String method, JsonObject params) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonObject> answer = new CompletableFuture<>();
    pending.put(id, answer);
    socket
        .sendText(
            new JsonObject().put("id", id).put("method", method).put("params", params).encode(),
            true)
        .get(30, TimeUnit.SECONDS);
    JsonObject reply = answer.get(60, TimeUnit.SECONDS);
    if (reply.containsKey("error")) {
      throw new IllegalStateException(method + " failed: " + reply.getJsonObject("error"));
    }
    return reply.getJsonObject("result", new JsonObject());
  }

  /** Opens {@code url} in the page. */
  public void navigate(String url) throws Exception {
    send("Page.enable", new JsonObject());
    send("Page.navigate", new JsonObject().put("url", url));
  }

  /** Evaluates {@code expression} in the page; its value, which must be JSON-serialisable. */
  public Object evaluate(String expression) throws Exception {
    JsonObject result =
        send(
            "Runtime.evaluate",
            new JsonObject().put("expression", expression).put("returnByValue", true));
    if (result.containsKey("exceptionDetails")) {
      throw new IllegalStateException("script failed: " + result.getJsonObject("exceptionDetails"));
    }
    return result.getJsonObject("result").getValue("value");
  }

  /** A PNG of the whole page. */
  public byte[] screenshot() throws Exception {
    JsonObject shot =
        send(
            "Page.captureScreenshot",
            new JsonObject().put("format", "png").put("captureBeyondViewport", true));
    return Base64.getDecoder().decode(shot.getString("data"));
  }

  @Override
  public void close() {
    try {
      socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // the browser is killed below anyway
    }
    // the browser's helpers (renderer, network service) outlive its main process briefly, and
    // write to the profile meanwhile: stop them all before the profile is deleted
    List<ProcessHandle> helpers = process.descendants().toList();
    process.destroy();
    helpers.forEach(ProcessHandle::destroy);
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      for (ProcessHandle helper : helpers) {
        helper.onExit().get(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      helpers.forEach(ProcessHandle::destroyForcibly);
    }
    deleteRecursively(profile);
  }

  /** Deletes a temp directory; files that vanish or appear meanwhile are retried, never fatal. */
  private static void deleteRecursively(Path dir) {
    for (int attempt = 0; attempt < 5 && Files.exists(dir); attempt++) {
      try (var paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException | UncheckedIOException ignored) {
        // a file vanished during the walk: walk again
      }
    }
  }

  private static final class Listener implements WebSocket.Listener {
    private final HeadlessChromium[] self;
    private final StringBuilder partial = new StringBuilder();
    private final List<JsonObject> early = new ArrayList<>();

    Listener(HeadlessChromium[] self) {
      this.self = self;
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        JsonObject message = new JsonObject(partial.toString());
        partial.setLength(0);
        Integer id = message.getInteger("id");
        if (id != null && self[0] != null) {
          CompletableFuture<JsonObject> f = self[0].pending.remove(id);
          if (f != null) {
            f.complete(message);
          }
        } else if (id != null) {
          early.add(message);
        }
      }
      webSocket.request(1);
      return null;
    }
  }

  /** How long a page may take; for callers' waits. */
  public static Duration patience() {
    return Duration.ofSeconds(60);
  }
}
