/**
 * The machinery of a reconciliation: the external sort of results, side events and events by key
 * ({@link dev.skewer.reconcile.internal.ExternalSorter}, {@link
 * dev.skewer.reconcile.internal.SortRecord}), the index of side-topic records, the topic reader
 * with progress, and the per-key recomputation and comparison ({@link
 * dev.skewer.reconcile.internal.KeyReconciler}). Not an API.
 */
package dev.skewer.reconcile.internal;
