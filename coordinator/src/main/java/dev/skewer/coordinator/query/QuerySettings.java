package dev.skewer.coordinator.query;

import java.util.Objects;

/**
 * Settings of a coordinator's query side: the results view, the API's access rules.
 *
 * @param viewMaxBytes the results view's bound in estimated heap bytes (see {@link ResultsView})
 * @param apiToken when set, {@code /api/v1/*} data endpoints require {@code Authorization: Bearer
 *     <token>}; null or blank: open
 * @param corsOrigin when set, the one origin allowed to call the API from a browser; null: no CORS
 *     headers (browsers refuse cross-origin calls)
 * @param nodeGroup the nodes' consumer group (who owns which source partition); null: the job's
 *     default ({@code JobNames.nodesGroup()})
 */
public record QuerySettings(
    long viewMaxBytes, String apiToken, String corsOrigin, String nodeGroup) {

  public static final long DEFAULT_VIEW_MAX_BYTES = 64L * 1024 * 1024;

  public QuerySettings {
    if (viewMaxBytes < 1024 * 1024) {
      throw new IllegalArgumentException("viewMaxBytes must be >= 1 MiB, was " + viewMaxBytes);
    }
    apiToken = apiToken == null || apiToken.isBlank() ? null : apiToken;
    corsOrigin = corsOrigin == null || corsOrigin.isBlank() ? null : corsOrigin;
  }

  public static QuerySettings defaults() {
    return new QuerySettings(DEFAULT_VIEW_MAX_BYTES, null, null, null);
  }

  public QuerySettings withApiToken(String token) {
    return new QuerySettings(viewMaxBytes, token, corsOrigin, nodeGroup);
  }

  public QuerySettings withCorsOrigin(String origin) {
    return new QuerySettings(viewMaxBytes, apiToken, origin, nodeGroup);
  }

  public QuerySettings withViewMaxBytes(long bytes) {
    return new QuerySettings(bytes, apiToken, corsOrigin, nodeGroup);
  }

  @Override
  public String toString() {
    // never print the token
    return "QuerySettings[viewMaxBytes="
        + viewMaxBytes
        + ", apiToken="
        + (apiToken == null ? "none" : "set")
        + ", corsOrigin="
        + Objects.toString(corsOrigin, "none")
        + ", nodeGroup="
        + nodeGroup
        + "]";
  }
}
