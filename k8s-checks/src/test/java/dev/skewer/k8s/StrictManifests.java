package dev.skewer.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses rendered manifests strictly as Kubernetes objects with fabric8's model: a type error fails
 * the parse; a kind the model does not know (it would come back as a {@link
 * GenericKubernetesResource}) fails; and a field the model does not know — which fabric8 keeps in
 * {@code getAdditionalProperties()} instead of failing — fails too, with its path, anywhere in the
 * object.
 */
final class StrictManifests {

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private StrictManifests() {}

  /**
   * Every document of a multi-document YAML stream (empty and comment-only documents skipped),
   * parsed strictly; {@link IllegalArgumentException} names the document and every problem.
   */
  static List<HasMetadata> parseAll(String yaml) {
    List<HasMetadata> objects = new ArrayList<>();
    for (String doc : documents(yaml)) {
      objects.add(parse(doc));
    }
    return objects;
  }

  /** One document, parsed strictly. */
  static HasMetadata parse(String doc) {
    Object parsed;
    try {
      parsed = SERIALIZATION.unmarshal(doc);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "does not parse as a Kubernetes object: " + e + "\n" + doc, e);
    }
    if (!(parsed instanceof HasMetadata object)) {
      throw new IllegalArgumentException("not a Kubernetes object: " + parsed + "\n" + doc);
    }
    if (object instanceof GenericKubernetesResource) {
      throw new IllegalArgumentException(
          "unknown kind " + object.getApiVersion() + "/" + object.getKind() + "\n" + doc);
    }
    List<String> unknown = unknownFields(object);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          object.getKind() + "/" + object.getMetadata().getName() + ": unknown fields " + unknown);
    }
    return object;
  }

  /** The non-empty documents of a YAML stream. */
  static List<String> documents(String yaml) {
    List<String> docs = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : yaml.split("\n", -1)) {
      if (line.equals("---") || line.startsWith("--- ")) {
        add(docs, current);
        current.setLength(0);
      } else {
        current.append(line).append('\n');
      }
    }
    add(docs, current);
    return docs;
  }

  private static void add(List<String> docs, StringBuilder doc) {
    boolean content =
        doc.toString().lines().anyMatch(l -> !l.isBlank() && !l.stripLeading().startsWith("#"));
    if (content) {
      docs.add(doc.toString());
    }
  }

  /** The paths of every field the model did not know, anywhere in {@code object}. */
  static List<String> unknownFields(Object object) {
    List<String> found = new ArrayList<>();
    walk(object, "", found, Collections.newSetFromMap(new IdentityHashMap<>()));
    return found;
  }

  private static void walk(Object o, String path, List<String> found, Set<Object> seen) {
    if (o == null
        || o instanceof String
        || o instanceof Number
        || o instanceof Boolean
        || o instanceof Enum<?>
        || !seen.add(o)) {
      return;
    }
    if (o instanceof Map<?, ?> map) {
      map.forEach((k, v) -> walk(v, path + "." + k, found, seen));
      return;
    }
    if (o instanceof Collection<?> list) {
      int i = 0;
      for (Object item : list) {
        walk(item, path + "[" + i++ + "]", found, seen);
      }
      return;
    }
    if (!o.getClass().getName().startsWith("io.fabric8.")) {
      return;
    }
    for (Method m : o.getClass().getMethods()) {
      if (m.getParameterCount() != 0
          || Modifier.isStatic(m.getModifiers())
          || m.getDeclaringClass() == Object.class
          || !(m.getName().startsWith("get") || m.getName().startsWith("is"))) {
        continue;
      }
      Object value;
      try {
        value = m.invoke(o);
      } catch (IllegalAccessException | InvocationTargetException e) {
        continue; // a computed accessor that does not apply to this value
      }
      if (m.getName().equals("getAdditionalProperties")) {
        if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
          extra.keySet().forEach(k -> found.add(path + "." + k));
        }
        continue;
      }
      walk(value, path + "." + property(m.getName()), found, seen);
    }
  }

  private static String property(String getter) {
    String name = getter.startsWith("is") ? getter.substring(2) : getter.substring(3);
    return name.isEmpty() ? name : Character.toLowerCase(name.charAt(0)) + name.substring(1);
  }
}
