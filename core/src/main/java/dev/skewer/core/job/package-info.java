/**
 * The job file: what to aggregate, over which windows, with which sketches, into which topics.
 * {@link dev.skewer.core.job.JobSpecLoader} reads one YAML file plus {@code SKEWER_*} environment
 * overrides into an immutable {@link dev.skewer.core.job.JobSpec}; every record validates itself
 * and reports a bad value as a {@link dev.skewer.core.job.JobSpecException} naming the field path.
 * Both stages and the load generator read the same file, so they agree on keys, windows and sketch
 * parameters.
 */
package dev.skewer.core.job;
