package dev.skewer.model;

import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.stage.PartitionRuntime;
import dev.skewer.stage.PartitionTask;
import dev.skewer.stage.StageClients;
import dev.skewer.stage.StageSettings;
import dev.skewer.stage.TaskFactory;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;

/**
 * One process of one stage: the real {@link PartitionRuntime} on its own Vert.x context, with a
 * {@link LogConsumer} and a {@link LogProducer} over the {@link MemoryBroker} and the stage's real
 * task factory. The history plays the consumer group: {@link #assign} is a rebalance.
 */
final class StageProcess {

  final String id;
  final String inputTopic;
  final LogConsumer consumer;
  final LogProducer producer;
  private final MemoryBroker broker;
  private final Vertx vertx;
  private final TaskFactory<PartitionTask> factory;
  private volatile PartitionRuntime<ObservedTask> runtime;
  private volatile Context context;
  private String deployment;
  private volatile Set<Integer> assigned = Set.of();
  private volatile boolean stopped;
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  StageProcess(
      String id,
      String inputTopic,
      MemoryBroker broker,
      Vertx vertx,
      Clock clock,
      int maxPollRecords,
      int maxRequestBytes,
      Function<SimpleMeterRegistry, TaskFactory<PartitionTask>> factory,
      ObservedTask.FrontierWatch watch,
      RestoreListener restores) {
    this.id = id;
    this.inputTopic = inputTopic;
    this.broker = broker;
    this.vertx = vertx;
    this.consumer = new LogConsumer(broker, inputTopic, maxPollRecords);
    this.producer = new LogProducer(broker, clock, maxRequestBytes);
    this.factory = factory.apply(registry);
    this.watch = watch;
    this.restores = restores;
  }

  /** Hears every task a runtime restores (on a worker). */
  interface RestoreListener {
    /** {@code task} of {@code partition} resumes at input offset {@code nextOffset}. */
    void restored(int partition, long nextOffset, ObservedTask task);
  }

  private final ObservedTask.FrontierWatch watch;
  private final RestoreListener restores;

  /** Deploys the runtime (subscribed, nothing assigned yet). */
  void start(StageSettings settings, CheckpointStore store, Clock clock) throws Exception {
    TaskFactory<ObservedTask> observed =
        (partition, epoch, checkpoint) -> {
          broker.note(
              id
                  + " restores partition "
                  + partition
                  + " under epoch "
                  + epoch
                  + checkpoint.map(c -> " from " + c).orElse(" without a checkpoint"));
          long from = checkpoint.map(c -> c.nextOffset()).orElse(0L);
          ObservedTask t =
              new ObservedTask(
                  partition, epoch, from, factory.restore(partition, epoch, checkpoint), watch);
          if (restores != null) {
            restores.restored(partition, from, t);
          }
          return t;
        };
    StageClients clients =
        new StageClients() {
          @Override
          public Consumer<byte[], byte[]> consumer() {
            return consumer;
          }

          @Override
          public Producer<byte[], byte[]> producer() {
            return producer;
          }
        };
    deployment =
        vertx
            .deployVerticle(
                new VerticleBase() {
                  @Override
                  public Future<?> start() {
                    StageProcess.this.context = context;
                    runtime =
                        new PartitionRuntime<>(
                            vertx, settings, clients, observed, store, registry, clock);
                    return runtime.start();
                  }

                  @Override
                  public Future<?> stop() {
                    return runtime.stop();
                  }
                })
            .await(10, TimeUnit.SECONDS);
  }

  /**
   * The group assigns exactly {@code partitions} here (revoking the others); completes once the
   * rebalance callbacks have returned (revoked partitions have had their final checkpoint).
   */
  CompletableFuture<Void> assign(Set<Integer> partitions) {
    assigned = Set.copyOf(partitions);
    List<TopicPartition> tps = new ArrayList<>();
    for (int p : new TreeSet<>(partitions)) {
      tps.add(new TopicPartition(inputTopic, p));
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    consumer.schedulePollTask(
        () -> {
          consumer.rebalance(tps);
          done.complete(null);
        });
    broker.wake();
    return done;
  }

  Set<Integer> assigned() {
    return assigned;
  }

  /** Stops the runtime: drains, final checkpoints, closes. The acknowledgements flow again. */
  void stop() throws Exception {
    if (stopped) {
      return;
    }
    stopped = true;
    producer.openGate(false);
    vertx.undeploy(deployment).await(30, TimeUnit.SECONDS);
  }

  /** Runs {@code action} on the runtime's context and waits for its result. */
  <T> T onContext(Supplier<T> action) throws Exception {
    CompletableFuture<T> f = new CompletableFuture<>();
    context.runOnContext(
        v -> {
          try {
            f.complete(action.get());
          } catch (RuntimeException e) {
            f.completeExceptionally(e);
          }
        });
    return f.get(10, TimeUnit.SECONDS);
  }

  /** The consuming tasks by partition (on the context). */
  Map<Integer, ObservedTask> active() throws Exception {
    return onContext(
        () -> {
          Map<Integer, ObservedTask> tasks = new HashMap<>();
          runtime.forEachActive(tasks::put);
          return tasks;
        });
  }

  /** {@code read} of each consuming task, by partition (on the context). */
  <T> Map<Integer, T> eachActive(Function<ObservedTask, T> read) throws Exception {
    return onContext(
        () -> {
          Map<Integer, T> out = new HashMap<>();
          runtime.forEachActive((p, t) -> out.put(p, read.apply(t)));
          return out;
        });
  }

  /**
   * Whether everything assigned is consuming, has read its partition to the end and has nothing
   * unacknowledged; null when quiet, else why not.
   */
  String unquiet() throws Exception {
    if (stopped) {
      return null;
    }
    if (producer.held() > 0) {
      return id + ": " + producer.held() + " sends held";
    }
    return onContext(
        () -> {
          Map<Integer, ObservedTask> tasks = new HashMap<>();
          runtime.forEachActive(tasks::put);
          if (!tasks.keySet().equals(assigned)) {
            return id + ": consuming " + tasks.keySet() + " of " + assigned;
          }
          for (ObservedTask t : tasks.values()) {
            long end = broker.end(inputTopic, t.partition);
            if (t.nextOffset() < end) {
              return id + ": partition " + t.partition + " at " + t.nextOffset() + " of " + end;
            }
          }
          if (runtime.pendingRecords() > 0) {
            return id + ": " + runtime.pendingRecords() + " records unacknowledged";
          }
          return null;
        });
  }

  @Override
  public String toString() {
    return id;
  }
}
