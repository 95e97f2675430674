/**
 * Window and slice arithmetic on epoch milliseconds. A {@link dev.skewer.core.window.SliceAssigner}
 * maps an event time to the start of the one slice it updates; for tumbling windows a slice is the
 * window, hopping windows use slices of gcd(size, hop), sessions slices of a quarter of the gap.
 * {@link dev.skewer.core.window.WindowShape} tells the coordinator how to compose results from
 * slices. The math is allocation-free and correct for negative times (floor division).
 */
package dev.skewer.core.window;
