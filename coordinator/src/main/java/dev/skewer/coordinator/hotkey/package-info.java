/**
 * Hot keys on the coordinator: the {@link dev.skewer.coordinator.hotkey.FanoutPolicy} turns exact
 * per-window counts and the nodes' fast candidates into a hot-key table (fanout by rate, with
 * hysteresis and a quiet period), and the {@link dev.skewer.coordinator.hotkey.HotKeyPublisher}
 * writes its changes to the compacted topic {@code skewer.hotkeys} and the Hazelcast map of the
 * same name. Plain Java: the merge verticle feeds the policy and runs publication off the event
 * loop.
 */
package dev.skewer.coordinator.hotkey;
