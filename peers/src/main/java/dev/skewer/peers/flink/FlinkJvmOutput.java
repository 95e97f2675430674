package dev.skewer.peers.flink;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Copies the Flink JVM's output into its log file and keeps the marks {@link FlinkW1Job} prints:
 * when the job was submitted and the JVM's CPU seconds then and when the job was done. Runs on a
 * thread of its own, so the bench can report progress while the JVM is silent.
 */
final class FlinkJvmOutput implements Runnable {

  private final InputStream in;
  private final Path log;
  private volatile long submittedMs = -1;
  private volatile double cpuAtSubmission = Double.NaN;
  private volatile double cpuAtEnd = Double.NaN;

  FlinkJvmOutput(InputStream in, Path log) {
    this.in = in;
    this.log = log;
  }

  @Override
  public void run() {
    try (BufferedReader out =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        BufferedWriter logOut = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      String line;
      while ((line = out.readLine()) != null) {
        logOut.write(line);
        logOut.newLine();
        String[] f = line.split(" ");
        if (f.length == 3 && f[0].equals("SUBMITTED")) {
          cpuAtSubmission = Double.parseDouble(f[2]);
          submittedMs = Long.parseLong(f[1]);
        } else if (f.length == 3 && f[0].equals("DONE")) {
          cpuAtEnd = Double.parseDouble(f[2]);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy the Flink JVM's output to " + log, e);
    }
  }

  /** When the job was submitted (epoch ms), or -1 before. */
  long submittedMs() {
    return submittedMs;
  }

  /** The Flink JVM's CPU seconds when the job was submitted, or NaN before. */
  double cpuAtSubmission() {
    return cpuAtSubmission;
  }

  /** The Flink JVM's CPU seconds when the job was done, or NaN before. */
  double cpuAtEnd() {
    return cpuAtEnd;
  }
}
