package dev.skewer.model;

import dev.skewer.core.wire.WireCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The topics of one model history: an append-only log per partition, as a broker keeps them (what
 * the mock consumers read, what the mock producers append to, what the replay scans look up).
 * Thread-safe: one lock; {@link #awaitAppend} lets a polling consumer wait for the next append.
 */
public final class MemoryBroker {

  /** One stored record; {@code timestamp} is its create time. */
  public record Stored(
      String topic,
      int partition,
      long offset,
      long timestamp,
      byte[] key,
      byte[] value,
      Headers headers) {}

  private final Map<String, List<List<Stored>>> topics = new HashMap<>();
  private final List<String> trace; // null: not tracing
  private long appends;

  MemoryBroker(boolean trace) {
    this.trace = trace ? new ArrayList<>() : null;
  }

  /** Notes something that happened, in order with the appends, when tracing. */
  public synchronized void note(String what) {
    if (trace != null) {
      trace.add(what);
    }
  }

  /** What was traced (appends and notes, in order). */
  public synchronized List<String> trace() {
    return trace == null ? List.of() : List.copyOf(trace);
  }

  /** Creates {@code topic} with {@code partitions} partitions. */
  public synchronized void create(String topic, int partitions) {
    List<List<Stored>> parts = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      parts.add(new ArrayList<>());
    }
    if (topics.putIfAbsent(topic, parts) != null) {
      throw new IllegalStateException("topic " + topic + " exists");
    }
  }

  public synchronized int partitions(String topic) {
    return log(topic).size();
  }

  /** Appends a record and wakes waiting consumers. */
  public synchronized Stored append(
      String topic, int partition, long timestamp, byte[] key, byte[] value, Headers headers) {
    List<Stored> log = log(topic).get(partition);
    Stored s =
        new Stored(
            topic,
            partition,
            log.size(),
            timestamp,
            key,
            value,
            headers == null ? new RecordHeaders() : headers);
    log.add(s);
    appends++;
    if (trace != null && !topic.equals("events")) {
      trace.add(
          "["
              + Thread.currentThread().getName()
              + "] "
              + topic
              + "/"
              + partition
              + "@"
              + s.offset()
              + " "
              + describe(s));
    }
    notifyAll();
    return s;
  }

  private static String describe(Stored s) {
    StringBuilder sb = new StringBuilder();
    if (s.key() != null) {
      sb.append("key=").append(new String(s.key(), StandardCharsets.UTF_8));
    }
    for (Header h : s.headers()) {
      sb.append(' ')
          .append(h.key().replace("skewer.", ""))
          .append('=')
          .append(new String(h.value(), StandardCharsets.UTF_8));
    }
    if (s.topic().equals("partials")) {
      try {
        sb.append(' ').append(WireCodec.decode(s.value()));
      } catch (RuntimeException e) {
        sb.append(" undecodable");
      }
    } else if (s.topic().equals("results")) {
      sb.append(' ').append(new String(s.value(), StandardCharsets.UTF_8));
    }
    return sb.toString();
  }

  /** Up to {@code max} records of a partition from {@code fromOffset} on. */
  public synchronized List<Stored> read(String topic, int partition, long fromOffset, int max) {
    List<Stored> log = log(topic).get(partition);
    int from = (int) Math.max(0, fromOffset);
    int to = (int) Math.min(log.size(), (long) from + max);
    return from >= to ? List.of() : List.copyOf(log.subList(from, to));
  }

  /** The next offset of a partition (its length). */
  public synchronized long end(String topic, int partition) {
    return log(topic).get(partition).size();
  }

  /** Every record of a topic, partition by partition, in offset order. */
  public synchronized List<Stored> all(String topic) {
    List<Stored> out = new ArrayList<>();
    for (List<Stored> log : log(topic)) {
      out.addAll(log);
    }
    return out;
  }

  /**
   * The records of every partition of {@code topic} from the first one with a timestamp at or after
   * {@code sinceMs} (what {@code offsetsForTimes} then reading to the end returns).
   */
  public synchronized List<Stored> since(String topic, long sinceMs) {
    List<Stored> out = new ArrayList<>();
    for (List<Stored> log : log(topic)) {
      boolean started = false;
      for (Stored s : log) {
        started |= s.timestamp() >= sinceMs;
        if (started) {
          out.add(s);
        }
      }
    }
    return out;
  }

  /** Waits up to {@code maxMs} for an append (or a {@link #wake}). */
  public synchronized void awaitAppend(long seenAppends, long maxMs) throws InterruptedException {
    if (appends == seenAppends && maxMs > 0) {
      wait(maxMs);
    }
  }

  /** Appends so far (to pass to {@link #awaitAppend}). */
  public synchronized long appends() {
    return appends;
  }

  /** Wakes every waiting consumer. */
  public synchronized void wake() {
    notifyAll();
  }

  private List<List<Stored>> log(String topic) {
    List<List<Stored>> log = topics.get(topic);
    if (log == null) {
      throw new IllegalArgumentException("no topic " + topic);
    }
    return log;
  }
}
