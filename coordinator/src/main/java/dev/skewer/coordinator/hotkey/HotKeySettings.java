package dev.skewer.coordinator.hotkey;

import java.util.Objects;

/**
 * Hot-key detection and publication settings of a coordinator.
 *
 * @param enabled whether the coordinator runs the fanout policy and publishes the table
 * @param topic the compacted topic the SaltingPartitioner follows; null = the job's ({@code
 *     skewer.<job>.hotkeys}, filled in by {@code CoordinatorSettings})
 * @param policy the fanout policy's parameters
 */
public record HotKeySettings(boolean enabled, String topic, FanoutPolicy.Config policy) {

  public HotKeySettings {
    if (topic != null && topic.isBlank()) {
      throw new IllegalArgumentException("topic must be non-blank or null, was '" + topic + "'");
    }
    Objects.requireNonNull(policy, "policy");
  }

  /** Enabled, on the job's hot-key topic, with the default policy. */
  public static HotKeySettings defaults() {
    return new HotKeySettings(true, null, FanoutPolicy.Config.defaults());
  }

  public static HotKeySettings disabled() {
    return new HotKeySettings(false, null, FanoutPolicy.Config.defaults());
  }

  /** The same settings on {@code topic}. */
  public HotKeySettings withTopic(String topic) {
    return new HotKeySettings(enabled, topic, policy);
  }
}
