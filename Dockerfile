# syntax=docker/dockerfile:1
# The Skewer image: the product jar that `./mvnw package` builds (launcher/target/skewer.jar,
# `skewer node|coordinator|loadgen|reconcile|results`) and an AOT cache of it on a Java 25 JRE, run
# as a non-root user.
#
#   ./mvnw -B package -DskipTests -pl launcher,devtools -am
#   docker build -t skewer:0.1.0 .
#
# The jar is built for Java 17 and runs on either; the image runs Java 25 for its AOT cache (below).
# BuildKit (Docker 23 and later by default) is needed for the build's one bind mount.
#
# Read-only root file system friendly: the process writes only to /tmp (mount an emptyDir there,
# as the Helm chart does). The heap is a share of the container's memory limit
# (MaxRAMPercentage), never a fixed -Xmx: set the limit, not the heap. The collector is named
# (ParallelGC) rather than left to the JVM, which picks G1 with 2+ CPUs and 1792 MB+ and Serial
# below: G1 cost ~20 % more CPU per event (docs/benchmarks.md, "The collector"). The JIT compiles a
# method after 3x the default invocations (CompileThresholdScaling=3): less compiling of code that
# only runs at start-up, ~15 % fewer CPU seconds until ready and ~5 % fewer per event
# (docs/benchmarks.md, "JIT thresholds"). The first metaspace collection waits for 128 MB
# (MetaspaceSize=128m; a process loads ~60 MB of classes), so no full collection runs while the
# classes load (docs/benchmarks.md, "Metaspace"). JDK_JAVA_OPTIONS replaces these JVM options as a
# whole (the chart sets it from its jvmOptions value); the cache's flags are in the entrypoint, so
# they stay. --sun-misc-unsafe-memory-access=allow (Java 23+) lets Hazelcast use sun.misc.Unsafe
# without Java printing four WARNING lines at start, which are not log lines and break a JSON log
# stream (the chart's default log format).
FROM eclipse-temurin:25-jre

ARG SKEWER_JAR=launcher/target/skewer.jar

RUN groupadd --system --gid 10001 skewer \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin skewer

COPY ${SKEWER_JAR} /opt/skewer/skewer.jar

# The AOT cache: the classes a training run loaded, linked, with the method profiles of that run,
# written by the JVM and at the jar path that will map them, into a file every process maps at
# start (the entrypoint's -XX:AOTCache). The training run is one W1 run of 5,000,000 events through a
# broker, 2 nodes and a coordinator of this jar, all started here by the development jar (bound in
# for this step only, never in the image); its first node writes the cache as it stops, and the
# step fails unless the jar then starts with it. 8–25 % less CPU per event and 9–30 % more events per
# second than Java 17 with a class-data-sharing archive (docs/benchmarks.md, "The image on Java 25
# with an AOT cache"). A class the training did not load loads from the jar as usual. Runs before
# JDK_JAVA_OPTIONS is set, so the processes' options do not apply to the step's own JVM. The cache
# is written with compact object headers (-XX:+UseCompactObjectHeaders, which aot-cache adds to
# its processes' flags) and maps only into a JVM with them, so the entrypoint gives that flag
# beside the cache's (6 % less CPU per event over a 20,000,000-event run; docs/benchmarks.md,
# "Compact object headers").
RUN --mount=type=bind,source=devtools/target/skewer-dev.jar,target=/tmp/skewer-dev.jar ["java", "-jar", "/tmp/skewer-dev.jar", "aot-cache", "--events", "5000000", "--jar", "/opt/skewer/skewer.jar", "--out", "/opt/skewer/skewer.aot"]

ENV JDK_JAVA_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+UseParallelGC -XX:CompileThresholdScaling=3 -XX:MetaspaceSize=128m -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp -Dvertx.cacheDirBase=/tmp/vertx-cache --sun-misc-unsafe-memory-access=allow"

WORKDIR /opt/skewer
USER 10001:10001

# coordinator HTTP, node HTTP, Hazelcast
EXPOSE 8080 8081 5701

ENTRYPOINT ["java", "-XX:AOTCache=/opt/skewer/skewer.aot", "-XX:+UseCompactObjectHeaders", "-jar", "/opt/skewer/skewer.jar"]
CMD ["--help"]
