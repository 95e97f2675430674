package dev.skewer.core.result;

import java.nio.charset.StandardCharsets;

/**
 * A result envelope as {@link ResultFormatter} wrote it, with what a reader would otherwise parse
 * back out of it.
 *
 * @param bytes the envelope (UTF-8 JSON), not copied: treat as immutable
 * @param distinctEstimate the distinct count's estimate written, NaN when the job counts none
 * @param provenanceFrom where the provenance object starts in {@code bytes} (its {@code '{'}), -1
 *     when the envelope has none
 * @param provenanceTo where it ends (just after its {@code '}'}), -1 when none
 */
public record FormattedResult(
    byte[] bytes, double distinctEstimate, int provenanceFrom, int provenanceTo) {

  /** The provenance object's text as the envelope has it, or null when it has none. */
  public String provenanceText() {
    return provenanceFrom < 0
        ? null
        : new String(bytes, provenanceFrom, provenanceTo - provenanceFrom, StandardCharsets.UTF_8);
  }
}
