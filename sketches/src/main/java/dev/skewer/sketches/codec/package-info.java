/**
 * Internal: the bounded byte reader and writer behind {@link dev.skewer.sketches.AggregateCodec},
 * and the reference for its byte layout. Every read checks the bytes that remain; every declared
 * count is checked against them before anything is allocated; any failure is a {@link
 * dev.skewer.sketches.CodecException}. Changing this table bumps the version byte.
 *
 * <h2>Format version 2 (big-endian; varint = unsigned LEB128, minimal, at most 9 bytes)</h2>
 *
 * <p>Version 2 makes an encoding a pure reading of the state, so that a decoded aggregate continues
 * exactly as the original: quantile mode 2 (a t-digest's centroids plus the raw values that arrived
 * since they were compressed, so encoding never compresses a digest) and the heavy-hitter
 * candidates' cached estimates (they decide evictions). Version 1 encodings are still read (their
 * candidates get current estimates).
 *
 * <table>
 *   <caption>Aggregate</caption>
 *   <tr><th>field</th><th>type</th><th>checks on decode</th></tr>
 *   <tr><td>format version</td><td>u8</td><td>2 (1 still read)</td></tr>
 *   <tr><td>numericFields</td><td>u8</td><td>0..64</td></tr>
 *   <tr><td>flags</td><td>u8</td><td>bit0 distinct, bit1 frequencies, bit2 quantiles; others 0</td></tr>
 *   <tr><td>hllPrecision p, hllSparsePrecision p'</td><td>u8, u8</td><td>4 &le; p &le; 18, p &le; p' &le; 25</td></tr>
 *   <tr><td>cmsEpsilon, cmsDelta</td><td>f64, f64</td><td>[1e-5, 1), [1e-9, 1)</td></tr>
 *   <tr><td>heavyHitterCapacity</td><td>varint</td><td>1..10,000</td></tr>
 *   <tr><td>tdigestCompression</td><td>f64</td><td>[10, 1000]</td></tr>
 *   <tr><td>count</td><td>varint</td><td>&ge; 0</td></tr>
 *   <tr><td>per numeric field: valueCount</td><td>varint</td><td>&le; count</td></tr>
 *   <tr><td>&nbsp;&nbsp;if valueCount &gt; 0: sum, min, max</td><td>f64 &times; 3 (raw bits)</td><td>min, max finite, min &le; max</td></tr>
 *   <tr><td>[distinct] HLL length L, HLL bytes</td><td>varint, L bytes</td><td>see below</td></tr>
 *   <tr><td>[frequencies] frequency section</td><td></td><td>see below</td></tr>
 *   <tr><td>[quantiles] quantile section</td><td></td><td>see below</td></tr>
 *   <tr><td>(end)</td><td></td><td>no trailing bytes</td></tr>
 * </table>
 *
 * <table>
 *   <caption>HLL bytes (stream-lib HyperLogLogPlus.getBytes(), validated before the library reads them)</caption>
 *   <tr><th>field</th><th>type</th><th>checks</th></tr>
 *   <tr><td>version header</td><td>i32</td><td>== -2</td></tr>
 *   <tr><td>p, p'</td><td>varint32 &times; 2</td><td>equal to the spec's</td></tr>
 *   <tr><td>format</td><td>varint32</td><td>0 dense, 1 sparse</td></tr>
 *   <tr><td>dense: register byte count R, registers</td><td>varint32, R bytes</td><td>R == 4 &times; stream-lib's word count for 2^p five-bit registers (10,924 at p 14)</td></tr>
 *   <tr><td>sparse: entry count n, n deltas</td><td>varint32, n &times; varint32</td><td>n &le; 0.75&middot;2^p and &le; bytes left; each entry a valid HLL++ sparse encoding; sparse indices strictly increasing</td></tr>
 * </table>
 *
 * <table>
 *   <caption>Frequency section</caption>
 *   <tr><th>field</th><th>type</th><th>checks</th></tr>
 *   <tr><td>mode</td><td>u8</td><td>0 exact, 1 sketch</td></tr>
 *   <tr><td>exact: n, then n &times; (item, item count)</td><td>varint, (varint length + UTF-8, varint)</td><td>n &le; capacity; items strictly increasing (String order), valid UTF-8; counts &ge; 1, total &le; count</td></tr>
 *   <tr><td>sketch: N</td><td>varint</td><td>capacity &lt; N &le; count</td></tr>
 *   <tr><td>&nbsp;&nbsp;CMS cells, row by row</td><td>depth &times; width varints (width &lceil;2/&epsilon;&rceil;, depth &lceil;log2 1/&delta;&rceil;)</td><td>depth&middot;width &le; bytes left before allocating; each row sums to N</td></tr>
 *   <tr><td>&nbsp;&nbsp;candidates: c, c &times; (item, cached estimate)</td><td>varint, c &times; (varint length + UTF-8, varint)</td><td>c == capacity; items strictly increasing; 1 &le; cached estimate &le; the CMS estimate (format 1: no estimate, the CMS estimate is taken)</td></tr>
 * </table>
 *
 * <table>
 *   <caption>Quantile section</caption>
 *   <tr><th>field</th><th>type</th><th>checks</th></tr>
 *   <tr><td>mode</td><td>u8</td><td>0 exact, 1 t-digest, 2 t-digest with raw values</td></tr>
 *   <tr><td>exact: n, n values</td><td>varint, n &times; f64</td><td>n &le; min(128, count); finite; ascending in Double.compare order</td></tr>
 *   <tr><td>digest (1, 2): min, max</td><td>f64, f64</td><td>finite, min &le; max</td></tr>
 *   <tr><td>&nbsp;&nbsp;c, c &times; (mean, weight)</td><td>varint, c &times; (f64, varint)</td><td>mode 1: 2 &le; c; mode 2: c = 0 or 2 &le; c; c &le; the centroid capacity of a t-digest at twice the compression (410 at compression 100); means in [min, max], non-decreasing; weights in [1, 2^31), first and last 1</td></tr>
 *   <tr><td>&nbsp;&nbsp;mode 2: r, r raw values</td><td>varint, r &times; f64</td><td>1 &le; r &lt; 512; in [min, max]; ascending in Double.compare order; 128 &lt; &Sigma;weights + r &le; count</td></tr>
 * </table>
 */
package dev.skewer.sketches.codec;
