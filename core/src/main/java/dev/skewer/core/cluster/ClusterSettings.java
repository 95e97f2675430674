package dev.skewer.core.cluster;

import java.util.List;

/**
 * How a Hazelcast member binds and finds its peers.
 *
 * @param clusterName members join only clusters of the same name; non-blank
 * @param host the interface to bind and advertise (e.g. {@code 127.0.0.1}); non-blank
 * @param port the member port, in [1, 65535] (no auto-increment)
 * @param members the static TCP-IP member list, each {@code host:port}; ignored with Kubernetes
 * @param kubernetes discover members through Kubernetes DNS instead of the static list
 * @param kubernetesServiceDns the headless service DNS name; required when {@code kubernetes}
 */
public record ClusterSettings(
    String clusterName,
    String host,
    int port,
    List<String> members,
    boolean kubernetes,
    String kubernetesServiceDns) {

  public static final String DEFAULT_CLUSTER_NAME = "skewer";
  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final int DEFAULT_PORT = 5701;

  public ClusterSettings {
    if (clusterName == null || clusterName.isBlank()) {
      throw new IllegalArgumentException(
          "clusterName must be non-blank, was " + quote(clusterName));
    }
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must be non-blank, was " + quote(host));
    }
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("port must be in [1, 65535], was " + port);
    }
    members = members == null ? List.of() : List.copyOf(members);
    for (String m : members) {
      int colon = m.lastIndexOf(':');
      boolean ok = colon > 0 && colon < m.length() - 1;
      if (ok) {
        try {
          int p = Integer.parseInt(m.substring(colon + 1));
          ok = p >= 1 && p <= 65_535;
        } catch (NumberFormatException e) {
          ok = false;
        }
      }
      if (!ok) {
        throw new IllegalArgumentException("members entries must be host:port, was " + quote(m));
      }
    }
    if (kubernetes && (kubernetesServiceDns == null || kubernetesServiceDns.isBlank())) {
      throw new IllegalArgumentException(
          "kubernetesServiceDns must be set when kubernetes is true, was "
              + quote(kubernetesServiceDns));
    }
  }

  /** A loopback member on {@code port} joining the static {@code members} list. */
  public static ClusterSettings loopback(String clusterName, int port, List<String> members) {
    return new ClusterSettings(clusterName, DEFAULT_HOST, port, members, false, null);
  }

  private static String quote(String s) {
    return s == null ? "null" : "'" + s + "'";
  }
}
