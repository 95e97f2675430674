/** Fixtures for tests of the checkpoint store with real Hazelcast members and a real broker. */
package dev.skewer.testkit.checkpoint;
