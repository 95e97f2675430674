package dev.skewer.benchmarks.deployed;

import java.util.List;
import picocli.CommandLine.Option;

/**
 * The benches' {@code --coordinator-jvm-opts}: JVM flags a coordinator process adds after every
 * process's {@code --jvm-opts}, as the chart adds {@code coordinator.jvmOptions} to {@code
 * jvmOptions}.
 */
final class CoordinatorJvmOptions {

  @Option(
      names = "--coordinator-jvm-opts",
      defaultValue = SkewerChild.DEFAULT_COORDINATOR_JVM_OPTS,
      description =
          "JVM flags a coordinator adds after --jvm-opts, space-separated (a later flag wins);"
              + " '--coordinator-jvm-opts=' for none. Default: '${DEFAULT-VALUE}' (the chart's"
              + " coordinator.jvmOptions: C1 only).")
  String opts;

  /** The flags as a list (empty for none). */
  List<String> list() {
    return JvmFlags.split(opts);
  }

  /** For a bench's header: what the coordinators add, or nothing. */
  String describe() {
    return list().isEmpty() ? "" : "; coordinators add " + String.join(" ", list());
  }
}
