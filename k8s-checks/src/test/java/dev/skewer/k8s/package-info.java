/**
 * Checks of what Skewer ships for Kubernetes, run without a cluster: the Helm chart {@code
 * k8s/skewer} linted and rendered with a bundled helm, every rendered object parsed strictly as a
 * Kubernetes object, the chart's invariants against the binary's own CLI model and job loader, the
 * Dockerfile and the Jib profile; and the two cluster tests that start real processes from what the
 * chart renders ({@code ChartClusterIT}) and across network namespaces ({@code MultiHostIT}).
 */
package dev.skewer.k8s;
