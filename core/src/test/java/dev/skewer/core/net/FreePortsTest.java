package dev.skewer.core.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {

  @Test
  void shouldHandOutDistinctBindablePortsBelowTheEphemeralRange() throws Exception {
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = FreePorts.next();
      assertThat(port).isBetween(FreePorts.LOW, FreePorts.HIGH - 1);
      assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
    }
    int port = FreePorts.next();
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(socket.getLocalPort()).isEqualTo(port);
    }
  }
}
