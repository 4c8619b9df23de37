package io.jdat;

/**
 * The {@code DAT_RETURN} word: CLASS (bits 31..30) | TYPE (bits 29..16) | SUBTYPE (bits 15..0), and
 * {@code dat_strerror}.
 *
 * <p>jdat reports failures as {@link DatException}s; this class composes and decomposes the 32-bit
 * word a C consumer would see, so that codes can be logged, compared and mapped one to one.
 */
public final class DatReturn {
    /** {@code DAT_CLASS_ERROR}. */
    public static final int CLASS_ERROR = 0x80000000;
    /** {@code DAT_CLASS_WARNING}. */
    public static final int CLASS_WARNING = 0x40000000;
    /** {@code DAT_CLASS_SUCCESS}. */
    public static final int CLASS_SUCCESS = 0;
    /** {@code DAT_TYPE_MASK}. */
    public static final int TYPE_MASK = 0x3FFF0000;
    /** {@code DAT_SUBTYPE_MASK}. */
    public static final int SUBTYPE_MASK = 0x0000FFFF;
    /** {@code DAT_SUCCESS}. */
    public static final int SUCCESS = 0;

    private DatReturn() {
    }

    /**
     * {@code DAT_ERROR(type, subtype)}: the error word the reference implementation returns.
     *
     * @param type    the type
     * @param subtype the subtype
     * @return {@code DAT_CLASS_ERROR | type | subtype}, or 0 for {@link DatReturnType#SUCCESS}
     */
    public static int error(DatReturnType type, DatReturnSubtype subtype) {
        if (type == DatReturnType.SUCCESS) {
            return SUCCESS;
        }
        return CLASS_ERROR | type.code() | subtype.code();
    }

    /**
     * {@code DAT_GET_TYPE(rc)}.
     *
     * @param rc a {@code DAT_RETURN} value
     * @return {@code DAT_GET_TYPE(rc)}
     */
    public static int getType(int rc) {
        return rc & TYPE_MASK;
    }

    /**
     * {@code DAT_GET_SUBTYPE(rc)}.
     *
     * @param rc a {@code DAT_RETURN} value
     * @return {@code DAT_GET_SUBTYPE(rc)}
     */
    public static int getSubtype(int rc) {
        return rc & SUBTYPE_MASK;
    }

    /**
     * {@code DAT_IS_WARNING(rc)}.
     *
     * @param rc a {@code DAT_RETURN} value
     * @return {@code DAT_IS_WARNING(rc)}
     */
    public static boolean isWarning(int rc) {
        return (rc & CLASS_WARNING) != 0;
    }

    /**
     * The two strings of {@code dat_strerror}.
     *
     * @param major describes the TYPE, e.g. {@code "DAT_INVALID_STATE"}
     * @param minor describes the SUBTYPE, e.g. {@code "DAT_INVALID_STATE_EP_UNCONNECTED"}
     */
    public record Message(String major, String minor) {
    }

    /**
     * {@code dat_strerror}: the messages for the TYPE and SUBTYPE of a {@code DAT_RETURN} value.
     * Strings are the C identifiers, as in the reference implementation.
     *
     * @param rc a {@code DAT_RETURN} value; {@link #SUCCESS} is valid
     * @return the major (type) and minor (subtype) message
     * @throws DatException {@code DAT_INVALID_PARAMETER} when {@code rc} is not a defined 1.2 value
     */
    public static Message strerror(int rc) {
        DatReturnType type = DatReturnType.ofReturn(rc);
        DatReturnSubtype sub = DatReturnSubtype.ofReturn(rc);
        int cls = rc & (CLASS_ERROR | CLASS_WARNING);
        if (type == null || sub == null || (type == DatReturnType.SUCCESS && rc != 0)
                || cls == (CLASS_ERROR | CLASS_WARNING)) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "undefined DAT_RETURN 0x" + Integer.toHexString(rc));
        }
        return new Message(type.datName(), sub.datName());
    }
}
