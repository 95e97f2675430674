package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The image recipes, without a Docker engine: the repository's Dockerfile (non-root numeric user,
 * no fixed heap, the product jar that {@code ./mvnw package} builds as the exec-form entrypoint
 * with the AOT cache its build step writes, a build context that lets exactly that jar and the
 * development jar in), the product jar itself (the {@code skewer} CLI, no test broker inside), the
 * Jib profile of {@code launcher/pom.xml} (the same image), and the chart's agreement with both.
 */
class ImagePackagingTest {

  static final Dockerfile DOCKERFILE = Dockerfile.read(Repo.root().resolve("Dockerfile"));
  static final String CACHE = "/opt/skewer/skewer.aot";
  static final String DEV_JAR = "devtools/target/skewer-dev.jar";
  static final String CLASS_LIST = "launcher/cds/skewer.classlist";

  @Test
  void shouldRunAsANonRootNumericUserThatTheChartAlsoUses() {
    String user = DOCKERFILE.last("USER").arguments();
    assertThat(user).matches("[0-9]+(:[0-9]+)?");
    String uid = user.split(":")[0];
    assertThat(uid).isNotEqualTo("0");
    var pod = RenderedChart.defaults().statefulSet("node").getSpec().getTemplate().getSpec();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(Long.parseLong(uid));
  }

  @Test
  void shouldSizeTheHeapByTheContainerNotByAFixedXmx() {
    for (Dockerfile.Instruction i : DOCKERFILE.instructions()) {
      assertThat(i.arguments())
          .as("%s %s", i.keyword(), i.arguments())
          .doesNotContain("-Xmx", "-Xms");
    }
    String jvm = DOCKERFILE.env().get("JDK_JAVA_OPTIONS");
    assertThat(jvm).contains("-XX:MaxRAMPercentage=").contains("-Djava.io.tmpdir=/tmp");
    // the collector is named, not left to the JVM's choice by container size (G1 above 1792 MB
    // and 2 CPUs costs ~20 % more CPU per event: docs/benchmarks.md, "The collector")
    assertThat(jvm.split(" "))
        .containsOnlyOnce("-XX:+UseParallelGC")
        .noneMatch(o -> o.matches("-XX:\\+Use(G1|Serial|Z|Shenandoah)GC"));
    // start-up code compiled less (docs/benchmarks.md, "JIT thresholds")
    assertThat(jvm.split(" ")).containsOnlyOnce("-XX:CompileThresholdScaling=3");
    // no full collections while the classes load (docs/benchmarks.md, "Metaspace")
    assertThat(jvm.split(" ")).containsOnlyOnce("-XX:MetaspaceSize=128m");
    // no Java warning lines when Hazelcast uses sun.misc.Unsafe (the image's Java is 25): they are
    // not log lines and break a JSON log stream (ChartClusterIT checks the pods' logs)
    assertThat(jvm.split(" ")).containsOnlyOnce(LocalImage.UNSAFE_ALLOWED);
    // the chart sets the same options by default (its env replaces the image's)
    var container =
        RenderedChart.defaults()
            .statefulSet("node")
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    assertThat(ChartInvariantsTest.env(container).get("JDK_JAVA_OPTIONS")).isEqualTo(jvm);
  }

  /** The jar the entrypoint runs: the argument after its {@code -jar}. */
  private static String jarInImage() {
    List<String> entrypoint = DOCKERFILE.execForm("ENTRYPOINT");
    int jar = entrypoint.indexOf("-jar") + 1;
    assertThat(jar).as("the entrypoint runs a jar: %s", entrypoint).isPositive();
    assertThat(jar).isLessThan(entrypoint.size());
    return entrypoint.get(jar);
  }

  @Test
  void shouldRunTheProductJarThatThePackagePhaseBuilds() throws IOException {
    String jarInImage = jarInImage();
    // the cache mapped with the flag it is written with (the aot-cache command adds it)
    assertThat(DOCKERFILE.execForm("ENTRYPOINT"))
        .containsExactly(
            "java", LocalImage.CACHE_FLAG + CACHE, LocalImage.COMPACT_HEADERS, "-jar", jarInImage);
    // one COPY: the jar ./mvnw package writes, to where the entrypoint runs it
    List<Dockerfile.Instruction> copies = DOCKERFILE.all("COPY");
    assertThat(copies).hasSize(1);
    String[] copy = DOCKERFILE.expand(copies.get(0).arguments()).split("\\s+");
    assertThat(copy).containsExactly("launcher/target/skewer.jar", jarInImage);
    assertThat(Repo.root().resolve(copy[0])).isEqualTo(Repo.productJar());
    assertThat(DOCKERFILE.all("FROM")).as("one stage").hasSize(1);
    assertThat(DOCKERFILE.last("FROM").arguments()).contains("jre");
    // the build context (.dockerignore) lets that jar and the development jar (bound in for the
    // cache's training) in and keeps the rest out
    assertThat(inContext(copy[0])).as("%s in the build context", copy[0]).isTrue();
    assertThat(inContext(DEV_JAR)).as("%s in the build context", DEV_JAR).isTrue();
    assertThat(inContext("pom.xml")).isFalse();
    assertThat(inContext("launcher/target/classes/x.class")).isFalse();
    assertThat(inContext(CLASS_LIST)).isFalse();
  }

  @Test
  void shouldWriteTheCacheTheEntrypointMapsBeforeTheProcessOptionsAreSet() throws IOException {
    // the last RUN binds the development jar in (it is not copied into the image) and writes the
    // cache from a training run of the jar the entrypoint runs, at the path the entrypoint maps
    List<String> run = DOCKERFILE.execForm("RUN");
    String jarInImage = jarInImage();
    var mount = DOCKERFILE.mount("RUN");
    assertThat(mount).containsEntry("type", "bind").containsEntry("source", DEV_JAR);
    assertThat(inContext(mount.get("source"))).isTrue();
    assertThat(run).startsWith("java", "-jar", mount.get("target"), "aot-cache");
    assertThat(String.join(" ", run))
        .contains("--jar " + jarInImage)
        .contains("--out " + CACHE)
        .doesNotContain("-Xmx", "-Xms");
    assertThat(Repo.root().resolve(DEV_JAR)).isRegularFile();
    // before ENV JDK_JAVA_OPTIONS (the java launcher reads it: the step's own JVM would take the
    // heap, GC and JIT options of the processes)
    int write = -1;
    int env = -1;
    for (int i = 0; i < DOCKERFILE.instructions().size(); i++) {
      Dockerfile.Instruction instruction = DOCKERFILE.instructions().get(i);
      if (instruction.keyword().equals("RUN") && instruction.arguments().contains("aot-cache")) {
        write = i;
      }
      if (instruction.keyword().equals("ENV")
          && instruction.arguments().startsWith("JDK_JAVA_OPTIONS")) {
        env = i;
      }
    }
    assertThat(write).isNotNegative().isLessThan(env);
  }

  @Test
  void shouldStartOnTheWrittenCacheWithTheProductJarsClassesInIt() throws Exception {
    // given the cache, written here by the Dockerfile's own RUN (its paths made local) with a JVM
    // of the image's release (skipped without one)
    Path cache = LocalImage.cache(DOCKERFILE);
    // when the CLI starts on it as the entrypoint starts it, with the image's JVM options;
    // -XX:AOTMode=on fails rather than running without the cache
    List<String> command = new ArrayList<>();
    command.add(LocalImage.java(DOCKERFILE).orElseThrow().toString());
    command.addAll(List.of(DOCKERFILE.env().get("JDK_JAVA_OPTIONS").split(" ")));
    command.addAll(
        List.of(
            "-XX:AOTMode=on",
            LocalImage.CACHE_FLAG + cache,
            LocalImage.COMPACT_HEADERS,
            "-Xlog:class+load=info",
            "-jar",
            Repo.productJar().toString(),
            "--version"));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    // then the launcher's and the JDK's classes came from the cache, not the jar
    assertThat(out)
        .contains("dev.skewer.launcher.SkewerCli source: shared objects file")
        .contains("java.lang.Object source: shared objects file")
        .doesNotContain("[error]");
  }

  @Test
  void shouldLoadEveryListedClassFromAnArchiveOfTheListWithAClassFileHookOn(@TempDir Path dir)
      throws Exception {
    // given an archive of the class list, dumped as README's "Start-up" dumps it for a java -jar
    // run on Java 17 (this JVM), and a JVM recording with JFR (which turns the class-file hook on,
    // as a Java agent does): every shared class it loads is read back from its source for the hook
    Path archive = dir.resolve("skewer.jsa");
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process dump =
        new ProcessBuilder(
                javaBin,
                "-Xshare:dump",
                "-XX:SharedClassListFile=" + Repo.root().resolve(CLASS_LIST),
                "-XX:SharedArchiveFile=" + archive,
                "-cp",
                Repo.productJar().toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("dump.log").toFile())
            .start();
    assertThat(dump.waitFor()).as(Files.readString(dir.resolve("dump.log"))).isZero();
    Path testClasses =
        Path.of(
            LoadListedClasses.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    // when it loads every class the list names
    Process p =
        new ProcessBuilder(
                javaBin,
                "-Xshare:on",
                "-XX:SharedArchiveFile=" + archive,
                "-XX:StartFlightRecording=settings=profile,filename=" + dir.resolve("r.jfr"),
                "-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"),
                "-cp",
                Repo.productJar() + java.io.File.pathSeparator + testClasses,
                LoadListedClasses.class.getName(),
                Repo.root().resolve(CLASS_LIST).toString())
            .directory(dir.toFile()) // a crash's recording and report stay in the temporary dir
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    // then it does not crash (a class the dump generated, e.g. from @lambda-form-invoker lines,
    // has no source: SIGSEGV in check_shared_class_file_load_hook), and loads nearly all of them
    assertThat(p.waitFor()).as(out).isZero();
    Matcher counts = Pattern.compile("loaded (\\d+), not found (\\d+)").matcher(out);
    assertThat(counts.find()).as(out).isTrue();
    int loaded = Integer.parseInt(counts.group(1));
    int notFound = Integer.parseInt(counts.group(2));
    assertThat(loaded).as(out).isGreaterThan(9_000).isGreaterThan(19 * notFound);
    assertThat(Files.readAllLines(Repo.root().resolve(CLASS_LIST)))
        .noneMatch(l -> l.startsWith("@lambda-form-invoker"));
  }

  @Test
  void shouldListOnlyClassesTheProductJarHolds() throws IOException {
    // a class of the project renamed or removed since the list was made: regenerate the list
    // (docs/deploy.md, "Class-data sharing")
    List<String> lines = Files.readAllLines(Repo.root().resolve(CLASS_LIST));
    List<String> ours =
        lines.stream().filter(l -> l.startsWith("dev/skewer/")).map(l -> l.split(" ")[0]).toList();
    assertThat(ours)
        .as("the project's classes in the list")
        .contains(
            "dev/skewer/launcher/SkewerCli",
            "dev/skewer/launcher/cli/NodeCommand",
            "dev/skewer/launcher/cli/CoordinatorCommand",
            "dev/skewer/node/ingest/SourcePartitionTask",
            "dev/skewer/coordinator/merge/TumblingMerge");
    try (JarFile jar = new JarFile(Repo.productJar().toFile())) {
      List<String> missing = ours.stream().filter(c -> jar.getEntry(c + ".class") == null).toList();
      assertThat(missing).as("listed, not in the product jar").isEmpty();
    }
  }

  @Test
  void shouldExposeThePortsTheChartUses() {
    List<String> exposed = List.of(DOCKERFILE.last("EXPOSE").arguments().split("\\s+"));
    var chart = RenderedChart.defaults();
    for (String component : List.of("node", "coordinator")) {
      var c = chart.statefulSet(component).getSpec().getTemplate().getSpec().getContainers().get(0);
      c.getPorts()
          .forEach(p -> assertThat(exposed).contains(Integer.toString(p.getContainerPort())));
    }
  }

  @Test
  void shouldShipTheCliWithoutTheTestBroker() throws IOException {
    try (JarFile jar = new JarFile(Repo.productJar().toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo("dev.skewer.launcher.SkewerCli");
      // the image's Java 25 lets lz4 load its native library without a warning
      assertThat(jar.getManifest().getMainAttributes().getValue("Enable-Native-Access"))
          .isEqualTo("ALL-UNNAMED");
      List<String> broker =
          jar.stream()
              .map(e -> e.getName())
              .filter(
                  n ->
                      n.equals("kafka/Kafka.class")
                          || n.startsWith("kafka/server/")
                          || n.startsWith("org/apache/kafka/raft/")
                          || n.startsWith("dev/skewer/testkit/"))
              .limit(5)
              .collect(Collectors.toList());
      assertThat(broker).as("broker or test-kit classes in the product jar").isEmpty();
    }
    assertThat(CliModel.ofSkewer().subcommands().keySet())
        .contains("node", "coordinator", "loadgen", "reconcile")
        .doesNotContain("broker");
  }

  @Test
  void shouldBuildTheSameImageWithJib() throws Exception {
    Element plugin = jibPlugin();
    Element config = child(plugin, "configuration");
    assertThat(text(child(child(config, "from"), "image")))
        .isEqualTo(DOCKERFILE.last("FROM").arguments());
    Element container = child(config, "container");
    // the same entrypoint but for the cache, which Jib cannot write (it runs nothing at build)
    List<String> withoutCache =
        DOCKERFILE.execForm("ENTRYPOINT").stream()
            .filter(a -> !a.startsWith(LocalImage.CACHE_FLAG))
            .toList();
    assertThat(texts(child(container, "entrypoint"), "arg")).isEqualTo(withoutCache);
    assertThat(texts(child(container, "args"), "arg")).isEqualTo(DOCKERFILE.execForm("CMD"));
    assertThat(text(child(container, "user"))).isEqualTo(DOCKERFILE.last("USER").arguments());
    assertThat(text(child(container, "workingDirectory")))
        .isEqualTo(DOCKERFILE.last("WORKDIR").arguments());
    assertThat(text(child(child(container, "environment"), "JDK_JAVA_OPTIONS")))
        .isEqualTo(DOCKERFILE.env().get("JDK_JAVA_OPTIONS"));
    assertThat(texts(child(container, "ports"), "port"))
        .containsExactly(DOCKERFILE.last("EXPOSE").arguments().split("\\s+"));
    // the shaded jar goes where the entrypoint runs it, and nothing else of the project
    Element path = child(child(child(config, "extraDirectories"), "paths"), "path");
    String jar = jarInImage();
    assertThat(text(child(path, "from"))).isEqualTo("${project.build.directory}");
    assertThat(text(child(path, "includes"))).isEqualTo(Path.of(jar).getFileName().toString());
    assertThat(text(child(path, "into"))).isEqualTo(Path.of(jar).getParent().toString());
    assertThat(config.getElementsByTagName("glob").item(0).getTextContent()).isEqualTo("/app/**");
  }

  // --- helpers -------------------------------------------------------------------------------

  /** Whether {@code path} is in the build context: .dockerignore patterns, the last match wins. */
  static boolean inContext(String path) throws IOException {
    boolean included = true;
    for (String line : Files.readAllLines(Repo.root().resolve(".dockerignore"))) {
      String pattern = line.strip();
      if (pattern.isEmpty() || pattern.startsWith("#")) {
        continue;
      }
      boolean negated = pattern.startsWith("!");
      PathMatcher m =
          FileSystems.getDefault()
              .getPathMatcher("glob:" + (negated ? pattern.substring(1) : pattern));
      // a pattern matching a parent directory excludes everything under it
      for (Path p = Path.of(path); p != null; p = p.getParent()) {
        if (m.matches(p)) {
          included = negated;
          break;
        }
      }
    }
    return included;
  }

  /** The jib-maven-plugin of the launcher's {@code jib} profile (and that it is opt-in). */
  static Element jibPlugin() throws Exception {
    var factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document pom =
        factory.newDocumentBuilder().parse(Repo.root().resolve("launcher/pom.xml").toFile());
    NodeList profiles = pom.getElementsByTagName("profile");
    for (int i = 0; i < profiles.getLength(); i++) {
      Element profile = (Element) profiles.item(i);
      if (text(child(profile, "id")).equals("jib")) {
        assertThat(profile.getElementsByTagName("activation").getLength()).as("opt-in").isZero();
        NodeList plugins = profile.getElementsByTagName("plugin");
        for (int j = 0; j < plugins.getLength(); j++) {
          Element plugin = (Element) plugins.item(j);
          if (text(child(plugin, "artifactId")).equals("jib-maven-plugin")) {
            return plugin;
          }
        }
      }
    }
    throw new AssertionError("launcher/pom.xml has no jib profile with the jib-maven-plugin");
  }

  static Element child(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    throw new AssertionError("<" + parent.getTagName() + "> has no <" + name + ">");
  }

  static String text(Element e) {
    return e.getTextContent().strip();
  }

  static List<String> texts(Element parent, String name) {
    List<String> out = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        out.add(text(e));
      }
    }
    return out;
  }
}
