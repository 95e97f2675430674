/**
 * Fast hot-key detection on a node: a {@link dev.skewer.node.hotkey.HotKeyDetector} per source
 * partition keeps Space-Saving sketches over a short sliding window and reports the keys whose
 * share of the partition's events passes a threshold, with rate estimates, as {@link
 * dev.skewer.node.hotkey.HotKeyCandidate}s for the coordinator's fanout policy. Plain Java: the
 * ingest verticle calls it per event and polls it per tick; the sketches never leave the heap.
 */
package dev.skewer.node.hotkey;
