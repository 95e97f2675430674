package dev.skewer.k8s;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a kubelet would run for one pod of a rendered StatefulSet, as a local process: the image's
 * entrypoint (from the repository's Dockerfile) followed by the container's args, with the image's
 * environment overlaid by the container's ({@code fieldRef}s resolved: {@code status.podIP} to the
 * pod's address, {@code metadata.name} to its name; {@code $(VAR)} references expanded in values
 * and args as the kubelet expands them) and {@code HOSTNAME} set to the pod name.
 *
 * <p>Files are where the container would see them, mapped into a directory per pod: the ConfigMap's
 * keys are written under the mount path, an emptyDir is an empty directory, and every path under a
 * mount (in args and environment values) is rewritten to its local place; the image's own files are
 * their local counterparts ({@link LocalImage}: the jar is the product jar {@code ./mvnw package}
 * built, the AOT cache one written here as the image's build writes it, mapped by a local JVM of
 * the image's Java release; without one, the test's JVM runs the pod without the cache, and without
 * the image's JVM options its release does not know). The container's memory limit becomes {@code
 * -XX:MaxRAM} (what the JVM would read from the cgroup), so the image's {@code MaxRAMPercentage}
 * sizes the heap as it would in the pod. Nothing else is added or changed.
 *
 * @param name the pod name ({@code <statefulset>-<ordinal>})
 * @param command the command line
 * @param environment the environment
 * @param root the pod's directory (its mounted files)
 */
record LocalPod(String name, List<String> command, Map<String, String> environment, Path root) {

  /** The image's jar path in the entrypoint. */
  static final String IMAGE_JAR = "/opt/skewer/skewer.jar";

  private static final String JAVA_OPTIONS = "JDK_JAVA_OPTIONS";

  /**
   * The pod {@code ordinal} of {@code set}, on address {@code podIp}, its files under {@code
   * podsDir/<pod name>}.
   */
  static LocalPod of(
      StatefulSet set,
      int ordinal,
      String podIp,
      ConfigMap config,
      Dockerfile image,
      Path podsDir) {
    return of(
        set.getMetadata().getName() + "-" + ordinal,
        set.getSpec().getTemplate().getSpec(),
        podIp,
        config,
        image,
        podsDir);
  }

  /** The pod {@code name} of {@code pod} (a Job's or CronJob's template), as {@link #of}. */
  static LocalPod of(
      String name, PodSpec pod, String podIp, ConfigMap config, Dockerfile image, Path podsDir) {
    if (pod.getContainers().size() != 1
        || pod.getInitContainers() != null && !pod.getInitContainers().isEmpty()) {
      throw new IllegalArgumentException(name + ": one container and no init containers expected");
    }
    Container c = pod.getContainers().get(0);
    Path root = podsDir.resolve(name);
    Map<String, Path> mounts = mount(pod, c, config, root);

    // the image: ENTRYPOINT ["java", <cache flag>, <flag written into the cache>, "-jar", <jar>]
    // with the container's args (no command override), the image's files made local (LocalImage),
    // run by a JVM of the image's release; where this machine has none, by this test's JVM without
    // the cache (which only a JVM of the image's release can map) and the flags it does not know
    if (c.getCommand() != null && !c.getCommand().isEmpty()) {
      throw new IllegalArgumentException(name + ": the container overrides the entrypoint");
    }
    List<String> entrypoint = image.execForm("ENTRYPOINT");
    Optional<Path> imageJava = LocalImage.java(image);
    List<String> command = new ArrayList<>();
    command.add(
        imageJava.orElse(Paths.get(System.getProperty("java.home"), "bin", "java")).toString());
    Quantity memory = c.getResources().getLimits().get("memory");
    command.add("-XX:MaxRAM=" + Quantity.getAmountInBytes(memory).longValueExact());
    for (String arg : entrypoint.subList(1, entrypoint.size())) {
      if (arg.startsWith(LocalImage.CACHE_FLAG)) {
        if (imageJava.isPresent()) {
          command.add(LocalImage.CACHE_FLAG + LocalImage.cache(image));
        }
        continue;
      }
      if (imageJava.isEmpty() && !LocalImage.knownTo(arg, Runtime.version().feature())) {
        continue;
      }
      command.add(LocalImage.local(image, arg));
    }
    Map<String, String> containerEnv = environment(c.getEnv(), name, podIp);
    for (String arg : c.getArgs()) {
      command.add(local(expand(arg, containerEnv), mounts));
    }

    Map<String, String> env = new LinkedHashMap<>();
    image.env().forEach((k, v) -> env.put(k, local(v, mounts)));
    env.put("HOSTNAME", name);
    containerEnv.forEach((k, v) -> env.put(k, local(v, mounts)));
    if (imageJava.isEmpty() && env.containsKey(JAVA_OPTIONS)) {
      env.put(
          JAVA_OPTIONS,
          LocalImage.javaOptionsFor(env.get(JAVA_OPTIONS), Runtime.version().feature()));
    }
    return new LocalPod(name, List.copyOf(command), Map.copyOf(env), root);
  }

  /**
   * A container's environment as the kubelet hands it to the process, in order: {@code fieldRef}s
   * resolved ({@code status.podIP} to {@code podIp}, {@code metadata.name} to {@code podName}), and
   * {@code $(VAR)} in a value expanded from the variables defined before it ({@code $$} is a
   * literal {@code $}; an unknown reference stays as written).
   */
  static Map<String, String> environment(List<EnvVar> vars, String podName, String podIp) {
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar e : vars) {
      String value;
      if (e.getValueFrom() != null) {
        if (e.getValueFrom().getFieldRef() == null) {
          throw new IllegalArgumentException(
              podName + ": unsupported env source for " + e.getName());
        }
        String field = e.getValueFrom().getFieldRef().getFieldPath();
        value =
            switch (field) {
              case "status.podIP" -> podIp;
              case "metadata.name" -> podName;
              default ->
                  throw new IllegalArgumentException(podName + ": unsupported fieldRef " + field);
            };
      } else {
        value = expand(e.getValue() == null ? "" : e.getValue(), env);
      }
      env.put(e.getName(), value);
    }
    return env;
  }

  private static final Pattern REFERENCE =
      Pattern.compile("\\$\\$|\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  /** {@code text} with Kubernetes' {@code $(VAR)} references expanded from {@code vars}. */
  static String expand(String text, Map<String, String> vars) {
    Matcher m = REFERENCE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement;
      if (m.group(1) == null) {
        replacement = "$";
      } else {
        replacement = vars.getOrDefault(m.group(1), m.group());
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Writes the pod's volumes under {@code root}; returns mount path → local directory. */
  private static Map<String, Path> mount(PodSpec pod, Container c, ConfigMap config, Path root) {
    Map<String, Path> mounts = new LinkedHashMap<>();
    try {
      if (Files.exists(root)) {
        try (var files = Files.walk(root)) {
          files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
      for (VolumeMount m : c.getVolumeMounts()) {
        Volume v =
            pod.getVolumes().stream()
                .filter(x -> x.getName().equals(m.getName()))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no volume " + m.getName()));
        Path dir = root.resolve(m.getMountPath().substring(1));
        Files.createDirectories(dir);
        if (v.getConfigMap() != null) {
          if (!v.getConfigMap().getName().equals(config.getMetadata().getName())) {
            throw new IllegalArgumentException("unknown ConfigMap " + v.getConfigMap().getName());
          }
          for (Map.Entry<String, String> e : config.getData().entrySet()) {
            Files.writeString(dir.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
          }
        } else if (v.getEmptyDir() == null) {
          throw new IllegalArgumentException(
              "volume " + v.getName() + ": only ConfigMap and emptyDir volumes are emulated");
        }
        mounts.put(m.getMountPath(), dir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return mounts;
  }

  /**
   * {@code text} with every path under a mount rewritten to its local directory, in one pass (a
   * rewritten path is never rewritten again); the longest mount path wins.
   */
  static String local(String text, Map<String, Path> mounts) {
    if (mounts.isEmpty()) {
      return text;
    }
    List<String> paths = new ArrayList<>(mounts.keySet());
    paths.sort(Comparator.comparingInt(String::length).reversed());
    StringBuilder alternatives = new StringBuilder();
    for (String p : paths) {
      alternatives.append(alternatives.length() == 0 ? "" : "|").append(Pattern.quote(p));
    }
    Matcher m = Pattern.compile("(^|[=\\s:])(" + alternatives + ")(?=/|$|\\s)").matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(
          out, Matcher.quoteReplacement(m.group(1) + mounts.get(m.group(2)).toString()));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Starts the pod's process, launched through {@code prefix} (e.g. its network namespace). */
  HostProcess start(List<String> prefix) {
    List<String> full = new ArrayList<>(prefix);
    full.addAll(command);
    return HostProcess.start(name, full, environment, root.resolve("pod.log"));
  }
}
