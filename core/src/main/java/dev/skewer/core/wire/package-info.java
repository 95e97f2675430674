/**
 * The binary messages of the partials topic, stage 1 → stage 2: {@link
 * dev.skewer.core.wire.Partial} (one source partition's aggregate of one key and slice) and {@link
 * dev.skewer.core.wire.Watermark} (one source partition's event-time progress). {@link
 * dev.skewer.core.wire.WireCodec} is the only way on and off the wire; decoding checks every length
 * against the bytes that remain before allocating and throws only {@link
 * dev.skewer.core.wire.WireFormatException}.
 *
 * <p>Layout, format version 2; integers are big-endian, strings UTF-8, no padding, no trailing
 * bytes. Any change to this table bumps the version byte. Version 2 added the event extent, the
 * window shape and the dimensions to the Partial (hopping and session windows); readers still
 * accept version 1 Partials (tumbling, extent = the whole slice, no dimensions) and Watermarks,
 * whose layout did not change.
 *
 * <pre>
 * common header
 * | offset | size | field                                              |
 * |--------|------|----------------------------------------------------|
 * | 0      | 1    | format version = 2 (1 still read)                  |
 * | 1      | 1    | type tag: 1 = Partial, 2 = Watermark               |
 *
 * Partial (tag 1), 80 + DL + K + A bytes
 * | 2      | 4    | sourcePartition (int32, &gt;= 0)                      |
 * | 6      | 8    | epoch (int64, &gt;= 0)                                |
 * | 14     | 8    | version (int64, &gt;= 0)                              |
 * | 22     | 8    | sliceStartMs: slice start (int64)                 |
 * | 30     | 8    | sliceEndMs: slice end (int64, &gt; sliceStartMs)    |
 * | 38     | 8    | firstEventMs (int64, in [start, lastEventMs])      |
 * | 46     | 8    | lastEventMs (int64, &lt; sliceEndMs)                 |
 * | 54     | 1    | shape: 0 tumbling, 1 hopping, 2 session            |
 * | 55     | 8    | hopping: sizeMs; session: gapMs; tumbling: 0       |
 * | 63     | 8    | hopping: hopMs; otherwise 0                        |
 * | 71     | 1    | D = dimension count (uint8)                        |
 * | 72     | DL   | D times: length (int32, -1 = absent, 0..65536),    |
 * |        |      |          value, UTF-8                              |
 * | 72+DL  | 4    | K = key length in bytes (int32, 1..65536)          |
 * | 76+DL  | K    | key, UTF-8                                         |
 * | 76+DL+K| 4    | A = aggregate length in bytes (int32, &gt;= 0)        |
 * | 80+DL+K| A    | aggregate: AggregateCodec bytes, opaque here       |
 *
 * Partial, format version 1, 46 + K + A bytes: offsets 2..37 as above, then K (int32), key,
 * A (int32), aggregate.
 *
 * Watermark (tag 2), 23 bytes
 * | 2      | 4    | sourcePartition (int32, &gt;= 0)                      |
 * | 6      | 8    | epoch (int64, &gt;= 0)                                |
 * | 14     | 8    | watermarkMs (int64)                                |
 * | 22     | 1    | flags: bit 0 = idle; other bits 0                  |
 * </pre>
 */
package dev.skewer.core.wire;
