package dev.skewer.core.kafka;

import java.util.List;

/**
 * Topics a process needs do not exist and it was told not to create them ({@code --no-provision}).
 * The message names every missing topic.
 */
public final class MissingTopicException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final List<String> topics;

  /**
   * @param topics the missing topics, non-empty
   * @param what what they are, for the message (e.g. "the job's topics")
   */
  public MissingTopicException(List<String> topics, String what) {
    super(
        (topics.size() == 1 ? "topic " : "topics ")
            + String.join(", ", topics)
            + " ("
            + what
            + ") "
            + (topics.size() == 1 ? "does" : "do")
            + " not exist and creating topics is turned off: create "
            + (topics.size() == 1 ? "it" : "them")
            + " first, or let Skewer create "
            + (topics.size() == 1 ? "it" : "them")
            + " (drop --no-provision)");
    this.topics = List.copyOf(topics);
  }

  /** The missing topics. */
  public List<String> topics() {
    return topics;
  }
}
