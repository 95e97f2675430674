package dev.skewer.core.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on the loopback interface, for clusters started on one machine (the demo, tests).
 *
 * <p>Ports come from {@value #LOW}–{@value #HIGH}, below Linux's default ephemeral range
 * (32768–60999): a port picked there can be taken by any outgoing connection (a Kafka client's,
 * Hazelcast's) before the caller binds it; below it only a listener can take it. A port is free
 * when handed out and nothing stops another process from binding it first, so bind soon and pick
 * another one when the bind fails. Within one JVM a port is never handed out twice.
 *
 * <p>Thread-safe.
 */
public final class FreePorts {

  static final int LOW = 20_000;
  static final int HIGH = 32_000;
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  private static final int MAX_ATTEMPTS = 1_000;

  private FreePorts() {}

  /** A loopback port that was free a moment ago and that this JVM has not handed out before. */
  public static int next() {
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOW, HIGH);
      if (!HANDED_OUT.contains(port) && bindable(port) && HANDED_OUT.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException(
        "no fresh free loopback port in " + LOW + "-" + HIGH + " after " + MAX_ATTEMPTS + " tries");
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
