/**
 * Several Skewer processes inside one JVM — each node and coordinator with its own Vert.x instance
 * and Hazelcast member — for the demo, the end-to-end benchmark and integration tests.
 */
package dev.skewer.launcher.local;
