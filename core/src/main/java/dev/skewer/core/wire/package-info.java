/**
 * The binary messages of the partials topic, stage 1 → stage 2: {@link dev.skewer.core.wire.Partial}
 * (one source partition's aggregate of one key and slice) and
 * {@link dev.skewer.core.wire.Watermark} (one source partition's event-time progress).
 * {@link dev.skewer.core.wire.WireCodec} is the only way on and off the wire; decoding checks
 * every length against the bytes that remain before allocating and throws only
 * {@link dev.skewer.core.wire.WireFormatException}.
 *
 * <p>Layout, format version 1; integers are big-endian, strings UTF-8, no padding, no trailing
 * bytes. Any change to this table bumps the version byte.
 *
 * <pre>
 * common header
 * | offset | size | field                                              |
 * |--------|------|----------------------------------------------------|
 * | 0      | 1    | format version = 1                                 |
 * | 1      | 1    | type tag: 1 = Partial, 2 = Watermark               |
 *
 * Partial (tag 1), 46 + K + A bytes
 * | 2      | 4    | sourcePartition (int32, &gt;= 0)                      |
 * | 6      | 8    | epoch (int64, &gt;= 0)                                |
 * | 14     | 8    | version (int64, &gt;= 0)                              |
 * | 22     | 8    | windowStartMs (int64)                              |
 * | 30     | 8    | windowEndMs (int64, &gt; windowStartMs)               |
 * | 38     | 4    | K = key length in bytes (int32, 1..65536)          |
 * | 42     | K    | key, UTF-8                                         |
 * | 42+K   | 4    | A = aggregate length in bytes (int32, &gt;= 0)        |
 * | 46+K   | A    | aggregate: AggregateCodec bytes, opaque here       |
 *
 * Watermark (tag 2), 23 bytes
 * | 2      | 4    | sourcePartition (int32, &gt;= 0)                      |
 * | 6      | 8    | epoch (int64, &gt;= 0)                                |
 * | 14     | 8    | watermarkMs (int64)                                |
 * | 22     | 1    | flags: bit 0 = idle; other bits 0                  |
 * </pre>
 */
package dev.skewer.core.wire;
