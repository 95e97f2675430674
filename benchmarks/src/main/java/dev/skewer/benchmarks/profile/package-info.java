/**
 * Reading profiles: {@link dev.skewer.benchmarks.profile.ProfileSummary} ({@code skewer bench
 * profile}) turns JFR recordings of Skewer's processes and the broker into CPU shares by thread
 * group, component (checkpoint path, JSON decoding, Partials encoding, Kafka client, Hazelcast,
 * ...), leaf frame and Skewer method.
 */
package dev.skewer.benchmarks.profile;
