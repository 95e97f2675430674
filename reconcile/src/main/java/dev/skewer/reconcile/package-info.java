/**
 * Batch reconciliation, the batch half of the lambda architecture: {@link
 * dev.skewer.reconcile.Reconciler} recomputes a job's results for an event-time range exactly from
 * the raw input — through the node's and coordinator's own cores, in batch mode — and reports every
 * result that differs from the streamed one, every sketch outside its error bars and every input
 * record that is not in exactly one of {a result, the late topic, the DLQ}; {@link
 * dev.skewer.reconcile.ResultsReader} reads the latest record per result key of the results topic.
 */
package dev.skewer.reconcile;
