/** W1 on Flink (one JVM, a local mini-cluster) and the bench that times it like bench deployed. */
package dev.skewer.peers.flink;
