package dev.skewer.crossprocess;

import java.io.IOException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * A child for the harness's own tests: prints {@code ready <pid>} and sleeps. With {@code spawn} it
 * first starts a grandchild (itself, through {@link OrphanGuard}) and prints {@code grandchild
 * <pid>}.
 */
public final class SleepingMain {

  private SleepingMain() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    if (args.length > 0 && args[0].equals("spawn")) {
      Process grandchild =
          new ProcessBuilder(command(List.of()))
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectErrorStream(true)
              .start();
      System.out.println("grandchild " + grandchild.pid());
    }
    System.out.println("ready " + ProcessHandle.current().pid());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }

  /** {@code java -cp <class path> OrphanGuard SleepingMain <args>}. */
  static List<String> command(List<String> args) {
    List<String> c =
        new ArrayList<>(
            List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx32m",
                "-XX:TieredStopAtLevel=1",
                OrphanGuard.parentPidOption(),
                "-cp",
                System.getProperty("java.class.path"),
                OrphanGuard.class.getName(),
                SleepingMain.class.getName()));
    c.addAll(args);
    return c;
  }
}
