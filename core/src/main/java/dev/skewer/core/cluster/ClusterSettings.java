package dev.skewer.core.cluster;

import java.util.List;

/**
 * How a Hazelcast member binds, what it advertises and how it finds its peers.
 *
 * @param clusterName members join only clusters of the same name (Skewer's default: {@code
 *     skewer-<job>}); non-blank
 * @param bindAddress the IP address the member listens on ({@code 0.0.0.0} = every interface);
 *     non-blank
 * @param publicAddress the address other members connect to; null = {@code bindAddress}, which must
 *     then not be a wildcard
 * @param port the member port, in [1, 65535] (no auto-increment)
 * @param members the static TCP-IP member list, each {@code host:port}; ignored with Kubernetes
 * @param kubernetesServiceDns the headless service whose DNS records list the members (Kubernetes
 *     DNS discovery, no RBAC needed); null = the static member list
 */
public record ClusterSettings(
    String clusterName,
    String bindAddress,
    String publicAddress,
    int port,
    List<String> members,
    String kubernetesServiceDns) {

  public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
  public static final int DEFAULT_PORT = 5701;

  public ClusterSettings {
    if (clusterName == null || clusterName.isBlank()) {
      throw new IllegalArgumentException(
          "clusterName must be non-blank, was " + quote(clusterName));
    }
    if (bindAddress == null || bindAddress.isBlank()) {
      throw new IllegalArgumentException(
          "bindAddress must be non-blank, was " + quote(bindAddress));
    }
    if (publicAddress != null && publicAddress.isBlank()) {
      publicAddress = null;
    }
    if (publicAddress == null && isWildcard(bindAddress)) {
      throw new IllegalArgumentException(
          "publicAddress must be set when bindAddress is the wildcard " + bindAddress);
    }
    if (publicAddress != null && isWildcard(publicAddress)) {
      throw new IllegalArgumentException(
          "publicAddress must be an address other members can reach, was " + quote(publicAddress));
    }
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("port must be in [1, 65535], was " + port);
    }
    members = members == null ? List.of() : List.copyOf(members);
    for (String m : members) {
      if (!isHostPort(m)) {
        throw new IllegalArgumentException("members entries must be host:port, was " + quote(m));
      }
    }
    if (kubernetesServiceDns != null && kubernetesServiceDns.isBlank()) {
      throw new IllegalArgumentException(
          "kubernetesServiceDns must be a DNS name or null, was " + quote(kubernetesServiceDns));
    }
  }

  /** A loopback member on {@code port} joining the static {@code members} list. */
  public static ClusterSettings loopback(String clusterName, int port, List<String> members) {
    return new ClusterSettings(clusterName, DEFAULT_BIND_ADDRESS, null, port, members, null);
  }

  /** Whether members are discovered through Kubernetes DNS. */
  public boolean kubernetes() {
    return kubernetesServiceDns != null;
  }

  /** The address other members connect to. */
  public String advertisedAddress() {
    return publicAddress == null ? bindAddress : publicAddress;
  }

  /** {@code advertisedAddress:port}: this member's entry in a member list. */
  public String self() {
    String host = advertisedAddress();
    return (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
  }

  /** Whether {@code address} means every interface ({@code 0.0.0.0}, {@code ::}). */
  public static boolean isWildcard(String address) {
    return address.equals("0.0.0.0") || address.equals("::") || address.equals("[::]");
  }

  /** Whether {@code s} is {@code host:port} with a port in [1, 65535]. */
  public static boolean isHostPort(String s) {
    int colon = s == null ? -1 : s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      return false;
    }
    try {
      int p = Integer.parseInt(s.substring(colon + 1));
      return p >= 1 && p <= 65_535;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String quote(String s) {
    return s == null ? "null" : "'" + s + "'";
  }
}
