/** Hazelcast members for tests. */
package dev.skewer.testkit.cluster;
