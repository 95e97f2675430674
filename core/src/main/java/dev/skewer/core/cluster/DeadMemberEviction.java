package dev.skewer.core.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the consumer group at once when Hazelcast sees a process of the same role and job leave:
 * removes its static membership with the admin API, so the group moves its partitions in about a
 * second instead of waiting for its session timeout (Kafka's default 45 s). Hazelcast notices a
 * killed process within a second (its connections close) and a frozen or unreachable one after
 * {@code hazelcast.max.no.heartbeat.seconds} (5 s).
 *
 * <p>A stage consumer's {@code group.instance.id} is {@link #groupInstanceId} of its process's
 * member: the process name and the member's UUID, new at every start. So the id is unique even when
 * two processes are given the same name, and removing a dead process never touches the process
 * restarted under its name.
 *
 * <p>A process that was itself paused (GC, SIGSTOP, a frozen VM: its {@link PauseDetector} saw a
 * gap of {@value #PAUSE_MS} ms or more within the last {@value #PAUSE_QUIET_S} s) removes nobody:
 * when it resumes, its member has heard from no one for the length of the pause and reports every
 * other member gone, while it is the one that was away. The session timeout decides then.
 *
 * <p>Safe when Hazelcast is wrong otherwise (a network cut between members that both still reach
 * Kafka): a removed consumer that is in fact alive learns so at its next heartbeat and joins again,
 * one extra rebalance; its output in the meantime is fenced like any former owner's. Every
 * surviving process of the role asks; the first removal wins and the others find the member gone.
 *
 * <p>Hazelcast calls the listener on its event thread; the admin call is asynchronous.
 */
public final class DeadMemberEviction implements MembershipListener, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DeadMemberEviction.class);

  /** A gap this long between two ticks of the pause detector counts as this process paused. */
  static final long PAUSE_MS = 2_000;

  /** How long after its own pause a process removes nobody. */
  static final long PAUSE_QUIET_S = 20;

  private final HazelcastInstance hazelcast;
  private final Admin admin;
  private final String groupId;
  private final String role;
  private final String job;
  private final PauseDetector pauses;
  private final UUID registration;

  private DeadMemberEviction(
      HazelcastInstance hazelcast, Admin admin, String groupId, String role, String job) {
    this.hazelcast = hazelcast;
    this.admin = admin;
    this.groupId = groupId;
    this.role = role;
    this.job = job;
    this.pauses = PauseDetector.start(Duration.ofMillis(PAUSE_MS));
    this.registration = hazelcast.getCluster().addMembershipListener(this);
  }

  /**
   * Starts watching {@code hazelcast}'s members; removed members of {@code role} running {@code
   * job} are removed from {@code groupId} through {@code admin}, which this closes.
   */
  public static DeadMemberEviction start(
      HazelcastInstance hazelcast, Admin admin, String groupId, String role, String job) {
    Objects.requireNonNull(hazelcast, "hazelcast");
    Objects.requireNonNull(admin, "admin");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(job, "job");
    return new DeadMemberEviction(hazelcast, admin, groupId, role, job);
  }

  /**
   * The {@code group.instance.id} of the stage consumer beside {@code member}: {@code
   * <name>.<member UUID>}, every character of the name Kafka does not accept in an id (other than
   * ASCII letters, digits, {@code .}, {@code _}, {@code -}) replaced by {@code _}, the name cut to
   * 200 characters (Kafka's limit is 249).
   */
  public static String groupInstanceId(Member member) {
    String name = String.valueOf((Object) member.getAttribute(HazelcastMembers.NAME_ATTRIBUTE));
    String safe = name.replaceAll("[^A-Za-z0-9._-]", "_");
    return safe.substring(0, Math.min(200, safe.length())) + "." + member.getUuid();
  }

  /**
   * The {@code group.instance.id} to remove when {@code removed} left: its consumer's, if it ran
   * {@code role} of {@code job}; empty otherwise.
   */
  static Optional<String> instanceToRemove(Member removed, String role, String job) {
    if (removed.getAttribute(HazelcastMembers.NAME_ATTRIBUTE) == null
        || !role.equals(removed.getAttribute(HazelcastMembers.ROLE_ATTRIBUTE))
        || !job.equals(removed.getAttribute(HazelcastMembers.JOB_ATTRIBUTE))) {
      return Optional.empty();
    }
    return Optional.of(groupInstanceId(removed));
  }

  @Override
  public void memberAdded(MembershipEvent event) {}

  @Override
  public void memberRemoved(MembershipEvent event) {
    Optional<String> instance = instanceToRemove(event.getMember(), role, job);
    if (instance.isEmpty()) {
      return;
    }
    String id = instance.get();
    Optional<Duration> ownPause = pauses.pausedWithin(Duration.ofSeconds(PAUSE_QUIET_S));
    if (ownPause.isPresent()) {
      LOG.warn(
          "not removing {} from consumer group {}: this process was itself paused for {} ms"
              + " lately, so the silence Hazelcast saw may be its own (the session timeout"
              + " decides)",
          id,
          groupId,
          ownPause.get().toMillis());
      return;
    }
    RemoveMembersFromConsumerGroupOptions options =
        new RemoveMembersFromConsumerGroupOptions(List.of(new MemberToRemove(id)));
    options.reason("Skewer: Hazelcast saw process " + id + " leave");
    long startNs = System.nanoTime();
    try {
      admin
          .removeMembersFromConsumerGroup(groupId, options)
          .all()
          .whenComplete(
              (v, e) -> {
                long ms = (System.nanoTime() - startNs) / 1_000_000;
                if (e == null) {
                  LOG.info(
                      "removed {} from consumer group {} in {} ms: Hazelcast saw its process leave",
                      id,
                      groupId,
                      ms);
                } else if (rootCause(e) instanceof UnknownMemberIdException) {
                  LOG.info("{} is not in consumer group {} (it left, or was removed)", id, groupId);
                } else {
                  LOG.warn(
                      "could not remove {} from consumer group {} (its session timeout will): {}",
                      id,
                      groupId,
                      rootCause(e).toString());
                }
              });
    } catch (RuntimeException e) {
      LOG.warn("could not ask to remove {} from consumer group {}", id, groupId, e);
    }
  }

  private static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  @Override
  public void close() {
    pauses.close();
    try {
      hazelcast.getCluster().removeMembershipListener(registration);
    } catch (RuntimeException e) {
      LOG.debug("membership listener not removed (Hazelcast stopped?)", e);
    }
    admin.close();
  }
}
