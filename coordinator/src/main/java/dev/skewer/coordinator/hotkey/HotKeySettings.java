package dev.skewer.coordinator.hotkey;

import java.util.Objects;

/**
 * Hot-key detection and publication settings of a coordinator.
 *
 * @param enabled whether the coordinator runs the fanout policy and publishes the table
 * @param topic the compacted topic the SaltingPartitioner follows
 * @param policy the fanout policy's parameters
 */
public record HotKeySettings(boolean enabled, String topic, FanoutPolicy.Config policy) {

  public static final String DEFAULT_TOPIC = "skewer.hotkeys";

  public HotKeySettings {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(policy, "policy");
  }

  public static HotKeySettings defaults() {
    return new HotKeySettings(true, DEFAULT_TOPIC, FanoutPolicy.Config.defaults());
  }

  public static HotKeySettings disabled() {
    return new HotKeySettings(false, DEFAULT_TOPIC, FanoutPolicy.Config.defaults());
  }
}
