package dev.skewer.launcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.coordinator.hotkey.HotKeySettings;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.launcher.SkewerCli;
import dev.skewer.launcher.cli.CommonOptions.Role;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** The command line without a broker: flags, environment variables, errors and exit codes. */
class SkewerCliTest {

  @TempDir Path dir;

  private static final String JOB =
      """
      name: clicks
      input:
        keyPointer: /key
        timePointer: /ts
      window:
        size: 10s
      """;

  /** The contract shared with the Helm chart: flag → variable. */
  private static final Map<String, String> CONTRACT =
      Map.ofEntries(
          Map.entry("--job", "SKEWER_JOB"),
          Map.entry("--bootstrap", "SKEWER_BOOTSTRAP"),
          Map.entry("--kafka-config", "SKEWER_KAFKA_CONFIG"),
          Map.entry("--id", "SKEWER_ID"),
          Map.entry("--bind-address", "SKEWER_BIND_ADDRESS"),
          Map.entry("--public-address", "SKEWER_PUBLIC_ADDRESS"),
          Map.entry("--hz-port", "SKEWER_HZ_PORT"),
          Map.entry("--hz-member", "SKEWER_HZ_MEMBERS"),
          Map.entry("--hz-k8s-service-dns", "SKEWER_HZ_K8S_SERVICE_DNS"),
          Map.entry("--hz-cluster-name", "SKEWER_HZ_CLUSTER_NAME"),
          Map.entry("--http-port", "SKEWER_HTTP_PORT"),
          Map.entry("--group", "SKEWER_GROUP"),
          Map.entry("--checkpoint-interval", "SKEWER_CHECKPOINT_INTERVAL"),
          Map.entry("--checkpoint-topic", "SKEWER_CHECKPOINT_TOPIC"),
          Map.entry("--checkpoint-chunk-bytes", "SKEWER_CHECKPOINT_CHUNK_BYTES"),
          Map.entry("--no-provision", "SKEWER_NO_PROVISION"),
          Map.entry("--log-format", "SKEWER_LOG_FORMAT"));

  private record Run(int exit, String out, String err) {}

  /** {@code <command> --job <job> --bootstrap b:1 <extra>}, run with {@code env}. */
  private static Run runStage(Map<String, String> env, String command, Path job, String... extra) {
    List<String> args =
        new ArrayList<>(List.of(command, "--job", job.toString(), "--bootstrap", "b:1"));
    args.addAll(List.of(extra));
    return run(env, args.toArray(String[]::new));
  }

  private static Run run(Map<String, String> env, String... args) {
    CommandLine cli = SkewerCli.commandLine(env);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private Path job(String yaml) throws IOException {
    Path f = dir.resolve("job-" + System.nanoTime() + ".yaml");
    Files.writeString(f, yaml, StandardCharsets.UTF_8);
    return f;
  }

  /** The parsed options of a subcommand, without running it. */
  private static CommonOptions parse(Map<String, String> env, String command, String... args) {
    CommandLine cli = SkewerCli.commandLine(env);
    List<String> all = new ArrayList<>(List.of(command));
    all.addAll(List.of(args));
    CommandLine.ParseResult pr = cli.parseArgs(all.toArray(String[]::new));
    Object cmd = pr.subcommand().commandSpec().userObject();
    return cmd instanceof NodeCommand n ? n.common : ((CoordinatorCommand) cmd).common;
  }

  @Test
  void shouldMapEveryContractFlagToItsVariableOnNodeAndCoordinator() {
    for (String command : List.of("node", "coordinator")) {
      CommandLine sub = SkewerCli.commandLine(Map.of()).getSubcommands().get(command);
      Map<String, String> actual = new LinkedHashMap<>();
      for (OptionSpec o : sub.getCommandSpec().options()) {
        String v = EnvironmentDefaults.variable(o);
        if (v != null) {
          actual.put(o.longestName(), v);
        }
      }
      assertThat(actual).as(command).containsAllEntriesOf(CONTRACT);
    }
    CommandLine coordinator = SkewerCli.commandLine(Map.of()).getSubcommands().get("coordinator");
    assertThat(
            EnvironmentDefaults.variable(coordinator.getCommandSpec().findOption("--no-hot-keys")))
        .isEqualTo("SKEWER_NO_HOT_KEYS");
    assertThat(
            EnvironmentDefaults.variable(
                coordinator.getCommandSpec().findOption("--hot-key-min-rate")))
        .isEqualTo("SKEWER_HOT_KEY_MIN_RATE");
    assertThat(
            EnvironmentDefaults.variable(
                coordinator.getCommandSpec().findOption("--hot-key-target-share")))
        .isEqualTo("SKEWER_HOT_KEY_TARGET_SHARE");
  }

  /** The coordinator's command object, parsed without running it (job and bootstrap given). */
  private static CoordinatorCommand coordinator(Map<String, String> env, String... args) {
    CommandLine cli = SkewerCli.commandLine(env);
    List<String> all =
        new ArrayList<>(List.of("coordinator", "--job", "job.yaml", "--bootstrap", "b:1"));
    all.addAll(List.of(args));
    CommandLine.ParseResult pr = cli.parseArgs(all.toArray(String[]::new));
    return (CoordinatorCommand) pr.subcommand().commandSpec().userObject();
  }

  @Test
  void shouldRunTheShippedFanoutPolicyWhenNoHotKeyOptionIsGiven() {
    HotKeySettings hotKeys = coordinator(Map.of()).hotKeys();
    assertThat(hotKeys.enabled()).isTrue();
    assertThat(hotKeys.policy()).isEqualTo(FanoutPolicy.Config.defaults());
    assertThat(coordinator(Map.of(), "--no-hot-keys").hotKeys().enabled()).isFalse();
  }

  @Test
  void shouldSetTheFanoutPolicysFloorAndShareFromFlagsOrTheEnvironment() {
    // given
    Map<String, String> env =
        Map.of("SKEWER_HOT_KEY_MIN_RATE", "10", "SKEWER_HOT_KEY_TARGET_SHARE", "0.01");
    // when
    FanoutPolicy.Config fromEnv = coordinator(env).hotKeys().policy();
    FanoutPolicy.Config flags =
        coordinator(env, "--hot-key-min-rate", "2.5", "--hot-key-target-share", "1")
            .hotKeys()
            .policy();
    // then
    assertThat(fromEnv.minTargetRate()).isEqualTo(10);
    assertThat(fromEnv.targetShare()).isEqualTo(0.01);
    assertThat(fromEnv.lowerRatio()).isEqualTo(FanoutPolicy.Config.DEFAULT_LOWER_RATIO);
    assertThat(fromEnv.quietPeriod()).isEqualTo(FanoutPolicy.Config.DEFAULT_QUIET_PERIOD);
    assertThat(flags.minTargetRate()).isEqualTo(2.5);
    assertThat(flags.targetShare()).isEqualTo(1);
  }

  @Test
  void shouldExitTwoNamingTheOptionForABadFloorOrShare() throws IOException {
    Path job = job(JOB);
    Map<List<String>, String> bad = new LinkedHashMap<>();
    bad.put(List.of("--hot-key-min-rate", "0"), "--hot-key-min-rate");
    bad.put(List.of("--hot-key-min-rate", "-5"), "--hot-key-min-rate");
    bad.put(List.of("--hot-key-min-rate", "NaN"), "--hot-key-min-rate");
    bad.put(List.of("--hot-key-min-rate", "Infinity"), "--hot-key-min-rate");
    bad.put(List.of("--hot-key-min-rate", "ten"), "--hot-key-min-rate");
    bad.put(List.of("--hot-key-target-share", "0"), "--hot-key-target-share");
    bad.put(List.of("--hot-key-target-share", "-0.5"), "--hot-key-target-share");
    bad.put(List.of("--hot-key-target-share", "1.5"), "--hot-key-target-share");
    bad.put(List.of("--hot-key-target-share", "NaN"), "--hot-key-target-share");
    bad.put(List.of("--hot-key-target-share", "1/128"), "--hot-key-target-share");
    for (Map.Entry<List<String>, String> e : bad.entrySet()) {
      List<String> args =
          new ArrayList<>(List.of("coordinator", "--job", job.toString(), "--bootstrap", "b:1"));
      args.addAll(e.getKey());
      Run r = run(Map.of(), args.toArray(String[]::new));
      assertThat(r.exit()).as("%s", e.getKey()).isEqualTo(2);
      assertThat(r.err())
          .as("%s", e.getKey())
          .contains(e.getValue())
          .contains(e.getKey().get(1))
          .doesNotContain("\tat ");
    }

    Run fromEnv =
        run(
            Map.of("SKEWER_HOT_KEY_TARGET_SHARE", "2"),
            "coordinator",
            "--job",
            job.toString(),
            "--bootstrap",
            "b:1");
    assertThat(fromEnv.exit()).isEqualTo(2);
    assertThat(fromEnv.err())
        .contains("--hot-key-target-share")
        .contains("(0, 1]")
        .doesNotContain("\tat ");
  }

  @Test
  void shouldExitTwoForALogLevelLogbackWouldReadAsDebug() throws IOException {
    Path job = job(JOB);
    for (String role : List.of("node", "coordinator")) {
      for (String bad : List.of("loud", "", "warning")) {
        assertRefused(
            runStage(Map.of("SKEWER_LOG_LEVEL", bad), role, job),
            role
                + ": SKEWER_LOG_LEVEL must be one of TRACE, DEBUG, INFO, WARN, ERROR, OFF, ALL; was '"
                + bad
                + "'");
      }
    }
    // a known level, in any case, passes the check: the run goes on to fail on the next bad input
    Run known =
        runStage(Map.of("SKEWER_LOG_LEVEL", " debug"), "node", job, "--hz-member", "127.0.0.1");
    assertRefused(known, "node: Hazelcast: ");
    assertThat(known.err()).doesNotContain("SKEWER_LOG_LEVEL");
  }

  @Test
  void shouldExitTwoForAJoinTimeoutThatCannotWork() throws IOException {
    Path job = job(JOB);
    System.setProperty(HazelcastMembers.JOIN_TIMEOUT_PROPERTY, "0");
    try {
      for (String role : List.of("node", "coordinator")) {
        assertRefused(
            runStage(Map.of(), role, job),
            role
                + ": Hazelcast: -Dskewer.hazelcast.join.timeout.seconds must be a whole number"
                + " of seconds, at least 1; was '0'");
      }
    } finally {
      System.clearProperty(HazelcastMembers.JOIN_TIMEOUT_PROPERTY);
    }
  }

  /** A usage error: exit 2 and {@code message} on stderr, without a stack trace. */
  private static void assertRefused(Run r, String message) {
    assertThat(r.exit()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains(message).doesNotContain("\tat ");
  }

  @Test
  void shouldNeverUseAJobOverrideVariableForAFlag() {
    CommandLine root = SkewerCli.commandLine(Map.of());
    List<String> all = new ArrayList<>();
    for (CommandLine sub : root.getSubcommands().values()) {
      for (OptionSpec o : sub.getCommandSpec().options()) {
        String v = EnvironmentDefaults.variable(o);
        if (v != null) {
          all.add(v);
          assertThat(JobSpecLoader.isJobOverride(v)).as(v).isFalse();
        }
      }
    }
    assertThat(all).contains("SKEWER_JOB", "SKEWER_BOOTSTRAP", "SKEWER_TOPIC", "SKEWER_EVENTS");
    assertThat(JobSpecLoader.isJobOverride("SKEWER_TOPICS_EVENTS")).isTrue(); // the other side
  }

  @Test
  void shouldReadFlagsFromTheEnvironmentAndLetTheFlagWin() throws IOException {
    Path job = job(JOB);
    Map<String, String> env =
        Map.of(
            "SKEWER_JOB", job.toString(),
            "SKEWER_BOOTSTRAP", "broker:9092",
            "SKEWER_HZ_MEMBERS", "10.0.0.2:5701,10.0.0.3:5701",
            "SKEWER_BIND_ADDRESS", "127.0.0.1",
            "SKEWER_NO_PROVISION", "true",
            "SKEWER_HTTP_PORT", "9000",
            "SKEWER_GROUP", "from-env");
    CommonOptions fromEnv = parse(env, "node");
    assertThat(fromEnv.loadJob().name()).isEqualTo("clicks");
    assertThat(fromEnv.kafka().bootstrapServers()).isEqualTo("broker:9092");
    assertThat(fromEnv.hazelcastMembers).containsExactly("10.0.0.2:5701", "10.0.0.3:5701");
    assertThat(fromEnv.provision()).isFalse();
    assertThat(fromEnv.httpPort(Role.NODE)).isEqualTo(9000);
    assertThat(fromEnv.group()).isEqualTo("from-env");

    CommonOptions flags =
        parse(env, "node", "--bootstrap", "other:9092", "--http-port", "0", "--group", "g");
    assertThat(flags.kafka().bootstrapServers()).isEqualTo("other:9092");
    assertThat(flags.httpPort(Role.NODE)).isZero();
    assertThat(flags.group()).isEqualTo("g");
    assertThat(parse(env, "node", "--no-provision").provision()).isFalse();
    assertThat(parse(env, "node", "--no-provision=false").provision()).isTrue();
  }

  @Test
  void shouldDeriveDefaultsFromTheRoleTheJobAndTheEnvironment() throws IOException {
    Path job = job(JOB);
    CommonOptions o = parse(Map.of(), "node", "--job", job.toString(), "--bootstrap", "b:1");
    var spec = o.loadJob();
    assertThat(o.id(Role.NODE, Map.of())).isEqualTo("node-1");
    assertThat(o.id(Role.COORDINATOR, Map.of())).isEqualTo("coordinator-1");
    assertThat(o.id(Role.NODE, Map.of("HOSTNAME", "skewer-node-2"))).isEqualTo("skewer-node-2");
    assertThat(o.httpPort(Role.NODE)).isEqualTo(8081);
    assertThat(o.httpPort(Role.COORDINATOR)).isEqualTo(8080);
    assertThat(o.bindAddress(Map.of())).isEqualTo("127.0.0.1");
    assertThat(o.bindAddress(Map.of("POD_IP", "10.1.2.3"))).isEqualTo("10.1.2.3");
    assertThat(o.checkpointTopic(spec)).isEqualTo("skewer.clicks.checkpoints");
    assertThat(o.provision()).isTrue();
    ClusterSettings cluster = o.cluster(spec, Map.of("POD_IP", "10.1.2.3"));
    assertThat(cluster.clusterName()).isEqualTo("skewer-clicks");
    assertThat(cluster.bindAddress()).isEqualTo("10.1.2.3");
    assertThat(cluster.self()).isEqualTo("10.1.2.3:5701");
    assertThat(cluster.members()).containsExactly("10.1.2.3:5701");
    assertThat(cluster.kubernetes()).isFalse();
  }

  @Test
  void shouldSelectKubernetesDiscoveryAndThePublicAddress() throws IOException {
    Path job = job(JOB);
    CommonOptions o =
        parse(
            Map.of("SKEWER_HZ_K8S_SERVICE_DNS", "skewer-hz.ns.svc.cluster.local"),
            "coordinator",
            "--job",
            job.toString(),
            "--bootstrap",
            "b:1",
            "--bind-address",
            "0.0.0.0",
            "--public-address",
            "10.9.8.7",
            "--hz-cluster-name",
            "shared");
    ClusterSettings cluster = o.cluster(o.loadJob(), Map.of());
    assertThat(cluster.kubernetes()).isTrue();
    assertThat(cluster.kubernetesServiceDns()).isEqualTo("skewer-hz.ns.svc.cluster.local");
    assertThat(cluster.clusterName()).isEqualTo("shared");
    assertThat(cluster.self()).isEqualTo("10.9.8.7:5701");
    assertThat(cluster.members()).isEmpty();
  }

  @Test
  void shouldExitTwoWithOneLineForAMissingJobFile() {
    Run r =
        run(Map.of(), "node", "--job", dir.resolve("nope.yaml").toString(), "--bootstrap", "b:1");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("skewer node: job file:").contains("nope.yaml");
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  @Test
  void shouldExitTwoForAYamlErrorAndForAnInvalidField() throws IOException {
    Run yaml =
        run(
            Map.of(),
            "coordinator",
            "--job",
            job("name: [oops\n").toString(),
            "--bootstrap",
            "b:1");
    assertThat(yaml.exit()).isEqualTo(2);
    assertThat(yaml.err()).contains("not valid YAML").doesNotContain("\tat ");

    Run field =
        run(
            Map.of(),
            "node",
            "--job",
            job(JOB.replace("size: 10s", "size: -5s")).toString(),
            "--bootstrap",
            "b:1");
    assertThat(field.exit()).isEqualTo(2);
    assertThat(field.err()).contains("window.size").contains("-5s").doesNotContain("\tat ");

    Run override =
        run(
            Map.of("SKEWER_WINDOW_SIZ", "1s"),
            "loadgen",
            "--job",
            job(JOB).toString(),
            "--bootstrap",
            "b:1");
    assertThat(override.exit()).isEqualTo(2);
    assertThat(override.err()).contains("SKEWER_WINDOW_SIZ").doesNotContain("\tat ");
  }

  @Test
  void shouldTakeTheCheckpointChunkSizeFromTheFlagOrTheEnvironment() {
    assertThat(coordinator(Map.of()).common.checkpointChunkBytes())
        .isEqualTo(HazelcastCheckpointStore.DEFAULT_CHUNK_BYTES);
    assertThat(
            coordinator(Map.of(), "--checkpoint-chunk-bytes", "1048576")
                .common
                .checkpointChunkBytes())
        .isEqualTo(1_048_576);
    assertThat(
            coordinator(Map.of("SKEWER_CHECKPOINT_CHUNK_BYTES", "65536"))
                .common
                .checkpointChunkBytes())
        .isEqualTo(65_536);
  }

  @Test
  void shouldExitTwoForBadFlags() throws IOException {
    Path job = job(JOB);
    Run unknown = runStage(Map.of(), "node", job, "--nope");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("Unknown option: '--nope'");

    Run missing = run(Map.of(), "node", "--job", job.toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("--bootstrap");

    Run port = runStage(Map.of("SKEWER_HZ_PORT", "many"), "node", job);
    assertThat(port.exit()).isEqualTo(2);
    assertThat(port.err()).contains("--hz-port").contains("many");

    Run wildcard = runStage(Map.of(), "node", job, "--bind-address", "0.0.0.0");
    assertThat(wildcard.exit()).isEqualTo(2);
    assertThat(wildcard.err()).contains("publicAddress must be set").doesNotContain("\tat ");

    Run chunk = runStage(Map.of(), "node", job, "--checkpoint-chunk-bytes", "1000");
    assertThat(chunk.exit()).isEqualTo(2);
    assertThat(chunk.err())
        .contains("--checkpoint-chunk-bytes must be in [1024, 67108864], was 1000")
        .doesNotContain("\tat ");
    Run chunkFromEnv =
        runStage(Map.of("SKEWER_CHECKPOINT_CHUNK_BYTES", "67108865"), "coordinator", job);
    assertThat(chunkFromEnv.exit()).isEqualTo(2);
    assertThat(chunkFromEnv.err()).contains("--checkpoint-chunk-bytes must be in");

    Run config =
        run(
            Map.of(),
            "loadgen",
            "--job",
            job.toString(),
            "--bootstrap",
            "b:1",
            "--kafka-config",
            dir.resolve("absent.properties").toString());
    assertThat(config.exit()).isEqualTo(2);
    assertThat(config.err()).contains("--kafka-config").contains("no such file");

    Run shape =
        run(
            Map.of(),
            "loadgen",
            "--job",
            job(JOB.replace("keyPointer: /key", "keyPointer: /ad")).toString(),
            "--bootstrap",
            "b:1");
    assertThat(shape.exit()).isEqualTo(2);
    assertThat(shape.err()).contains("reads its key at /ad").contains("examples/demo.yaml");
  }

  @Test
  void shouldReadTheKafkaConfigFileAndLetDashXWin() throws IOException {
    Path props = dir.resolve("client.properties");
    Files.writeString(
        props,
        "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nclient.rack=a\n",
        StandardCharsets.UTF_8);
    Path job = job(JOB);
    CommonOptions o =
        parse(
            Map.of("SKEWER_KAFKA_CONFIG", props.toString()),
            "node",
            "--job",
            job.toString(),
            "--bootstrap",
            "b:1",
            "-X",
            "client.rack=b");
    assertThat(o.kafka().clientProperties())
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "PLAIN")
        .containsEntry("client.rack", "b");
  }

  @Test
  void shouldListTheVariablesInTheHelp() {
    Run help = run(Map.of(), "node", "--help");
    assertThat(help.exit()).isZero();
    assertThat(help.out())
        .contains("Environment (a flag on the command line wins over its variable):")
        .contains("SKEWER_BIND_ADDRESS")
        .contains("SKEWER_HZ_MEMBERS")
        .contains("--hz-k8s-service-dns");
  }
}
