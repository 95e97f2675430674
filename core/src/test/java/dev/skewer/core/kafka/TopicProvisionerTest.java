package dev.skewer.core.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.job.TopicsSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicProvisionerTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private final FakeAdmin broker = new FakeAdmin();

  @Test
  void shouldCreateEveryTopicWithItsPartitionsAndACompactedResultsTopic() {
    TopicProvisioner.ensureTopics(broker.admin(), TopicsSpec.defaults("j"), TIMEOUT);

    assertThat(broker.partitions)
        .containsExactly(
            Map.entry("events", 4),
            Map.entry("skewer.j.partials", 2),
            Map.entry("skewer.results", 2),
            Map.entry("skewer.late", 4),
            Map.entry("skewer.dlq", 4));
    assertThat(broker.configs.get("skewer.results")).containsEntry("cleanup.policy", "compact");
    assertThat(broker.configs.get("events")).doesNotContainKey("cleanup.policy");
  }

  @Test
  void shouldCreateOnlyMissingTopicsAndLeaveExistingOnesAlone() {
    broker.partitions.put("events", 12); // differs from the job: a WARN, not a change
    broker.partitions.put("skewer.dlq", 4);

    TopicProvisioner.ensureTopics(broker.admin(), TopicsSpec.defaults("j"), TIMEOUT);

    assertThat(broker.createRequests)
        .containsExactly("skewer.j.partials", "skewer.results", "skewer.late");
    assertThat(broker.partitions.get("events")).isEqualTo(12);
  }

  @Test
  void shouldBeIdempotent() {
    TopicProvisioner.ensureTopics(broker.admin(), TopicsSpec.defaults("j"), TIMEOUT);
    broker.createRequests.clear();

    TopicProvisioner.ensureTopics(broker.admin(), TopicsSpec.defaults("j"), TIMEOUT);

    assertThat(broker.createRequests).isEmpty();
  }

  @Test
  void shouldTolerateAConcurrentCreator() {
    broker.raceCreated.add("skewer.j.partials");

    TopicProvisioner.ensureTopics(broker.admin(), TopicsSpec.defaults("j"), TIMEOUT);

    assertThat(broker.partitions)
        .containsKeys("events", "skewer.results", "skewer.late", "skewer.dlq");
  }

  @Test
  void shouldReturnOnlyOnceTheBrokerDescribesTheTopicsItCreated() {
    broker.describedUnknownAfterCreate = 3; // its metadata lags the controller's

    TopicProvisioner.ensureTopics(broker.admin(), TopicsSpec.defaults("j"), TIMEOUT);

    assertThat(broker.unknownFor.values()).containsOnly(0);
    assertThat(broker.describeRequests).isEqualTo(1 + 4); // the first look, then until known
  }

  @Test
  void shouldFailNamingTheTopicsTheBrokerNeverDescribes() {
    broker.describedUnknownAfterCreate = Integer.MAX_VALUE;

    assertThatThrownBy(
            () ->
                TopicProvisioner.ensureTopics(
                    broker.admin(), TopicsSpec.defaults("j"), Duration.ofMillis(200)))
        .hasMessageContaining("were created, but the broker still does not know them")
        .hasMessageContaining("skewer.j.partials");
  }

  @Test
  void shouldApplyExtraConfigsToEveryCreatedTopic() {
    TopicProvisioner.ensureTopics(
        broker.admin(), TopicsSpec.defaults("j"), TIMEOUT, Map.of("retention.ms", "-1"));

    assertThat(broker.configs.values())
        .allSatisfy(c -> assertThat(c).containsEntry("retention.ms", "-1"));
    assertThat(broker.configs.get("skewer.results")).containsEntry("cleanup.policy", "compact");
  }

  @Test
  void shouldNameEveryMissingTopicAndCreateNothingWhenOnlyRequired() {
    broker.partitions.put("events", 4);

    assertThatThrownBy(
            () ->
                TopicProvisioner.requireTopics(
                    broker.admin(),
                    List.of("events", "skewer.j.partials", "skewer.j.checkpoints"),
                    TIMEOUT,
                    "the job's topics"))
        .isInstanceOf(MissingTopicException.class)
        .hasMessageContaining("topics skewer.j.partials, skewer.j.checkpoints (the job's topics)")
        .hasMessageContaining("--no-provision");
    assertThat(broker.createRequests).isEmpty();

    broker.partitions.put("skewer.j.partials", 2);
    broker.partitions.put("skewer.j.checkpoints", 1);
    TopicProvisioner.requireTopics(
        broker.admin(),
        List.of("events", "skewer.j.partials", "skewer.j.checkpoints"),
        TIMEOUT,
        "the job's topics");
  }
}
