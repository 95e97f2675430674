package dev.skewer.k8s;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The chart rendered by {@code helm template} (the helm bundled in helm-java) for one value set,
 * every document parsed strictly into fabric8's model ({@link StrictManifests}).
 *
 * @param valueSet the value set's name ({@code default} for the chart's own values)
 * @param yaml what helm printed
 * @param objects the parsed objects, in order
 */
record RenderedChart(String valueSet, String yaml, List<HasMetadata> objects) {

  static final String RELEASE = "skw";
  static final String NAMESPACE = "streams";

  /** The Kubernetes version templates render for (the oldest the chart supports is 1.25). */
  static final String KUBE_VERSION = "1.31.0";

  /** Renders the chart with its default values. */
  static RenderedChart defaults() {
    return render("default", null, Map.of());
  }

  /** Renders the chart with {@code k8s-checks/src/test/resources/values/<name>.yaml}. */
  static RenderedChart valueSet(String name) {
    return render(name, Repo.valueSet(name), Map.of());
  }

  /**
   * Renders the chart with an optional values file and {@code --set} pairs; throws {@link
   * IllegalStateException} with helm's message when the render fails.
   */
  static RenderedChart render(String name, Path valuesFile, Map<String, Object> sets) {
    String yaml = template(valuesFile, sets);
    return new RenderedChart(name, yaml, StrictManifests.parseAll(yaml));
  }

  /** {@code helm template} output, or IllegalStateException with helm's error. */
  static String template(Path valuesFile, Map<String, Object> sets) {
    return template(RELEASE, NAMESPACE, valuesFile, sets);
  }

  /** {@code helm template} of release {@code release} in {@code namespace}. */
  static String template(
      String release, String namespace, Path valuesFile, Map<String, Object> sets) {
    var command =
        new Helm(Repo.chart())
            .template()
            .withName(release)
            .withNamespace(namespace)
            .withKubeVersion(KUBE_VERSION);
    if (valuesFile != null) {
      command = command.withValuesFile(valuesFile);
    }
    for (Map.Entry<String, Object> e : sets.entrySet()) {
      command = command.set(e.getKey(), e.getValue());
    }
    return command.call();
  }

  <T extends HasMetadata> List<T> all(Class<T> kind) {
    return objects.stream().filter(kind::isInstance).map(kind::cast).collect(Collectors.toList());
  }

  <T extends HasMetadata> Optional<T> find(Class<T> kind, String name) {
    return all(kind).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst();
  }

  <T extends HasMetadata> T get(Class<T> kind, String name) {
    return find(kind, name)
        .orElseThrow(
            () ->
                new AssertionError(
                    valueSet + ": no " + kind.getSimpleName() + " " + name + " in " + names()));
  }

  StatefulSet statefulSet(String component) {
    return get(StatefulSet.class, RELEASE + "-skewer-" + component);
  }

  ConfigMap config() {
    return get(ConfigMap.class, RELEASE + "-skewer-config");
  }

  /** Every pod spec: the StatefulSets', the Jobs' and the CronJobs'. */
  List<PodSpec> podSpecs() {
    List<PodSpec> specs = new ArrayList<>();
    all(StatefulSet.class).forEach(s -> specs.add(s.getSpec().getTemplate().getSpec()));
    all(Job.class).forEach(j -> specs.add(j.getSpec().getTemplate().getSpec()));
    all(CronJob.class)
        .forEach(c -> specs.add(c.getSpec().getJobTemplate().getSpec().getTemplate().getSpec()));
    return specs;
  }

  /** The reconcile CronJob, if the values enable it. */
  Optional<CronJob> reconcile() {
    return find(CronJob.class, RELEASE + "-skewer-reconcile");
  }

  /** Every container of every pod spec. */
  List<Container> containers() {
    return podSpecs().stream()
        .flatMap(p -> p.getContainers().stream())
        .collect(Collectors.toList());
  }

  /** {@code Kind/name} of every object, for messages. */
  List<String> names() {
    return objects.stream()
        .map(o -> o.getKind() + "/" + o.getMetadata().getName())
        .collect(Collectors.toList());
  }
}
