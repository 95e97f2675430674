package dev.skewer.peers.flink;

/**
 * One W1 event as the Flink job reads it: a Flink POJO (public fields, no-argument constructor).
 */
public class W1Event {
  public String key;
  public String user;
  public double value;
  public long ts;

  public W1Event() {}
}
