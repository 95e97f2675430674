package dev.skewer.launcher.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.core.net.FreePorts;
import dev.skewer.launcher.verify.ResultRecord;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import dev.skewer.testkit.kafka.TopicReader;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The README's "Running a cluster" recipe, command by command, each {@code ./skewer} line run as
 * its own process on the product jar ({@code target/skewer.jar}, built before this test): two
 * nodes, a coordinator and the load generator. The commands are read from README.md itself; only
 * the ports (free ones instead of 9092, 5701-5703, 8080-8082) and the number of events (20,000
 * instead of 300,000, to keep the build short) are changed; {@code ./skewer broker} is the same
 * embedded broker started in this JVM. Every event sent must end up counted in a result, in the
 * late topic or in the DLQ, and the top-K endpoint the recipe curls must answer.
 */
class RunningClusterRecipeIT {

  private static final Path ROOT = Paths.get("..").toAbsolutePath().normalize();
  private static final Path JAR = Paths.get("target", "skewer.jar").toAbsolutePath();
  private static final Path LOGS = Paths.get("target", "recipe-it").toAbsolutePath();
  private static final String EVENTS = "20000";

  /** The {@code ./skewer ...} commands of the README's first bash block of the recipe section. */
  static List<List<String>> recipe() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    int section = readme.indexOf("## Running a cluster");
    assertThat(section).as("README section").isNotNegative();
    int start = readme.indexOf("```bash", section) + "```bash".length();
    int end = readme.indexOf("```", start);
    String block = readme.substring(start, end).replace("\\\n", " ");
    List<List<String>> commands = new ArrayList<>();
    for (String line : block.split("\n")) {
      String command = line.replaceAll("\\s+#.*$", "").trim();
      if (command.startsWith("./skewer ")) {
        commands.add(List.of(command.substring("./skewer ".length()).trim().split("\\s+")));
      }
    }
    return commands;
  }

  @Test
  void shouldRunTheReadmeRecipeAndCountEveryEvent() throws Exception {
    assertThat(JAR).as("the product jar, built by `package`").exists();
    Files.createDirectories(LOGS);
    List<List<String>> recipe = recipe();
    assertThat(recipe.stream().map(c -> c.get(0)))
        .containsExactly("broker", "node", "node", "coordinator", "loadgen");
    Map<String, String> ports = new HashMap<>();
    List<Process> running = new ArrayList<>();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      try {
        run(kafka, recipe, ports, running, http);
      } finally {
        // stop the processes before the broker they talk to
        for (Process p : running) {
          p.destroy(); // SIGTERM: a clean shutdown
        }
        for (Process p : running) {
          if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
          }
        }
      }
    }
  }

  private void run(
      EmbeddedKafka kafka,
      List<List<String>> recipe,
      Map<String, String> ports,
      List<Process> running,
      HttpClient http)
      throws Exception {
    ports.put(
        "9092", kafka.bootstrapServers().substring(kafka.bootstrapServers().lastIndexOf(':') + 1));
    for (String p : List.of("5701", "5702", "5703", "8080", "8081", "8082")) {
      ports.put(p, Integer.toString(FreePorts.next()));
    }
    List<Integer> healthPorts = new ArrayList<>();
    List<String> loadgen = null;
    for (List<String> command : recipe) {
      List<String> args = localize(command, ports);
      switch (args.get(0)) {
        case "broker" -> {} // the embedded broker above
        case "node", "coordinator" -> {
          running.add(launch(args, args.get(args.indexOf("--id") + 1)));
          healthPorts.add(Integer.parseInt(args.get(args.indexOf("--http-port") + 1)));
        }
        case "loadgen" -> loadgen = args;
        default -> throw new AssertionError("unexpected command " + args);
      }
    }
    // every node and the coordinator ready: partitions restored and consuming
    for (int port : healthPorts) {
      await()
          .atMost(Duration.ofSeconds(120))
          .until(
              () -> {
                assertAlive(running);
                return status(http, port, "/health/ready") == 200;
              });
    }

    Process load = launch(loadgen, "loadgen");
    assertThat(load.waitFor(3, TimeUnit.MINUTES)).as("loadgen finished").isTrue();
    String loadOut = Files.readString(LOGS.resolve("loadgen.log"), StandardCharsets.UTF_8);
    assertThat(load.exitValue()).as(loadOut).isZero();
    Matcher done = Pattern.compile("done: ([\\d,]+) sent").matcher(loadOut);
    assertThat(done.find()).as(loadOut).isTrue();
    long sent = Long.parseLong(done.group(1).replace(",", ""));
    assertThat(sent).isEqualTo(Long.parseLong(EVENTS));

    // every event in exactly one of: a result (latest revision), the late topic, the DLQ
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              assertAlive(running);
              long counted = counted(kafka, "skewer.results");
              long late =
                  TopicReader.readAll(
                          kafka.bootstrapServers(), "skewer.late", Duration.ofSeconds(10))
                      .size();
              long dlq =
                  TopicReader.readAll(
                          kafka.bootstrapServers(), "skewer.dlq", Duration.ofSeconds(10))
                      .size();
              assertThat(counted + late + dlq).isEqualTo(sent);
              assertThat(counted).isPositive();
            });

    // the recipe's curl
    int api = Integer.parseInt(ports.get("8080"));
    HttpResponse<String> top =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api + "/api/v1/topk?k=10"))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(top.statusCode()).as(top.body()).isEqualTo(200);
    assertThat(new JsonObject(top.body()).getJsonArray("keys")).isNotEmpty();
  }

  /** The command with the recipe's ports replaced and fewer events. */
  private static List<String> localize(List<String> command, Map<String, String> ports) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < command.size(); i++) {
      String arg = command.get(i);
      for (Map.Entry<String, String> p : ports.entrySet()) {
        arg = arg.replaceAll("(^|:)" + p.getKey() + "$", "$1" + p.getValue());
      }
      if (i > 0 && command.get(i - 1).equals("--events")) {
        arg = EVENTS;
      }
      out.add(arg);
    }
    return out;
  }

  private static Process launch(List<String> args, String name) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx384m");
    command.add("-XX:+UseSerialGC");
    command.add("-jar");
    command.add(JAR.toString());
    command.addAll(args);
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(ROOT.toFile()) // the recipe runs from the repository root
            .redirectErrorStream(true)
            .redirectOutput(LOGS.resolve(name + ".log").toFile());
    // the recipe's environment: none of the caller's SKEWER_* settings
    pb.environment().keySet().removeIf(k -> k.startsWith("SKEWER_") || k.equals("POD_IP"));
    return pb.start();
  }

  private static void assertAlive(List<Process> running) {
    for (Process p : running) {
      assertThat(p.isAlive()).as("a recipe process exited early; logs in " + LOGS).isTrue();
    }
  }

  private static int status(HttpClient http, int port, String path) {
    try {
      return http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static long counted(EmbeddedKafka kafka, String topic) {
    Map<String, ResultRecord> last = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r :
        TopicReader.readAll(kafka.bootstrapServers(), topic, Duration.ofSeconds(10))) {
      String key = new String(r.key(), StandardCharsets.UTF_8);
      ResultRecord rr = ResultRecord.parse(key, r.value(), "key", "value");
      ResultRecord held = last.get(key);
      if (held == null || rr.revision() > held.revision()) {
        last.put(key, rr);
      }
    }
    return last.values().stream().mapToLong(ResultRecord::count).sum();
  }
}
