package dev.skewer.k8s;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run as its own JVM by {@link ImagePackagingTest}: loads (without initialising) every class a
 * class list names, so that each one in the JVM's class-data-sharing archive is taken from it, and
 * prints {@code loaded <n>, not found <m>}. Under a class-file hook (JFR, a Java agent) the JVM
 * reads each shared class's original bytes from where it came from; a class the dump generated has
 * none, and the JVM crashes.
 */
public final class LoadListedClasses {

  private LoadListedClasses() {}

  public static void main(String[] args) throws Exception {
    ClassLoader loader = ClassLoader.getSystemClassLoader();
    int loaded = 0;
    int missing = 0;
    for (String line : Files.readAllLines(Path.of(args[0]))) {
      if (line.isBlank() || line.startsWith("#") || line.startsWith("@")) {
        continue;
      }
      String name = line.split(" ")[0].replace('/', '.');
      try {
        Class.forName(name, false, loader);
        loaded++;
      } catch (ClassNotFoundException | LinkageError e) {
        missing++; // generated at run time, or not on this class path: loads as usual then
      }
    }
    System.out.println("loaded " + loaded + ", not found " + missing);
  }
}
