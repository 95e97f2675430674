package dev.skewer.launcher.cli;

import dev.skewer.core.job.Durations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;

/** Converts "30s", "5m", "500ms" or ISO-8601 to a Duration (the job file's syntax). */
public final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    return Durations.parse(value);
  }
}
