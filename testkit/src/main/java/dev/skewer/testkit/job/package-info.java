/**
 * Job files for tests: {@link dev.skewer.testkit.job.JobYaml} writes the YAML the job loader reads,
 * with the integration tests' common job as defaults, so a test states only what differs.
 */
package dev.skewer.testkit.job;
