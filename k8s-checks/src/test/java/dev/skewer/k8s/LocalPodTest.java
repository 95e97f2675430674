package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.job.JobSpecLoader;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kubelet emulation of the chart-driven test: what it makes of a rendered StatefulSet. */
class LocalPodTest {

  @Test
  void shouldRunTheImageEntrypointWithTheContainersArgsAndEnvironment(@TempDir Path pods)
      throws Exception {
    // given
    RenderedChart chart = RenderedChart.defaults();
    Dockerfile image = Dockerfile.read(Repo.root().resolve("Dockerfile"));

    // when
    LocalPod pod =
        LocalPod.of(chart.statefulSet("node"), 1, "10.1.2.3", chart.config(), image, pods);

    // then the command is the java of the image's release, the memory limit, the entrypoint on
    // the product jar and the cache written as the image's build writes it with the flag it is
    // written with, the args (without a JVM of that release here: this JVM, without either)
    assertThat(pod.name()).isEqualTo("skw-skewer-node-1");
    List<String> cacheFlag =
        LocalImage.java(image).isPresent()
            ? List.of("-XX:AOTCache=" + LocalImage.cache(image), LocalImage.COMPACT_HEADERS)
            : List.of();
    assertThat(pod.command().get(0))
        .isEqualTo(
            LocalImage.java(image)
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java"))
                .toString());
    List<String> expected = new java.util.ArrayList<>(List.of("-XX:MaxRAM=1073741824"));
    expected.addAll(cacheFlag);
    expected.addAll(List.of("-jar", Repo.productJar().toString(), "node"));
    assertThat(pod.command().subList(1, pod.command().size())).isEqualTo(expected);
    cacheFlag.stream()
        .filter(flag -> flag.startsWith(LocalImage.CACHE_FLAG))
        .forEach(
            flag ->
                assertThat(Path.of(flag.substring(LocalImage.CACHE_FLAG.length())))
                    .isRegularFile());
    // the environment is the image's, overlaid by the container's, fieldRefs resolved
    Map<String, String> env = pod.environment();
    assertThat(env)
        .containsEntry("HOSTNAME", "skw-skewer-node-1")
        .containsEntry("POD_IP", "10.1.2.3")
        .containsEntry("SKEWER_PUBLIC_ADDRESS", "10.1.2.3");
    assertThat(env.get("JDK_JAVA_OPTIONS"))
        .contains("-Djava.io.tmpdir=" + pods.resolve("skw-skewer-node-1/tmp"))
        .doesNotContain("tmpdir=/tmp ", "cacheDirBase=/tmp/vertx-cache");
    // with the image's Java warnings option only on a JVM that knows it
    assertThat(env.get("JDK_JAVA_OPTIONS").split(" "))
        .filteredOn(LocalImage.UNSAFE_ALLOWED::equals)
        .hasSize(LocalImage.java(image).isPresent() ? 1 : 0);
    // files are where the environment points, with the ConfigMap's content
    Path job = Path.of(env.get("SKEWER_JOB"));
    assertThat(job).startsWith(pods).exists();
    assertThat(Files.readString(job)).isEqualTo(chart.config().getData().get("job.yaml"));
    assertThat(JobSpecLoader.load(job, env).name()).isEqualTo("ad_clicks");
    assertThat(Path.of(env.get("SKEWER_KAFKA_CONFIG"))).exists();
    assertThat(pods.resolve("skw-skewer-node-1/tmp")).isDirectory();
  }

  @Test
  void shouldDropTheJavaOptionsAnOlderReleaseRefusesAndKeepTheRest() {
    String options = "-XX:+UseParallelGC " + LocalImage.UNSAFE_ALLOWED + " -Djava.io.tmpdir=/x";
    assertThat(LocalImage.javaOptionsFor(options, 25)).isEqualTo(options);
    assertThat(LocalImage.javaOptionsFor(options, 23)).isEqualTo(options);
    assertThat(LocalImage.javaOptionsFor(options, 17))
        .isEqualTo("-XX:+UseParallelGC -Djava.io.tmpdir=/x");
    // and the compact object headers the cache is written with: a product flag since Java 25
    assertThat(LocalImage.knownTo(LocalImage.COMPACT_HEADERS, 25)).isTrue();
    assertThat(LocalImage.knownTo(LocalImage.COMPACT_HEADERS, 24)).isFalse();
    assertThat(LocalImage.knownTo(LocalImage.COMPACT_HEADERS, 17)).isFalse();
    assertThat(LocalImage.knownTo("-jar", 17)).isTrue();
  }

  @Test
  void shouldExpandVariableReferencesAsTheKubeletDoes() {
    var vars =
        List.of(
            new EnvVar("A", "x", null),
            new EnvVar("B", "$(A)-$(C)-$$(A)-$(A", null),
            new EnvVar("C", "late", null),
            new EnvVar("D", "$(C)", null));
    assertThat(LocalPod.environment(vars, "p", "10.0.0.1"))
        .containsExactly(
            Map.entry("A", "x"),
            // defined later: left as written; $$ escapes; an unclosed reference is text
            Map.entry("B", "x-$(C)-$(A)-$(A"),
            Map.entry("C", "late"),
            Map.entry("D", "late"));
  }

  @Test
  void shouldRewriteOnlyWholeMountPaths() {
    Map<String, Path> mounts = Map.of("/tmp", Path.of("/x/tmp"), "/etc/skewer", Path.of("/x/etc"));
    assertThat(LocalPod.local("/etc/skewer/job.yaml", mounts)).isEqualTo("/x/etc/job.yaml");
    assertThat(LocalPod.local("-Da=/tmp -Db=/tmp/v", mounts)).isEqualTo("-Da=/x/tmp -Db=/x/tmp/v");
    assertThat(LocalPod.local("/tmpfoo /etc/skewerx", mounts)).isEqualTo("/tmpfoo /etc/skewerx");
  }
}
