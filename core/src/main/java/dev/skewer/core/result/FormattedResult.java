package dev.skewer.core.result;

/**
 * A result envelope as {@link ResultFormatter} wrote it, with what a reader would otherwise parse
 * back out of it.
 *
 * @param bytes the envelope (UTF-8 JSON), not copied: treat as immutable
 * @param distinctEstimate the distinct count's estimate written, NaN when the job counts none
 * @param provenanceFrom where the provenance object starts in {@code bytes} (its {@code '{'}),
 *     {@link #NO_PROVENANCE} when the envelope has none
 * @param provenanceTo where it ends (just after its {@code '}'}), {@link #NO_PROVENANCE} when none
 */
public record FormattedResult(
    byte[] bytes, double distinctEstimate, int provenanceFrom, int provenanceTo) {

  /** The provenance position of an envelope without a provenance object. */
  public static final int NO_PROVENANCE = -1;
}
