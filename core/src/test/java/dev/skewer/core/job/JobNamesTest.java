package dev.skewer.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class JobNamesTest {

  private static final Pattern KAFKA_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  private static List<String> all(JobNames n) {
    return List.of(
        n.hazelcastClusterName(),
        n.checkpointsMap(),
        n.checkpointChunksMap(),
        n.epochsMap(),
        n.hotKeysMap(),
        n.hotKeyReportsMap(),
        n.partialsTopic(),
        n.checkpointsTopic(),
        n.hotKeysTopic(),
        n.nodesGroup(),
        n.coordinatorsGroup());
  }

  @Test
  void shouldKeepASafeNameAsItIs() {
    JobNames n = JobNames.of("ad_clicks");
    assertThat(n.id()).isEqualTo("ad_clicks");
    assertThat(n.partialsTopic()).isEqualTo("skewer.ad_clicks.partials");
    assertThat(n.checkpointsTopic()).isEqualTo("skewer.ad_clicks.checkpoints");
    assertThat(n.hotKeysTopic()).isEqualTo("skewer.ad_clicks.hotkeys");
    assertThat(n.hazelcastClusterName()).isEqualTo("skewer-ad_clicks");
    assertThat(n.nodesGroup()).isEqualTo("skewer-ad_clicks-nodes");
    assertThat(n.coordinatorsGroup()).isEqualTo("skewer-ad_clicks-coordinators");
    assertThat(n.checkpointsMap()).isEqualTo("skewer.ad_clicks.checkpoints");
  }

  @Test
  void shouldGiveTwoJobsDisjointNames() {
    List<String> a = all(JobNames.of("a"));
    List<String> b = all(JobNames.of("b"));
    assertThat(a).doesNotContainAnyElementsOf(b);
  }

  @Test
  void shouldReplaceRefusedCharactersAndKeepNamesDistinct() {
    JobNames spaced = JobNames.of("ad clicks/é.v2");
    JobNames underscored = JobNames.of("ad_clicks__.v2");
    assertThat(spaced.id()).matches("ad_clicks___v2-[0-9a-f]{8}");
    assertThat(spaced.id()).isNotEqualTo(underscored.id());
    assertThat(spaced.id()).isEqualTo(JobNames.of("ad clicks/é.v2").id()); // stable
    for (String name : List.of(spaced.partialsTopic(), underscored.hotKeysTopic())) {
      assertThat(name).matches(KAFKA_TOPIC);
    }
  }

  @Test
  void shouldKeepTopicsLegalForTheLongestJobName() {
    JobNames n = JobNames.of("x".repeat(256));
    assertThat(n.id()).hasSize(JobNames.MAX_ID_LENGTH + 9);
    assertThat(n.checkpointsTopic()).matches(KAFKA_TOPIC);
    assertThat(n.id()).isNotEqualTo(JobNames.of("x".repeat(255)).id());
  }

  @Test
  void shouldRefuseABlankName() {
    assertThatThrownBy(() -> JobNames.of(" ")).hasMessageContaining("jobName");
  }

  @Test
  void shouldDerivePartialsFromTheJobUnlessTheFileSetsIt() {
    JobSpec derived = JobSpecLoader.parse(JobSpecLoaderTest.MINIMAL, Map.of());
    assertThat(derived.topics().partials()).isEqualTo("skewer.clicks.partials");
    JobSpec renamed = JobSpecLoader.parse(JobSpecLoaderTest.MINIMAL, Map.of("SKEWER_NAME", "v2"));
    assertThat(renamed.topics().partials()).isEqualTo("skewer.v2.partials");
    JobSpec explicit =
        JobSpecLoader.parse(JobSpecLoaderTest.MINIMAL + "topics:\n  partials: p\n", Map.of());
    assertThat(explicit.topics().partials()).isEqualTo("p");
    JobSpec withOtherTopics =
        JobSpecLoader.parse(JobSpecLoaderTest.MINIMAL + "topics:\n  events: e\n", Map.of());
    assertThat(withOtherTopics.topics().partials()).isEqualTo("skewer.clicks.partials");
  }
}
