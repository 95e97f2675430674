/**
 * The binary messages of the partials topic, stage 1 → stage 2: {@link
 * dev.skewer.core.wire.Partial} (one source partition's aggregate of one key and slice) and {@link
 * dev.skewer.core.wire.Watermark} (one source partition's event-time progress). {@link
 * dev.skewer.core.wire.WireCodec} is the only way on and off the wire; decoding checks every length
 * against the bytes that remain before allocating and throws only {@link
 * dev.skewer.core.wire.WireFormatException}.
 *
 * <p>Layout, format version 3; integers are big-endian, strings UTF-8, no padding, no trailing
 * bytes. Any change to this table bumps the version byte. Version 3 added the sequence number (a
 * lost message is noticed), the Partial's first window end (hopping lateness per window) and the
 * Watermark's close time (end-of-input closing that does not make later events late). Readers still
 * accept version 2 (seq -1, first window end = slice end, close = watermark) and version 1 Partials
 * (tumbling, extent = the whole slice, no dimensions).
 *
 * <pre>
 * common header
 * | offset | size | field                                              |
 * |--------|------|----------------------------------------------------|
 * | 0      | 1    | format version = 3 (1 and 2 still read)            |
 * | 1      | 1    | type tag: 1 = Partial, 2 = Watermark               |
 *
 * Partial (tag 1), 96 + DL + K + A bytes
 * | 2      | 4    | sourcePartition (int32, &gt;= 0)                      |
 * | 6      | 8    | epoch (int64, &gt;= 0)                                |
 * | 14     | 8    | seq (int64, &gt;= -1)                                 |
 * | 22     | 8    | version (int64, &gt;= 0)                              |
 * | 30     | 8    | sliceStartMs: slice start (int64)                  |
 * | 38     | 8    | sliceEndMs: slice end (int64, &gt; sliceStartMs)      |
 * | 46     | 8    | firstWindowEndMs (int64, &gt;= sliceEndMs)            |
 * | 54     | 8    | firstEventMs (int64, in [start, lastEventMs])      |
 * | 62     | 8    | lastEventMs (int64, &lt; sliceEndMs)                  |
 * | 70     | 1    | shape: 0 tumbling, 1 hopping, 2 session            |
 * | 71     | 8    | hopping: sizeMs; session: gapMs; tumbling: 0       |
 * | 79     | 8    | hopping: hopMs; otherwise 0                        |
 * | 87     | 1    | D = dimension count (uint8)                        |
 * | 88     | DL   | D times: length (int32, -1 = absent, 0..65536),    |
 * |        |      |          value, UTF-8                              |
 * | 88+DL  | 4    | K = key length in bytes (int32, 1..65536)          |
 * | 92+DL  | K    | key, UTF-8                                         |
 * | 92+DL+K| 4    | A = aggregate length in bytes (int32, &gt;= 0)        |
 * | 96+DL+K| A    | aggregate: AggregateCodec bytes, opaque here       |
 *
 * Watermark (tag 2), 39 bytes
 * | 2      | 4    | sourcePartition (int32, &gt;= 0)                      |
 * | 6      | 8    | epoch (int64, &gt;= 0)                                |
 * | 14     | 8    | seq (int64, &gt;= -1)                                 |
 * | 22     | 8    | watermarkMs (int64)                                |
 * | 30     | 8    | closeMs (int64, &gt;= watermarkMs)                    |
 * | 38     | 1    | flags: bit 0 = idle, bit 1 = finalized (end of input; only with bit 0); other bits 0 |
 *
 * Format 2: Partial without seq (offset 14) and firstWindowEndMs (offset 46), 80 + DL + K + A
 * bytes; Watermark without seq and closeMs, 23 bytes. Format 1: Partial offsets 2..37 of format
 * 2, then K (int32), key, A (int32), aggregate.
 * </pre>
 */
package dev.skewer.core.wire;
