package dev.skewer.benchmarks.profile;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileSummaryTest {

  private static final String ENCODE = "dev.skewer.sketches.AggregateCodec.encode";
  private static final String SORT = "java.util.DualPivotQuicksort.sort";

  @Test
  void shouldCountC2sRecompilationsApartFromOnStackReplacementAndOverloads() {
    ProfileSummary.Profile p = new ProfileSummary.Profile();

    ProfileSummary.compilation(p, 3, ENCODE, "(LA;)[B", false, ms(10));
    ProfileSummary.compilation(p, 4, ENCODE, "(LA;)[B", true, ms(100)); // OSR first
    ProfileSummary.compilation(p, 4, ENCODE, "(LA;)[B", false, ms(200));
    ProfileSummary.compilation(p, 4, ENCODE, "(LA;)[B", false, ms(300)); // after a deopt
    ProfileSummary.compilation(p, 4, SORT, "([I)V", false, ms(40));
    ProfileSummary.compilation(p, 4, SORT, "([D)V", false, ms(50)); // an overload: not again

    assertThat(p.compilations).isEqualTo(6);
    assertThat(p.compileByTier).containsEntry("C1 (level 3)", ms(10));
    assertThat(p.compileByTier).containsEntry("C2 (level 4)", ms(690));
    assertThat(p.c2Osr).isEqualTo(1);
    assertThat(p.c2OsrTime).isEqualTo(ms(100));
    assertThat(p.c2Again).isEqualTo(1);
    assertThat(p.c2AgainTime).isEqualTo(ms(300));
    assertThat(p.c2CompilationsByMethod).containsEntry(ENCODE, 3L).containsEntry(SORT, 2L);
    assertThat(p.c2ByComponent)
        .containsEntry("sketches", ms(600))
        .containsEntry("JDK/other", ms(90));
  }

  @Test
  void shouldReadEveryCompilationAndTheThresholdFromARecording(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("jit.jfr");
    try (Recording recording = new Recording()) {
      recording.enable("jdk.ActiveSetting"); // as settings=profile does
      recording.enable("jdk.Compilation").withThreshold(Duration.ZERO);
      recording.start();
      long sum = 0;
      for (int i = 0; i < 200_000; i++) {
        sum += hot(i);
      }
      assertThat(sum).isNotZero();
      recording.stop();
      recording.dump(file);
    }
    assertThat(Files.size(file)).isPositive();

    ProfileSummary.Profile p = ProfileSummary.read(file);

    assertThat(p.compilationThreshold).isEqualTo("0 ns");
    assertThat(p.compilations).isPositive();
    assertThat(p.compilationsByTier.values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(p.compilations);
  }

  private static long hot(int i) {
    return (i * 31L) ^ (i >>> 3);
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
