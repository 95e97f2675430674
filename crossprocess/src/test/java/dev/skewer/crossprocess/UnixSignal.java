package dev.skewer.crossprocess;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The signals the JDK cannot send: SIGSTOP, SIGCONT and SIGQUIT (a JVM prints its threads' stacks
 * to its standard output), through {@code kill -<NAME> <pid>}. ({@link Process#destroyForcibly} is
 * SIGKILL and {@link Process#destroy} SIGTERM on Linux.)
 */
enum UnixSignal {
  STOP,
  CONT,
  QUIT;

  /** Sends this signal to {@code pid}; false if {@code kill} failed (e.g. no such process). */
  boolean sendTo(long pid) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + name(), Long.toString(pid))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      return kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
