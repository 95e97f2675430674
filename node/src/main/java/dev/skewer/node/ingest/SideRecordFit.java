package dev.skewer.node.ingest;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;

/**
 * Makes a side record (DLQ or late) fit what its topic and the producer accept, so that a record
 * the input topic took can always be routed: a record larger than {@code limitBytes} keeps the
 * first bytes of its value that fit (then of its key, if the key alone is too large) and says so in
 * headers — {@value #TRUNCATED_HEADER} ({@code value} or {@code key,value}), {@value
 * #ORIGINAL_VALUE_BYTES_HEADER} and, for a cut key, {@value #ORIGINAL_KEY_BYTES_HEADER}. The source
 * headers (topic, partition, offset) are always kept: the full record stays readable at its source
 * offset for as long as the input topic retains it.
 *
 * <p>The size is Kafka's own upper bound of a one-record batch ({@link
 * AbstractRecords#estimateSizeInBytesUpperBound}); {@value #MARGIN_BYTES} bytes and 1 % are kept
 * free for compression overhead on incompressible data.
 */
final class SideRecordFit {

  static final String TRUNCATED_HEADER = "skewer.truncated";
  static final String ORIGINAL_VALUE_BYTES_HEADER = "skewer.original.value.bytes";
  static final String ORIGINAL_KEY_BYTES_HEADER = "skewer.original.key.bytes";
  static final int MARGIN_BYTES = 1024;

  private static final byte[] EMPTY = new byte[0];

  private SideRecordFit() {}

  /** The bytes a record may take under {@code limitBytes}, after the safety margin. */
  static int budget(int limitBytes) {
    return Math.max(0, limitBytes - MARGIN_BYTES - limitBytes / 100);
  }

  /** Kafka's upper bound of the record's size in a batch of its own. */
  static int sizeOf(byte[] key, byte[] value, Header[] headers) {
    return AbstractRecords.estimateSizeInBytesUpperBound(
        RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE, key, value, headers);
  }

  /**
   * {@code record} itself when it fits {@code limitBytes}, else a copy cut to fit, with the
   * truncation headers added.
   */
  static ProducerRecord<byte[], byte[]> fit(ProducerRecord<byte[], byte[]> record, int limitBytes) {
    byte[] key = record.key();
    byte[] value = record.value() == null ? EMPTY : record.value();
    int budget = budget(limitBytes);
    if (sizeOf(key, value, record.headers().toArray()) <= budget) {
      return record;
    }
    RecordHeaders headers = new RecordHeaders(record.headers().toArray());
    headers.add(ORIGINAL_VALUE_BYTES_HEADER, ascii(Integer.toString(value.length)));
    boolean keyCut = key != null && sizeOf(key, EMPTY, withTruncated(headers, "value")) > budget;
    if (keyCut) {
      headers.add(ORIGINAL_KEY_BYTES_HEADER, ascii(Integer.toString(key.length)));
    }
    headers.add(TRUNCATED_HEADER, ascii(keyCut ? "key,value" : "value"));
    Header[] all = headers.toArray();
    if (keyCut) {
      value = EMPTY;
      key =
          Arrays.copyOf(key, Math.min(key.length, Math.max(0, budget - sizeOf(EMPTY, EMPTY, all))));
      int over;
      while ((over = sizeOf(key, value, all) - budget) > 0 && key.length > 0) {
        key = Arrays.copyOf(key, Math.max(0, key.length - over)); // the length varints grew
      }
    } else {
      value =
          Arrays.copyOf(
              value, Math.min(value.length, Math.max(0, budget - sizeOf(key, EMPTY, all))));
      int over;
      while ((over = sizeOf(key, value, all) - budget) > 0 && value.length > 0) {
        value = Arrays.copyOf(value, Math.max(0, value.length - over)); // the length varints grew
      }
    }
    return new ProducerRecord<>(
        record.topic(), record.partition(), record.timestamp(), key, value, headers);
  }

  private static Header[] withTruncated(RecordHeaders headers, String what) {
    RecordHeaders copy = new RecordHeaders(headers.toArray());
    copy.add(TRUNCATED_HEADER, ascii(what));
    return copy.toArray();
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
