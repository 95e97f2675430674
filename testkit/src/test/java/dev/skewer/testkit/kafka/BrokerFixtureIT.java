package dev.skewer.testkit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.TopicProvisioner;
import dev.skewer.testkit.job.JobYaml;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class BrokerFixtureIT {

  @RegisterExtension static final BrokerFixture broker = BrokerFixture.perClass();

  @Test
  void shouldProvisionEveryTopicOfTheJobWithItsPartitions() throws Exception {
    // when
    JobSpec job = broker.provision(JobYaml.named("fixture").eventsPartitions(3));

    // then
    assertThat(broker.admin().listTopics().names().get())
        .contains(
            "fixture.events", "fixture.partials", "fixture.results", "fixture.late", "fixture.dlq");
    assertThat(
            TopicProvisioner.partitionCount(
                broker.settings(), job.topics().events(), Duration.ofSeconds(30)))
        .isEqualTo(3);
    assertThat(
            TopicProvisioner.partitionCount(
                broker.settings(), job.topics().partials(), Duration.ofSeconds(30)))
        .isEqualTo(2);
    assertThat(broker.provision(job)).as("provisioning again changes nothing").isEqualTo(job);
  }

  @Test
  void shouldRefuseTheBrokerOnceAFixtureOfItsOwnIsClosed() {
    BrokerFixture own = BrokerFixture.start();
    String bootstrap = own.bootstrapServers();
    assertThat(bootstrap).isNotEqualTo(broker.bootstrapServers());

    own.close();
    own.close();

    assertThatThrownBy(own::kafka)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }
}
