package dev.skewer.launcher.operations;

import dev.skewer.testkit.job.JobYaml;
import java.time.Duration;

/**
 * The operations tests' job: testkit's {@link JobYaml} with 2 s tumbling windows, watermark delay
 * 500 ms, idle after 2 s, finalized after 2 s of idleness, no allowed lateness, and the loader's
 * default partials topic ({@code skewer.<name>.partials}); each test adds what differs.
 */
final class ShortWindowJob {

  private ShortWindowJob() {}

  static JobYaml named(String name) {
    return JobYaml.named(name)
        .defaultPartialsTopic()
        .tumbling(Duration.ofSeconds(2))
        .delay(Duration.ofMillis(500))
        .idle(Duration.ofSeconds(2))
        .finalizeAfterIdle(Duration.ofSeconds(2))
        .allowedLateness(Duration.ZERO);
  }
}
