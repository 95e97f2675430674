package dev.skewer.crossprocess;

import dev.skewer.loadgen.workload.GeneratedEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * A side-output topic (late or DLQ) compared with the events the reference routes there.
 *
 * <p>Records are first made distinct by their source position (the {@code skewer.source.partition}
 * and {@code skewer.source.offset} headers): a node that replays a partition after a failover may
 * write a side-output record twice, which is harmless to a consumer that deduplicates on the source
 * position, so it is counted ({@link #duplicates}) rather than failed. The distinct records'
 * payloads must then equal the expected events' payloads as multisets.
 *
 * @param topic the topic
 * @param records records read
 * @param distinct records with distinct source positions
 * @param duplicates {@code records - distinct}
 * @param withoutSource records lacking the source headers (each is a problem)
 * @param missing expected payloads not found (at most 5 shown, {@link #missingCount} counts all)
 * @param missingCount how many expected payloads were not found
 * @param unexpected payloads found but not expected (at most 5 shown)
 * @param unexpectedCount how many payloads were found but not expected
 */
public record SideOutput(
    String topic,
    int records,
    int distinct,
    int duplicates,
    int withoutSource,
    List<String> missing,
    int missingCount,
    List<String> unexpected,
    int unexpectedCount) {

  static final String SOURCE_PARTITION = "skewer.source.partition";
  static final String SOURCE_OFFSET = "skewer.source.offset";
  private static final int SHOWN = 5;

  /** Compares {@code records} of {@code topic} with the {@code expected} events. */
  public static SideOutput compare(
      String topic, List<ConsumerRecord<byte[], byte[]>> records, List<GeneratedEvent> expected) {
    Set<String> positions = new HashSet<>();
    Map<String, Integer> found = new HashMap<>();
    int distinct = 0;
    int withoutSource = 0;
    for (ConsumerRecord<byte[], byte[]> r : records) {
      Header p = r.headers().lastHeader(SOURCE_PARTITION);
      Header o = r.headers().lastHeader(SOURCE_OFFSET);
      if (p == null || o == null) {
        withoutSource++;
      } else if (!positions.add(text(p.value()) + "@" + text(o.value()))) {
        continue;
      }
      distinct++;
      found.merge(text(r.value()), 1, Integer::sum);
    }
    List<String> missing = new ArrayList<>();
    int missingCount = 0;
    for (GeneratedEvent e : expected) {
      String json = text(e.json());
      Integer n = found.get(json);
      if (n == null || n == 0) {
        missingCount++;
        if (missing.size() < SHOWN) {
          missing.add(json);
        }
      } else {
        found.put(json, n - 1);
      }
    }
    List<String> unexpected = new ArrayList<>();
    int unexpectedCount = 0;
    for (Map.Entry<String, Integer> e : found.entrySet()) {
      if (e.getValue() > 0) {
        unexpectedCount += e.getValue();
        if (unexpected.size() < SHOWN) {
          unexpected.add(e.getKey());
        }
      }
    }
    return new SideOutput(
        topic,
        records.size(),
        distinct,
        records.size() - distinct,
        withoutSource,
        List.copyOf(missing),
        missingCount,
        List.copyOf(unexpected),
        unexpectedCount);
  }

  /** Exactly the expected events, each source position once (duplicates allowed). */
  public boolean ok() {
    return missingCount == 0 && unexpectedCount == 0 && withoutSource == 0;
  }

  /** One line for humans. */
  public String summary() {
    return String.format(
        "%s: %d records, %d distinct, %d duplicates%s%s%s",
        topic,
        records,
        distinct,
        duplicates,
        withoutSource > 0 ? ", " + withoutSource + " without source headers" : "",
        missingCount > 0 ? ", " + missingCount + " missing e.g. " + missing : "",
        unexpectedCount > 0 ? ", " + unexpectedCount + " unexpected e.g. " + unexpected : "");
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
