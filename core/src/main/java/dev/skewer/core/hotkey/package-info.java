/**
 * Hot keys on the producer side: the immutable {@link dev.skewer.core.hotkey.HotKeyTable} (key →
 * fanout, since), its records on the job's compacted topic {@code skewer.<job>.hotkeys} ({@link
 * dev.skewer.core.hotkey.HotKeyCodec}), a non-blocking follower of that topic, and the Kafka {@link
 * dev.skewer.core.hotkey.SaltingPartitioner} / {@link dev.skewer.core.hotkey.SaltingKeySerializer}
 * pair that spreads a hot key's records over {@code key#0 .. key#(f-1)} on f distinct partitions
 * ({@link dev.skewer.core.hotkey.SaltRouter}).
 *
 * <p>Record layout of the hot-key topic (version 1). Record key: the bare key, UTF-8, non-empty.
 * Record value (13 bytes, big-endian), or null (a tombstone: the key is back to fanout 1):
 *
 * <table>
 *   <caption>hot-key record value, version 1</caption>
 *   <tr><th>offset</th><th>bytes</th><th>field</th><th>constraint</th></tr>
 *   <tr><td>0</td><td>1</td><td>version</td><td>= 1</td></tr>
 *   <tr><td>1</td><td>4</td><td>fanout (int32)</td><td>2 ..= 65,536</td></tr>
 *   <tr><td>5</td><td>8</td><td>sinceMs (int64, epoch ms)</td><td>&gt;= 0</td></tr>
 * </table>
 *
 * A change to this table bumps the version byte.
 */
package dev.skewer.core.hotkey;
