/**
 * What the HTTP API and the dashboard answer from: every coordinator keeps a bounded view of the
 * results topic (whole windows, every key, rebuilt from the topic's beginning at start; the one
 * top-K index of the cluster), counts and measures the late and DLQ topics, and reads the merge
 * stage's per-partition status (watermarks, sources, open windows) that each coordinator publishes
 * once a second. Plain Java, thread-safe where documented; the Kafka consumer that feeds the view
 * runs on its own thread.
 */
package dev.skewer.coordinator.query;
