package dev.skewer.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The harness's assumptions about signals on this platform: {@code destroyForcibly} is SIGKILL,
 * {@code destroy} is SIGTERM, {@code kill -STOP}/{@code -CONT} freeze and thaw, {@code kill -QUIT}
 * prints the threads' stacks (the thread dumps taken when a scenario fails), and {@link
 * OrphanGuard} takes a child down with its parent.
 */
class ChildSignalsTest {

  private final List<Process> started = new ArrayList<>();
  private final List<Long> grandchildren = new ArrayList<>();
  private final Map<Process, Long> grandchildLines = new HashMap<>();
  private final Map<Process, BufferedReader> readers = new HashMap<>();

  @AfterEach
  void killLeftovers() {
    started.forEach(Process::destroyForcibly);
    grandchildren.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
  }

  @Test
  void shouldDieOfSigkillWhenDestroyedForcibly() throws Exception {
    // given
    Process child = start(List.of());

    // when
    child.destroyForcibly();

    // then 128 + 9: the JDK reports death by signal as 128 + the signal number
    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).isEqualTo(SkewerProcess.SIGKILL_STATUS);
  }

  @Test
  void shouldDieOfSigtermWhenDestroyed() throws Exception {
    Process child = start(List.of());

    child.destroy();

    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).isEqualTo(128 + 15);
  }

  @Test
  void shouldFreezeOnStopAndThawOnCont() throws Exception {
    // given
    Process child = start(List.of());

    // when
    assertThat(UnixSignal.STOP.sendTo(child.pid())).isTrue();

    // then the kernel shows it stopped ('T'), and running or sleeping once continued
    await().atMost(Duration.ofSeconds(5)).until(() -> state(child.pid()) == 'T');
    assertThat(UnixSignal.CONT.sendTo(child.pid())).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> state(child.pid()) != 'T');
    assertThat(child.isAlive()).isTrue();
  }

  @Test
  void shouldPrintItsThreadsAndGoOnWhenSentSigquit() throws Exception {
    // given
    Process child = start(List.of());

    // when
    assertThat(UnixSignal.QUIT.sendTo(child.pid())).isTrue();

    // then the JVM prints a thread dump to its output, naming its main thread, and keeps running
    BufferedReader out = reader(child);
    List<String> dump = new ArrayList<>();
    String line;
    while ((line = out.readLine()) != null && !line.startsWith("JNI global refs")) {
      dump.add(line);
    }
    assertThat(dump).anyMatch(l -> l.startsWith("Full thread dump"));
    assertThat(dump).anyMatch(l -> l.startsWith("\"main\""));
    assertThat(child.isAlive()).isTrue();
  }

  @Test
  void shouldTakeTheGrandchildDownWhenItsParentIsKilled() throws Exception {
    // given a child that started a grandchild under OrphanGuard
    Process child = start(List.of("spawn"));
    long grandchild = grandchildPid(child);
    grandchildren.add(grandchild);
    assertThat(ProcessHandle.of(grandchild)).isPresent();

    // when its parent dies of SIGKILL (no shutdown hook runs)
    child.destroyForcibly();
    child.waitFor(10, TimeUnit.SECONDS);

    // then the orphan halts by itself (and may linger as a zombie until init reaps it)
    await().atMost(Duration.ofSeconds(15)).until(() -> !running(grandchild));
  }

  private Process start(List<String> args) throws IOException {
    Process p = new ProcessBuilder(SleepingMain.command(args)).redirectErrorStream(true).start();
    started.add(p);
    // the child prints "ready <pid>" once its main runs
    BufferedReader out = reader(p);
    String line;
    while ((line = out.readLine()) != null && !line.startsWith("ready ")) {
      if (line.startsWith("grandchild ")) {
        grandchildLines.put(p, Long.parseLong(line.substring("grandchild ".length()).trim()));
      }
    }
    assertThat(line).as("child output").isNotNull();
    return p;
  }

  private BufferedReader reader(Process p) {
    return readers.computeIfAbsent(
        p,
        k -> new BufferedReader(new InputStreamReader(k.getInputStream(), StandardCharsets.UTF_8)));
  }

  private long grandchildPid(Process child) {
    Long pid = grandchildLines.get(child);
    assertThat(pid).as("grandchild pid printed").isNotNull();
    return pid;
  }

  private static boolean running(long pid) {
    try {
      return state(pid) != 'Z';
    } catch (IOException e) {
      return false; // no such process
    }
  }

  private static char state(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    return stat.charAt(stat.lastIndexOf(')') + 2);
  }
}
