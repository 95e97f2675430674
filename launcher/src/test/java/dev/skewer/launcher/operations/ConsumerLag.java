package dev.skewer.launcher.operations;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer group's lag as Kafka tools compute it: per partition of a topic, end offset −
 * committed offset. Uses the plain Kafka Admin client (the group-wide {@code
 * listConsumerGroupOffsets}).
 *
 * @param committedPartitions partitions of the topic with a committed offset
 * @param partitions partitions of the topic
 * @param lag the sum over the partitions with a committed offset
 */
record ConsumerLag(int committedPartitions, int partitions, long lag) {

  static ConsumerLag of(Admin admin, String group, String topic) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS);
    int partitions =
        admin
            .describeTopics(List.of(topic))
            .allTopicNames()
            .get(30, TimeUnit.SECONDS)
            .get(topic)
            .partitions()
            .size();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    var ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
    long lag = 0;
    int withCommit = 0;
    for (var e : ends.entrySet()) {
      OffsetAndMetadata c = committed.get(e.getKey());
      if (c != null) {
        withCommit++;
        lag += e.getValue().offset() - c.offset();
      }
    }
    return new ConsumerLag(withCommit, partitions, lag);
  }

  /** Every partition has a committed offset and none lags. */
  boolean caughtUp() {
    return committedPartitions == partitions && lag == 0;
  }
}
