package dev.skewer.core.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

/**
 * The JVM's own meters in a process's registry: memory pools and buffers ({@code jvm.memory.*},
 * {@code jvm.buffer.*}), garbage collection ({@code jvm.gc.*}), threads ({@code jvm.threads.*}),
 * class loading ({@code jvm.classes.*}), CPU ({@code system.cpu.*}, {@code process.cpu.*}) and
 * uptime — Micrometer's standard binders, so dashboards built for any JVM service work.
 */
public final class ProcessMetrics {

  private ProcessMetrics() {}

  /**
   * Binds the JVM meters to {@code registry}; close the result when the process stops (it removes
   * the garbage-collection listeners). A registry that has them already is left as it is.
   */
  public static AutoCloseable bindJvm(MeterRegistry registry) {
    if (registry.find("jvm.classes.loaded").gauge() != null) {
      return () -> {}; // bound already (several stages sharing one registry in one JVM)
    }
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    return gc;
  }
}
