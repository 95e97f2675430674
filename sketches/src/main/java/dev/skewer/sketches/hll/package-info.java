/**
 * Internal: the distinct-count sketch, a stream-lib HyperLogLog++ wrapped with portable hashing and
 * a validating decoder for stream-lib's byte layout. Owns the relative-standard-error bound
 * reported by {@link dev.skewer.sketches.DistinctEstimate}.
 */
package dev.skewer.sketches.hll;
