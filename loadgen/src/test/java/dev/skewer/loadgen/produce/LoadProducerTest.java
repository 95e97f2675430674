package dev.skewer.loadgen.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class LoadProducerTest {

  @Test
  void shouldCloseItsProducerWhenTheTopicCannotBeLookedUp() {
    // given a broker address nothing listens on, and a client id of this test's own
    String clientId = "load-producer-test-" + System.nanoTime();
    var builder =
        LoadProducer.builder("127.0.0.1:1", "events")
            .salting(false)
            .producerConfig(ProducerConfig.MAX_BLOCK_MS_CONFIG, 300)
            .producerConfig(ProducerConfig.CLIENT_ID_CONFIG, clientId);

    // when the partition count cannot be looked up, the error goes up
    assertThatThrownBy(builder::build).isInstanceOf(TimeoutException.class);

    // then the producer is closed: its network thread (which would go on retrying the broker
    // and logging after the caller reported the error) is gone
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.isAlive() && t.getName().contains(clientId));
  }
}
