package io.jdat;

import java.util.function.ToIntFunction;

/**
 * The reverse lookup of the API's enums that carry the numeric value of their C enumerator
 * ({@link EpState#of}, {@link EventNumber#of}, ...): one linear search, as the enums are a few constants long.
 */
final class EnumCodes {
    private EnumCodes() {
    }

    /**
     * The constant of {@code values} whose {@code code} is {@code value}, or {@code null}.
     *
     * @param values the enum's constants
     * @param code   the numeric value of a constant
     * @param value  the value looked for
     * @param <E>    the enum
     * @return the constant, or {@code null} if none has that value
     */
    static <E extends Enum<E>> E find(E[] values, ToIntFunction<E> code, int value) {
        for (E v : values) {
            if (code.applyAsInt(v) == value) {
                return v;
            }
        }
        return null;
    }
}
