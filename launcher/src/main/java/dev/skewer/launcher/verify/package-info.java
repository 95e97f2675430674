/**
 * Checks of results against ground truth: reads the results topic, keeps the last revision of every
 * (key, window) and compares it with {@link dev.skewer.loadgen.reference.ExactReference}. Used by
 * the demo's summary, the end-to-end benchmark and the integration tests.
 */
package dev.skewer.launcher.verify;
