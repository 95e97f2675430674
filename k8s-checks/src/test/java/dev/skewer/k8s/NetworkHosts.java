package dev.skewer.k8s;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Separate network hosts on this machine: each host is a Linux network namespace with its own
 * address on a private bridge ({@code 10.231.<n>.0/24}; the test JVM gets {@code .1} on the bridge,
 * the hosts {@code .2}, {@code .3}, ...), so that processes started in them ({@link Host#exec})
 * talk to each other only over that bridge, and a host can be cut off ({@link #cut}: its link down)
 * and brought back ({@link #heal}).
 *
 * <p>Needs root and {@code ip} ({@link #unavailable} says why not, for a clean skip). Every name
 * starts with {@value #PREFIX} followed by the test JVM's pid; {@link #create} first deletes the
 * namespaces and links of earlier runs whose JVM is gone, and {@link #close} (also run by a
 * shutdown hook) deletes this run's. Processes in a namespace must be killed before {@link #close}.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class NetworkHosts implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NetworkHosts.class);

  /** The prefix of every namespace and link this class creates. */
  static final String PREFIX = "skwt";

  private static final AtomicInteger CREATED = new AtomicInteger();
  private static final Pattern OURS = Pattern.compile("^" + PREFIX + "([0-9]+)");

  /**
   * One host.
   *
   * @param name e.g. {@code h1}
   * @param namespace the network namespace
   * @param address its address on the bridge
   */
  record Host(String name, String namespace, String address) {

    /** The command prefix that runs a command on this host. */
    List<String> exec() {
      return List.of("ip", "netns", "exec", namespace);
    }

    /**
     * The HTTP status of {@code GET http://127.0.0.1:<port><path>} from inside this host (where
     * {@code kubectl port-forward} connects in a pod), or -1 when nothing answers there.
     */
    int loopbackStatus(int port, String path) {
      List<String> command = new ArrayList<>(exec());
      command.addAll(
          List.of(
              "bash",
              "-c",
              "exec 3<>/dev/tcp/127.0.0.1/$0 && printf 'GET %s HTTP/1.0\\r\\n\\r\\n' \"$1\" >&3"
                  + " && head -n 1 <&3",
              Integer.toString(port),
              path));
      Result r = run(command);
      Matcher m = Pattern.compile("^HTTP/1\\.[01] ([0-9]{3})").matcher(r.output());
      return r.ok() && m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
  }

  private final String run;
  private final String bridge;
  private final String hostAddress;
  private final List<Host> hosts;
  private final Thread hook;
  private boolean closed;

  private NetworkHosts(String run, String bridge, String hostAddress, List<Host> hosts) {
    this.run = run;
    this.bridge = bridge;
    this.hostAddress = hostAddress;
    this.hosts = hosts;
    this.hook = new Thread(this::close, "network-hosts-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** Why hosts cannot be made here (not Linux, not root, no {@code ip}), or empty when they can. */
  static Optional<String> unavailable() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return Optional.of("network namespaces need Linux, this is " + System.getProperty("os.name"));
    }
    String probe = PREFIX + ProcessHandle.current().pid() + "probe";
    Result add = run(List.of("ip", "netns", "add", probe));
    if (!add.ok()) {
      return Optional.of(
          "cannot create a network namespace (needs root and iproute2): `ip netns add` said: "
              + add.output().strip());
    }
    run(List.of("ip", "netns", "del", probe));
    return Optional.empty();
  }

  /** Creates {@code count} hosts (1..9) on a fresh bridge. */
  static NetworkHosts create(int count) {
    if (count < 1 || count > 9) {
      throw new IllegalArgumentException("count must be in 1..9, was " + count);
    }
    removeLeftovers();
    long pid = ProcessHandle.current().pid();
    // a fresh name and subnet per set of hosts: the kernel deletes a namespace's links
    // asynchronously, so the previous set's veth ends may still exist under their names
    int seq = CREATED.getAndIncrement();
    String run = PREFIX + pid + (char) ('a' + seq % 26);
    String subnet = "10.231." + (20 + (pid + seq) % 200) + ".";
    String bridge = run + "br";
    List<Host> hosts = new ArrayList<>();
    NetworkHosts net = new NetworkHosts(run, bridge, subnet + "1", hosts);
    try {
      must("ip", "link", "add", bridge, "type", "bridge");
      must("ip", "addr", "add", subnet + "1/24", "dev", bridge);
      must("ip", "link", "set", bridge, "up");
      for (int i = 1; i <= count; i++) {
        Host h = new Host("h" + i, run + "h" + i, subnet + (i + 1));
        String veth = run + "v" + i;
        must("ip", "netns", "add", h.namespace());
        hosts.add(h);
        must(
            "ip",
            "link",
            "add",
            veth,
            "type",
            "veth",
            "peer",
            "name",
            "eth0",
            "netns",
            h.namespace());
        must("ip", "link", "set", veth, "master", bridge, "up");
        must("ip", "-n", h.namespace(), "addr", "add", h.address() + "/24", "dev", "eth0");
        must("ip", "-n", h.namespace(), "link", "set", "eth0", "up");
        must("ip", "-n", h.namespace(), "link", "set", "lo", "up");
      }
    } catch (RuntimeException e) {
      net.close();
      throw e;
    }
    LOG.info("network hosts {} on bridge {} ({}0/24)", hosts, bridge, subnet);
    return net;
  }

  List<Host> hosts() {
    return Collections.unmodifiableList(hosts);
  }

  Host host(int i) {
    return hosts.get(i - 1);
  }

  /** The test JVM's own address on the bridge. */
  String hostAddress() {
    return hostAddress;
  }

  /** Cuts {@code host} off the network: its link goes down (its processes keep running). */
  void cut(Host host) {
    must("ip", "-n", host.namespace(), "link", "set", "eth0", "down");
    LOG.info("{} ({}) cut off", host.name(), host.address());
  }

  /** Brings {@code host}'s link back up. */
  void heal(Host host) {
    must("ip", "-n", host.namespace(), "link", "set", "eth0", "up");
    LOG.info("{} ({}) back", host.name(), host.address());
  }

  /** Deletes this run's namespaces and bridge. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Host h : hosts) {
      run(List.of("ip", "netns", "del", h.namespace()));
    }
    run(List.of("ip", "link", "del", bridge));
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // already shutting down: this is the hook
    }
    LOG.info("network hosts of {} removed", run);
  }

  /** Namespaces and links of earlier runs (prefix {@value #PREFIX}) whose JVM is gone. */
  static void removeLeftovers() {
    Set<String> namespaces = new TreeSet<>();
    for (String line : run(List.of("ip", "netns", "list")).output().split("\n")) {
      String name = line.strip().split("\\s+")[0];
      if (isLeftover(name)) {
        namespaces.add(name);
      }
    }
    for (String ns : namespaces) {
      LOG.info("removing leftover network namespace {}", ns);
      run(List.of("ip", "netns", "del", ns));
    }
    for (String line : run(List.of("ip", "-o", "link", "show")).output().split("\n")) {
      String[] parts = line.split(":\\s+");
      if (parts.length > 1) {
        String name = parts[1].split("@")[0].strip();
        if (isLeftover(name)) {
          LOG.info("removing leftover link {}", name);
          run(List.of("ip", "link", "del", name));
        }
      }
    }
  }

  private static boolean isLeftover(String name) {
    Matcher m = OURS.matcher(name);
    if (!m.find()) {
      return false;
    }
    long pid = Long.parseLong(m.group(1));
    return pid != ProcessHandle.current().pid()
        && ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
  }

  record Result(int exitCode, String output) {
    boolean ok() {
      return exitCode == 0;
    }
  }

  private static void must(String... command) {
    Result r = run(List.of(command));
    if (!r.ok()) {
      throw new IllegalStateException(
          String.join(" ", command) + " failed (" + r.exitCode() + "): " + r.output().strip());
    }
  }

  /** Runs a short command, output and errors merged; exit 127 when it cannot be started. */
  static Result run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Result(124, "timed out: " + command);
      }
      return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return new Result(127, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(130, "interrupted");
    }
  }
}
