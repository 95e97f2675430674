# The Skewer image: the product jar that `./mvnw package` builds (launcher/target/skewer.jar,
# `skewer node|coordinator|loadgen`) and a class-data-sharing archive of its classes on a Java 17
# JRE, run as a non-root user.
#
#   ./mvnw -B package -DskipTests -pl launcher -am
#   docker build -t skewer:0.1.0 .
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
# whole (the chart sets it from its jvmOptions value); the archive's flag is in the entrypoint, so
# it stays.
FROM eclipse-temurin:17-jre

ARG SKEWER_JAR=launcher/target/skewer.jar

RUN groupadd --system --gid 10001 skewer \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin skewer

COPY ${SKEWER_JAR} /opt/skewer/skewer.jar
COPY launcher/cds/skewer.classlist /opt/skewer/skewer.classlist

# Class-data sharing: the classes a node and a coordinator load (launcher/cds/skewer.classlist),
# parsed, verified and laid out once here, by the JVM that will map them, into an archive every
# process maps at start (the entrypoint's -XX:SharedArchiveFile): ~40 % fewer CPU seconds until
# ready (docs/benchmarks.md, "Class-data sharing"). A class the list misses loads as usual. Runs
# before JDK_JAVA_OPTIONS is set, so none of the processes' options apply to the dump.
RUN ["java", "-Xshare:dump", "-XX:+UseG1GC", "-XX:SharedClassListFile=/opt/skewer/skewer.classlist", "-XX:SharedArchiveFile=/opt/skewer/skewer.jsa", "-cp", "/opt/skewer/skewer.jar"]

ENV JDK_JAVA_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+UseParallelGC -XX:CompileThresholdScaling=3 -XX:MetaspaceSize=128m -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp -Dvertx.cacheDirBase=/tmp/vertx-cache"

WORKDIR /opt/skewer
USER 10001:10001

# coordinator HTTP, node HTTP, Hazelcast
EXPOSE 8080 8081 5701

ENTRYPOINT ["java", "-XX:SharedArchiveFile=/opt/skewer/skewer.jsa", "-jar", "/opt/skewer/skewer.jar"]
CMD ["--help"]
