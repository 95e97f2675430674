/**
 * Benchmarks of Skewer in the shape users deploy it: the broker, every node and every coordinator
 * in its own JVM on the product jar, with Hazelcast members and checkpoints as shipped. {@link
 * dev.skewer.benchmarks.deployed.DeployedBench} times W1 from launch and from ready and reads each
 * process's CPU from {@code /proc}; the child processes are driven through {@code DeployedCluster}.
 * {@link dev.skewer.benchmarks.deployed.FloorBench} times W1's own work in fresh JVMs with nothing
 * distributed, the floor those figures stand on.
 */
package dev.skewer.benchmarks.deployed;
