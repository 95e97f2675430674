package dev.skewer.testkit.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Free TCP ports on the loopback interface.
 *
 * <p>A port is free when handed out; nothing stops another process from taking it before the caller
 * binds it, so bind soon. Within one JVM a port is never handed out twice.
 *
 * <p>Thread-safe.
 */
public final class FreePorts {

  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  private static final int MAX_ATTEMPTS = 100;

  private FreePorts() {}

  /** A loopback port that was free a moment ago and that this JVM has not handed out before. */
  public static int next() {
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        socket.setReuseAddress(true);
        port = socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot open a loopback server socket", e);
      }
      if (HANDED_OUT.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException("no fresh free port after " + MAX_ATTEMPTS + " attempts");
  }
}
