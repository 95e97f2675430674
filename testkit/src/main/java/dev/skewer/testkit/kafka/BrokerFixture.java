package dev.skewer.testkit.kafka;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.TopicProvisioner;
import dev.skewer.testkit.job.JobYaml;
import java.time.Duration;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link EmbeddedKafka} broker for a test class, with the job topics provisioned as a Skewer
 * process would create them.
 *
 * <p>As a JUnit 5 extension, one broker per test class, started before the first test and stopped
 * after the last:
 *
 * <pre>{@code
 * @RegisterExtension static final BrokerFixture broker = BrokerFixture.perClass();
 *
 * JobSpec job = broker.provision(JobYaml.named("e2e").allowedLateness(Duration.ZERO));
 * LocalCluster.start(job, broker.settings(), ...);
 * }</pre>
 *
 * <p>Or for one test, closed by the test: {@code try (BrokerFixture broker = BrokerFixture.start())
 * {...}}.
 *
 * <p>Thread-safe; {@link #close} is idempotent. A nested class's callbacks neither start a second
 * broker nor stop the outer class's.
 */
public final class BrokerFixture implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

  /** How long {@link #provision} waits for the topics to exist. */
  public static final Duration PROVISION_TIMEOUT = Duration.ofSeconds(30);

  private EmbeddedKafka kafka;
  private Admin admin;
  private String startedBy;

  private BrokerFixture() {}

  /** A fixture whose broker the extension callbacks start and stop (register it as a field). */
  public static BrokerFixture perClass() {
    return new BrokerFixture();
  }

  /** A fixture with a running broker; the caller closes it. */
  public static BrokerFixture start() {
    BrokerFixture f = new BrokerFixture();
    f.kafka = EmbeddedKafka.start();
    return f;
  }

  @Override
  public synchronized void beforeAll(ExtensionContext context) {
    if (kafka == null) {
      kafka = EmbeddedKafka.start();
      startedBy = context.getUniqueId();
    }
  }

  @Override
  public synchronized void afterAll(ExtensionContext context) {
    if (context.getUniqueId().equals(startedBy)) {
      close();
    }
  }

  /** The running broker. */
  public synchronized EmbeddedKafka kafka() {
    if (kafka == null) {
      throw new IllegalStateException(
          "no broker: not started (register perClass() with @RegisterExtension, or use start())"
              + " or already closed");
    }
    return kafka;
  }

  /** {@code host:port} of the broker. */
  public String bootstrapServers() {
    return kafka().bootstrapServers();
  }

  /** Client settings for the broker, as a Skewer process gets them. */
  public KafkaSettings settings() {
    return KafkaSettings.of(bootstrapServers());
  }

  /**
   * An Admin client for the broker with the {@link #settings()}' admin configuration, shared by the
   * test class and closed by {@link #close}; callers must not close it.
   */
  public synchronized Admin admin() {
    if (admin == null) {
      admin = Admin.create(settings().adminConfig());
    }
    return admin;
  }

  /**
   * Creates the job's topics that do not exist yet ({@link TopicProvisioner#ensureTopics}, as a
   * process does at start) and returns the job.
   */
  public JobSpec provision(JobSpec job) {
    TopicProvisioner.ensureTopics(admin(), job.topics(), PROVISION_TIMEOUT);
    return job;
  }

  /** Loads the job ({@link JobYaml#spec()}) and {@link #provision(JobSpec) provisions} it. */
  public JobSpec provision(JobYaml job) {
    return provision(job.spec());
  }

  /** Closes the {@link #admin()} client and stops the broker (and deletes its data). */
  @Override
  public synchronized void close() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
      admin = null;
    }
    if (kafka != null) {
      kafka.close();
      kafka = null;
    }
  }
}
