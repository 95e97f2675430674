/**
 * The {@code skewer bench} workloads: W1 engine-only (in-memory events through the node and
 * coordinator cores, beside a plain single-threaded loop with the same sketches) and end-to-end
 * (JSON on the embedded broker to final results).
 */
package dev.skewer.launcher.bench;
