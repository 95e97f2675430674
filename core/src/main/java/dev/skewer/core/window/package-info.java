/**
 * Window and slice arithmetic on epoch milliseconds. A {@link dev.skewer.core.window.WindowAssigner}
 * maps an event time to the start of the one slice it updates and a slice start to its end; for
 * tumbling windows a slice is the window. The math is allocation-free and correct for negative
 * times (floor division, never truncation).
 */
package dev.skewer.core.window;
