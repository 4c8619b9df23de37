package io.jdat;

/**
 * A synchronous DAT failure: the {@code DAT_RETURN} of the failed {@code dat_*} call, with its TYPE
 * and SUBTYPE.
 *
 * <p>Every jdat method that implements a {@code dat_*} function throws this unchecked exception
 * where the C function would return anything other than {@code DAT_SUCCESS}. Compare
 * {@link #type()} (the C {@code DAT_GET_TYPE(rc)}), never the whole word.
 */
public class DatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The DAT_RETURN type ({@code DAT_GET_TYPE}). */
    private final DatReturnType type;
    /** The DAT_RETURN subtype ({@code DAT_GET_SUBTYPE}). */
    private final DatReturnSubtype subtype;

    /**
     * Creates an exception for {@code DAT_ERROR(type, subtype)}.
     *
     * @param type    the DAT_RETURN type, never {@link DatReturnType#SUCCESS}
     * @param subtype the DAT_RETURN subtype
     * @param detail  a human-readable explanation of what was wrong
     */
    public DatException(DatReturnType type, DatReturnSubtype subtype, String detail) {
        super(type.datName() + (subtype == DatReturnSubtype.NO_SUBTYPE ? "" : " (" + subtype.datName() + ")")
                + (detail == null || detail.isEmpty() ? "" : ": " + detail));
        this.type = type;
        this.subtype = subtype;
    }

    /**
     * Creates an exception for {@code DAT_ERROR(type, DAT_NO_SUBTYPE)}.
     *
     * @param type the DAT_RETURN type, never {@link DatReturnType#SUCCESS}
     * @param detail a human-readable explanation of what was wrong
     */
    public DatException(DatReturnType type, String detail) {
        this(type, DatReturnSubtype.NO_SUBTYPE, detail);
    }

    /** {@return the TYPE of the return code ({@code DAT_GET_TYPE})} */
    public DatReturnType type() {
        return type;
    }

    /** {@return the SUBTYPE of the return code ({@code DAT_GET_SUBTYPE})} */
    public DatReturnSubtype subtype() {
        return subtype;
    }

    /** {@return the whole {@code DAT_RETURN} word a C consumer would see: {@code DAT_ERROR(type, subtype)}} */
    public int code() {
        return DatReturn.error(type, subtype);
    }
}
