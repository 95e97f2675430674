/** picocli commands of the {@code skewer} launcher, one class per subcommand. */
package dev.skewer.launcher.cli;
