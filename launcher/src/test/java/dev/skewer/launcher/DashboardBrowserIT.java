package dev.skewer.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.TumblingWindow;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.launcher.browser.HeadlessChromium;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.launcher.local.LocalCluster;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.reference.ExactWindow;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.testkit.kafka.BrokerFixture;
import dev.skewer.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The dashboard in a real browser against a running demo cluster (embedded broker, 2 nodes, 1
 * coordinator, the demo's live load): the page must show the cluster's real numbers — the latest
 * closed window's top 10 with the exact counts the load generator computed, the late and DLQ
 * totals, the members and the nodes. It saves a screenshot taken mid-run to {@code
 * target/dashboard.png} (and to {@code docs/dashboard.png} with {@code
 * -Dskewer.screenshot.docs=true}). Skipped, with a message, where no Chromium is installed.
 */
class DashboardBrowserIT {

  /** What the page shows, read from its DOM. */
  private static final String PAGE_STATE =
      """
      (() => {
        const rows = sel => [...document.querySelectorAll(sel + ' .row')];
        return {
          refreshes: Number(document.getElementById('updated').dataset.refreshes),
          topk: rows('#topk').map(r => [r.dataset.key, Number(r.dataset.count)]),
          topkWindow: document.getElementById('topk-window').textContent,
          nodes: rows('#nodes').map(r => r.dataset.node),
          late: document.getElementById('late-total').textContent,
          dlq: document.getElementById('dlq-total').textContent,
          members: document.getElementById('members-count').textContent,
          eventsRate: document.getElementById('events-rate').textContent,
          lateness: document.getElementById('lateness-text').textContent,
          hotKeys: document.querySelectorAll('#hotkeys tbody tr').length,
        };
      })()
      """;

  @Test
  void shouldShowTheClustersRealNumbers() throws Exception {
    Path chromium = HeadlessChromium.executable();
    String looked = System.getProperty("skewer.chromium", HeadlessChromium.DEFAULT_PATH);
    if (chromium == null) {
      System.err.println(
          "DashboardBrowserIT skipped: no Chromium at "
              + looked
              + " (apt-get install chromium, or -Dskewer.chromium=/path)");
    }
    Assumptions.assumeTrue(
        chromium != null, "no Chromium at " + looked + ": the browser test is skipped");

    try (BrokerFixture broker = BrokerFixture.start()) {
      JobSpec job = broker.provision(JobResources.load("demo.yaml"));
      KafkaSettings settings = broker.settings();
      try (LocalCluster cluster =
              LocalCluster.start(
                  job, settings, 2, 1, true, 0, new SimpleMeterRegistry(), Clock.systemUTC());
          HeadlessChromium browser = HeadlessChromium.start(chromium, 1400, 1700)) {
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.assignmentsSettled(4, 2));
        Duration size = ((TumblingWindow) job.window()).size();
        ExactReference reference =
            ExactReference.of(
                size,
                job.watermark().delay(),
                job.allowedLateness(),
                job.topics().eventsPartitions(),
                job.toSketchSpec());
        Duration lateBy =
            job.allowedLateness().plus(size).plus(job.watermark().delay()).plusSeconds(5);
        WorkloadSpec spec =
            WorkloadSpec.demo(0.2, Duration.ofSeconds(1), lateBy, 3).withEvents(3_000 * 30);
        AtomicReference<Exception> failure = new AtomicReference<>();
        Thread load;
        try (LoadProducer producer =
            LoadProducer.builder(broker.bootstrapServers(), job.topics().events())
                .job(job)
                .rate(3_000)
                .reference(reference)
                .build()) {
          load =
              new Thread(
                  () -> {
                    try {
                      producer.run(Workload.live(spec, Clock.systemUTC()));
                    } catch (Exception e) {
                      failure.set(e);
                    }
                  },
                  "dashboard-it-load");
          load.start();

          // while the load runs: the page fills in live; the screenshot for the README
          browser.navigate("http://127.0.0.1:" + cluster.httpPort() + "/");
          await()
              .atMost(Duration.ofSeconds(90))
              .pollInterval(Duration.ofSeconds(1))
              .untilAsserted(
                  () -> {
                    JsonObject page = state(browser);
                    assertThat(page.getInteger("refreshes")).isGreaterThanOrEqualTo(2);
                    assertThat(page.getJsonArray("topk")).hasSize(10);
                    assertThat(page.getJsonArray("nodes").stream().map(String::valueOf).toList())
                        .containsExactlyInAnyOrder("node-1", "node-2");
                    assertThat(page.getString("eventsRate")).isNotEqualTo("0").isNotEqualTo("–");
                  });
          byte[] png = browser.screenshot();
          Path target = Path.of("target", "dashboard.png");
          Files.createDirectories(target.getParent());
          Files.write(target, png);
          if (Boolean.getBoolean("skewer.screenshot.docs")) {
            Files.copy(
                target,
                Path.of("..", "docs", "dashboard.png"),
                StandardCopyOption.REPLACE_EXISTING);
          }
          assertThat(png.length).isGreaterThan(10_000);
          load.join();
        }
        assertThat(failure.get()).isNull();

        // once every window has closed: the page shows exactly the cluster's numbers
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofSeconds(2))
            .until(
                () ->
                    ResultCheck.check(
                            reference,
                            TopicReader.readAll(
                                broker.bootstrapServers(),
                                job.topics().results(),
                                Duration.ofSeconds(20)),
                            job.output().keyField(),
                            job.input().numericFields().get(0).name(),
                            false)
                        .ok());
        long newest =
            reference.windows().values().stream()
                .mapToLong(ExactWindow::windowStartMs)
                .max()
                .orElseThrow();
        List<ExactWindow> last = new ArrayList<>();
        for (ExactWindow w : reference.windows().values()) {
          if (w.windowStartMs() == newest) {
            last.add(w);
          }
        }
        last.sort(
            Comparator.comparingLong(ExactWindow::count)
                .reversed()
                .thenComparing(ExactWindow::key));
        JsonArray expectedTop = new JsonArray();
        for (ExactWindow w : last.subList(0, Math.min(10, last.size()))) {
          expectedTop.add(new JsonArray().add(w.key()).add(w.count()));
        }
        String late = String.format(Locale.US, "%,d", reference.late().size());
        String dlq = String.format(Locale.US, "%,d", reference.dlq().size());
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofSeconds(1))
            .untilAsserted(
                () -> {
                  JsonObject page = state(browser);
                  assertThat(page.getJsonArray("topk")).isEqualTo(expectedTop);
                  assertThat(page.getString("late")).isEqualTo(late);
                  assertThat(page.getString("dlq")).isEqualTo(dlq);
                  assertThat(page.getString("members")).isEqualTo("3");
                  assertThat(page.getString("lateness")).contains("late events");
                });
      }
    }
  }

  private static JsonObject state(HeadlessChromium browser) throws Exception {
    return (JsonObject) browser.evaluate(PAGE_STATE);
  }
}
