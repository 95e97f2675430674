/**
 * Hazelcast membership shared by nodes and coordinators: {@link
 * dev.skewer.core.cluster.ClusterSettings} says how members find each other (a static TCP-IP list,
 * or Kubernetes DNS discovery) and {@link dev.skewer.core.cluster.HazelcastMembers} starts an
 * embedded member with Skewer's settings (fast failure detection, no phone-home, SLF4J logging,
 * role attributes).
 */
package dev.skewer.core.cluster;
