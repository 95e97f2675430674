package dev.skewer.core.result;

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
    byte[] bytes, double distinctEstimate, int provenanceFrom, int provenanceTo) {}
