package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import org.junit.jupiter.api.Test;

/** The strict parser itself: what it must refuse (so that a chart passing it means something). */
class StrictManifestsTest {

  static final String STATEFUL_SET =
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: s
      spec:
        serviceName: h
        selector:
          matchLabels: {a: b}
        template:
          metadata:
            labels: {a: b}
          spec:
            containers:
              - name: c
                image: i
                %s
      """;

  @Test
  void shouldParseAKnownObject() {
    assertThat(StrictManifests.parse(STATEFUL_SET.formatted("args: [node]")))
        .isInstanceOf(StatefulSet.class);
  }

  @Test
  void shouldRefuseAnUnknownFieldDeepInTheObject() {
    assertThatThrownBy(() -> StrictManifests.parse(STATEFUL_SET.formatted("argz: [node]")))
        .hasMessageContaining("unknown fields")
        .hasMessageContaining(".spec.template.spec.containers[0].argz");
  }

  @Test
  void shouldRefuseAWronglyTypedField() {
    assertThatThrownBy(
            () -> StrictManifests.parse(STATEFUL_SET.formatted("ports: [{containerPort: [1]}]")))
        .hasMessageContaining("does not parse");
  }

  @Test
  void shouldRefuseAnUnknownKind() {
    assertThatThrownBy(
            () ->
                StrictManifests.parse(
                    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"))
        .hasMessageContaining("unknown kind example.com/v1/Widget");
  }

  @Test
  void shouldSplitAStreamAndSkipCommentOnlyDocuments() {
    String stream =
        "---\n# Source: a\n---\n"
            + STATEFUL_SET.formatted("args: [node]")
            + "---\n# only a comment\n";
    assertThat(StrictManifests.parseAll(stream)).hasSize(1);
  }
}
