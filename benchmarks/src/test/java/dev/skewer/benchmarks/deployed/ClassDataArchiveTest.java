package dev.skewer.benchmarks.deployed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ClassDataArchiveTest {

  @Test
  void shouldDumpTheListedClassesIntoAnArchiveTheFlagMaps(@TempDir Path dir) throws Exception {
    // given a list of a few classes and a jar (picocli's, on this class path)
    Path list = dir.resolve("some.classlist");
    Files.write(list, List.of("# a comment", "java/lang/Object", "picocli/CommandLine"));
    Path jar =
        Path.of(CommandLine.class.getProtectionDomain().getCodeSource().getLocation().toURI());

    // when
    String flag = ClassDataArchive.dump(jar, list, dir.resolve("cds"));

    // then
    assertThat(flag).isEqualTo("-XX:SharedArchiveFile=" + dir.resolve("cds/skewer.jsa"));
    assertThat(dir.resolve("cds/skewer.jsa")).isNotEmptyFile();
  }

  @Test
  void shouldSayWhatIsMissingWithoutAClassList(@TempDir Path dir) {
    assertThatThrownBy(() -> ClassDataArchive.dump(dir.resolve("x.jar"), dir.resolve("none"), dir))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no class list at " + dir.resolve("none"))
        .hasMessageContaining("--no-cds");
  }

  @Test
  void shouldReportTheDumpsOwnErrorWhenItFails(@TempDir Path dir) throws Exception {
    // given a class list the JVM cannot read (a line cut short)
    Path list = dir.resolve("some.classlist");
    Files.write(list, List.of("java/lang/Object", "@lambda-proxy java/lang/Object"));
    Path jar =
        Path.of(CommandLine.class.getProtectionDomain().getCodeSource().getLocation().toURI());

    // then the dump's failure comes back with its message and its output's file
    assertThatThrownBy(() -> ClassDataArchive.dump(jar, list, dir.resolve("cds")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the CDS dump exited 1")
        .hasMessageContaining("class list format error")
        .hasMessageContaining("cds-dump.log");
  }

  @Test
  void shouldAddTheFlagOnlyWithCds(@TempDir Path dir) {
    ClassDataOptions off = new ClassDataOptions();
    new CommandLine(new Holder(off)).parseArgs("--no-cds");
    assertThat(off.withArchive(List.of("-Xmx1g"), dir.resolve("x.jar"), dir))
        .containsExactly("-Xmx1g");
    assertThat(off.describe()).isEqualTo("no CDS archive");
    ClassDataOptions byDefault = new ClassDataOptions();
    new CommandLine(new Holder(byDefault)).parseArgs();
    assertThat(byDefault.cds).isTrue();
    assertThat(byDefault.classList).isEqualTo(Path.of(ClassDataArchive.DEFAULT_CLASS_LIST));
    ClassDataOptions on = new ClassDataOptions();
    new CommandLine(new Holder(on)).parseArgs("--cds");
    assertThat(on.cds).isTrue();
  }

  @CommandLine.Command(name = "holder")
  static final class Holder {
    @CommandLine.Mixin final ClassDataOptions options;

    Holder(ClassDataOptions options) {
      this.options = options;
    }
  }
}
