package dev.skewer.crossprocess;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * The main class of every child JVM the harness starts: it arranges for the child to halt as soon
 * as its parent (the test JVM, whose pid it gets as {@code -D}{@value #PARENT_PID_PROPERTY}) is
 * gone, then runs the real main class named by its first argument with the remaining arguments. A
 * main method that throws makes the child exit with {@value #FAILED_MAIN_STATUS} rather than linger
 * on its non-daemon threads.
 *
 * <p>Without it a test JVM that is itself killed (a Failsafe timeout, Ctrl-C, kill -9 of the build)
 * would leave its broker-less Skewer children running forever; with it no child outlives the test
 * run by more than the JDK's parent-exit polling interval.
 */
public final class OrphanGuard {

  /** The exit status of a child that halts because its parent died (128 + SIGKILL). */
  public static final int ORPHANED_STATUS = 137;

  /** The system property holding the pid of the process whose death ends this one. */
  public static final String PARENT_PID_PROPERTY = "skewer.crossprocess.parent.pid";

  /** The exit status of a child whose main method threw. */
  public static final int FAILED_MAIN_STATUS = 70;

  private OrphanGuard() {}

  /** {@code -D} option to give a child so that it watches this JVM. */
  public static String parentPidOption() {
    return "-D" + PARENT_PID_PROPERTY + "=" + ProcessHandle.current().pid();
  }

  public static void main(String[] args) throws ReflectiveOperationException {
    if (args.length == 0) {
      throw new IllegalArgumentException("usage: OrphanGuard <main class> [args...]");
    }
    String parentPid = System.getProperty(PARENT_PID_PROPERTY);
    if (parentPid == null) {
      throw new IllegalArgumentException("-D" + PARENT_PID_PROPERTY + "=<pid> is required");
    }
    // the parent may be gone already (then this process has been re-parented to init, and its
    // current parent would never exit): watch the pid the parent gave, not the current parent
    ProcessHandle.of(Long.parseLong(parentPid))
        .ifPresentOrElse(
            parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(ORPHANED_STATUS)),
            () -> Runtime.getRuntime().halt(ORPHANED_STATUS));
    Method main = Class.forName(args[0]).getMethod("main", String[].class);
    try {
      main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    } catch (InvocationTargetException e) {
      // a failed main would leave the JVM running on its non-daemon threads (Hazelcast, Vert.x),
      // half started: exit instead, so that the harness sees the failure at once
      e.getCause().printStackTrace();
      System.exit(FAILED_MAIN_STATUS);
    }
  }
}
