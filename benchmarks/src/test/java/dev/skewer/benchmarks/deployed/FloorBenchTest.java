package dev.skewer.benchmarks.deployed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What {@code bench floor}'s JVMs do per record, and the bench's refusals; the bench runs by hand.
 */
class FloorBenchTest {

  private static final List<String> EVENTS =
      List.of(
          "{\"key\":\"ad1\",\"user\":\"u1\",\"value\":12.5,\"ts\":1700000000000}",
          "{\"key\":\"ad1\",\"user\":\"u2\",\"value\":3.0,\"ts\":1700000009999}",
          "{\"key\":\"ad1\",\"user\":\"u1\",\"value\":7.0,\"ts\":1700000010000}",
          "{\"key\":\"ad2\",\"user\":\"u3\",\"value\":1.0,\"ts\":1700000000500}",
          "{\"key\":\"ad2\",\"user\":\"u3\",\"value\":1.0}",
          "not json");

  private static JobSpec w1(Path dir) {
    Path file = dir.resolve("w1.yaml");
    DeployedCluster.writeW1Job("w1-floor", null, DeployedCluster.W1_PARTITIONS, file);
    return JobSpecLoader.load(file, Map.of());
  }

  private static FloorConsumer.Floor fed(JobSpec job, String mode) {
    FloorConsumer.Floor floor = new FloorConsumer.Floor(job, mode);
    EVENTS.forEach(e -> floor.accept(e.getBytes(StandardCharsets.UTF_8)));
    floor.accept(null); // a record without a value
    return floor;
  }

  @Test
  void shouldFoldEveryDecodedEventIntoOneResultPerKeyAndWindow(@TempDir Path dir) {
    // given W1's job (10 s tumbling windows) and four good events of three (key, window) pairs, one
    // without a time, one that is not JSON and one without a value
    JobSpec job = w1(dir);

    // when each mode takes them
    FloorConsumer.Floor read = fed(job, "read");
    FloorConsumer.Floor decode = fed(job, "decode");
    FloorConsumer.Floor fold = fed(job, "fold");

    // then read only counts bytes, decode rejects the three bad records, and fold makes one result
    // for each of (ad1, [0, 10 s)), (ad1, [10 s, 20 s)) and (ad2, [0, 10 s))
    long bytes = EVENTS.stream().mapToLong(e -> e.getBytes(StandardCharsets.UTF_8).length).sum();
    assertThat(read.bytes).isEqualTo(bytes);
    assertThat(read.rejected).isZero();
    assertThat(read.finish()).isZero();
    assertThat(decode.rejected).isEqualTo(3);
    assertThat(decode.finish()).isZero();
    assertThat(fold.rejected).isEqualTo(3);
    assertThat(fold.finish()).isEqualTo(3);
    // (the results' bytes are counted too: formatted as the coordinators format them)
    assertThat(fold.bytes).isGreaterThan(bytes + 3 * 50);
  }

  @Test
  void shouldRefuseBadArgumentsBeforeStartingABroker() {
    for (List<String> args :
        List.of(
            List.of("--modes", "read,parse"),
            List.of("--processes", "0"),
            List.of("--processes", "5"),
            List.of("--runs", "0"),
            List.of("--events", "0"))) {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      PrintStream old = System.err;
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int code;
      try {
        code = new CommandLine(new FloorBench()).execute(args.toArray(String[]::new));
      } finally {
        System.setErr(old);
      }
      assertThat(code).as("%s", args).isEqualTo(2);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .as("%s", args)
          .containsAnyOf("--modes takes [read, decode, fold], was [read, parse]", "must be >= 1");
    }
  }
}
