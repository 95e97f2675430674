/**
 * JMH benchmarks of the sketches module: cost per update of each sketch and of a full aggregate,
 * per merge, encode and decode, plus a table of encoded and heap bytes per (key, window). Results
 * and the commands that produced them are in docs/benchmarks.md.
 */
package dev.skewer.benchmarks.sketches;
