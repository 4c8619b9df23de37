package io.jdat;

/**
 * {@code DAT_NAMED_ATTR}: a provider, transport or vendor specific attribute.
 *
 * @param name  the attribute name
 * @param value its value
 */
public record NamedAttr(String name, String value) {
}
