package dev.skewer.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.coordinator.CoordinatorMetrics;
import dev.skewer.node.ingest.NodeMetrics;
import dev.skewer.stage.StageMetrics;
import io.vertx.core.json.JsonObject;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Grafana dashboard in k8s/grafana queries only metrics the processes register. */
class GrafanaDashboardTest {

  private static final Pattern METRIC = Pattern.compile("\\bskewer_[a-z0-9_]+");
  private static final String[] SUFFIXES = {
    "_total", "_sum", "_count", "_max", "_seconds", "_milliseconds", "_bytes"
  };

  @Test
  void shouldQueryOnlyMetricsTheNodesAndCoordinatorsRegister() throws Exception {
    Set<String> registered = new HashSet<>();
    for (Class<?> c :
        new Class<?>[] {NodeMetrics.class, CoordinatorMetrics.class, StageMetrics.class}) {
      for (Field f : c.getFields()) {
        if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
          registered.add((String) f.get(null));
        }
      }
    }
    JsonObject dashboard =
        new JsonObject(Files.readString(Path.of("..", "k8s", "grafana", "skewer-dashboard.json")));
    Set<String> queried = new HashSet<>();
    for (Object p : dashboard.getJsonArray("panels")) {
      JsonObject panel = (JsonObject) p;
      assertThat(panel.getJsonArray("targets")).as(panel.getString("title")).isNotEmpty();
      for (Object t : panel.getJsonArray("targets")) {
        Matcher m = METRIC.matcher(((JsonObject) t).getString("expr"));
        while (m.find()) {
          queried.add(dotted(m.group()));
        }
      }
    }
    assertThat(queried).isNotEmpty();
    assertThat(registered).containsAll(queried);
    assertThat(queried).contains("skewer.events.in", "skewer.events.late", "skewer.events.dlq");
  }

  /** A Prometheus series name back to the Micrometer name it renders. */
  private static String dotted(String prometheus) {
    String name = prometheus;
    boolean stripped = true;
    while (stripped) {
      stripped = false;
      for (String s : SUFFIXES) {
        if (name.endsWith(s)) {
          name = name.substring(0, name.length() - s.length());
          stripped = true;
        }
      }
    }
    return name.replace('_', '.');
  }
}
