package dev.skewer.core.kafka;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.internals.KafkaFutureImpl;

/**
 * An in-memory broker's topic table behind the two Admin calls the provisioner makes
 * (describeTopics, createTopics); every other Admin method throws. A fake, not a mock: it keeps
 * state and answers like a broker would.
 */
final class FakeAdmin {
  final Map<String, Integer> partitions = new LinkedHashMap<>();
  final Map<String, Map<String, String>> configs = new LinkedHashMap<>();
  final List<String> createRequests = new ArrayList<>();

  /** Topics that "another process" creates between our describe and our create. */
  final List<String> raceCreated = new ArrayList<>();

  /**
   * How many more times a topic created here is described as unknown (the broker's metadata follows
   * the controller's a little later).
   */
  int describedUnknownAfterCreate;

  final Map<String, Integer> unknownFor = new LinkedHashMap<>();
  int describeRequests;

  Admin admin() {
    return (Admin)
        Proxy.newProxyInstance(
            Admin.class.getClassLoader(),
            new Class<?>[] {Admin.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "describeTopics":
                  return describe(args[0]);
                case "createTopics":
                  @SuppressWarnings("unchecked")
                  Collection<NewTopic> topics = (Collection<NewTopic>) args[0];
                  return create(topics);
                case "close":
                  return null;
                default:
                  throw new UnsupportedOperationException(method.getName());
              }
            });
  }

  @SuppressWarnings("unchecked")
  private DescribeTopicsResult describe(Object names) {
    Collection<String> topicNames =
        names instanceof TopicCollection.TopicNameCollection
            ? ((TopicCollection.TopicNameCollection) names).topicNames()
            : (Collection<String>) names;
    describeRequests++;
    Map<String, KafkaFuture<TopicDescription>> futures =
        topicNames.stream()
            .collect(
                Collectors.toMap(
                    Function.identity(),
                    n -> {
                      Integer p = partitions.get(n);
                      int lag = unknownFor.getOrDefault(n, 0);
                      if (lag > 0) {
                        unknownFor.put(n, lag - 1);
                        p = null;
                      }
                      if (p == null) {
                        return failed(new UnknownTopicOrPartitionException("no topic " + n));
                      }
                      List<TopicPartitionInfo> infos =
                          IntStream.range(0, p)
                              .mapToObj(i -> new TopicPartitionInfo(i, null, List.of(), List.of()))
                              .collect(Collectors.toList());
                      return KafkaFuture.completedFuture(new TopicDescription(n, false, infos));
                    }));
    return new DescribeTopicsResult(null, futures) {};
  }

  private CreateTopicsResult create(Collection<NewTopic> topics) {
    Map<String, KafkaFuture<CreateTopicsResult.TopicMetadataAndConfig>> futures =
        new LinkedHashMap<>();
    for (NewTopic t : topics) {
      createRequests.add(t.name());
      if (raceCreated.contains(t.name()) || partitions.containsKey(t.name())) {
        partitions.putIfAbsent(t.name(), t.numPartitions()); // the other process's
        futures.put(t.name(), failed(new TopicExistsException(t.name())));
      } else {
        partitions.put(t.name(), t.numPartitions());
        configs.put(t.name(), t.configs());
        unknownFor.put(t.name(), describedUnknownAfterCreate);
        futures.put(t.name(), KafkaFuture.completedFuture(null));
      }
    }
    return new CreateTopicsResult(futures) {};
  }

  private static <T> KafkaFuture<T> failed(Throwable t) {
    KafkaFutureImpl<T> f = new KafkaFutureImpl<>();
    f.completeExceptionally(t);
    return f;
  }
}
