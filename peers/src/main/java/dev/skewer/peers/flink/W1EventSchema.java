package dev.skewer.peers.flink;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import org.apache.flink.api.common.serialization.AbstractDeserializationSchema;

/**
 * W1's JSON ({@code {"key":"ad17","user":"u123","value":12.3,"ts":...}}) read with Jackson's
 * streaming parser, field by field, as Skewer's decoder reads it. A record that is not such an
 * object is skipped (null); W1 has none, and the bench's exact check would count any skipped event.
 */
public final class W1EventSchema extends AbstractDeserializationSchema<W1Event> {

  private static final long serialVersionUID = 1L;
  private static final JsonFactory JSON = new JsonFactory();

  @Override
  public W1Event deserialize(byte[] message) throws IOException {
    if (message == null) {
      return null;
    }
    W1Event e = new W1Event();
    boolean key = false;
    boolean ts = false;
    try (JsonParser p = JSON.createParser(message)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        switch (name) {
          case "key" -> {
            e.key = p.getText();
            key = v == JsonToken.VALUE_STRING;
          }
          case "user" -> e.user = p.getText();
          case "value" -> e.value = p.getDoubleValue();
          case "ts" -> {
            e.ts = p.getLongValue();
            ts = true;
          }
          default -> p.skipChildren();
        }
      }
    }
    return key && ts ? e : null;
  }
}
