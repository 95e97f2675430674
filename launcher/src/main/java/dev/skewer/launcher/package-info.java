/**
 * The product {@code skewer} command line ({@code skewer.jar}): node, coordinator, loadgen. The
 * demo, the development broker and the benchmarks live in the devtools and benchmarks modules.
 */
package dev.skewer.launcher;
