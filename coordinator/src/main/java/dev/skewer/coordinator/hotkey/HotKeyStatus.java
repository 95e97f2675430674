package dev.skewer.coordinator.hotkey;

/**
 * One hot key as {@code GET /api/v1/hotkeys} shows it.
 *
 * @param key the bare key
 * @param fanout its current fanout (>= 2)
 * @param sinceMs epoch ms since which it has been hot
 * @param eventsPerSecond the policy's current rate estimate
 * @param cooling whether its rate is below the lowering threshold (a quiet period is running)
 */
public record HotKeyStatus(
    String key, int fanout, long sinceMs, double eventsPerSecond, boolean cooling) {}
