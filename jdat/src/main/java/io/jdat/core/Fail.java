package io.jdat.core;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;

/** Factories for the {@link DatException}s the core throws, so every call site names type and subtype. */
final class Fail {
    private static final DatReturnSubtype[] ARGS = {
        DatReturnSubtype.INVALID_ARG1, DatReturnSubtype.INVALID_ARG1, DatReturnSubtype.INVALID_ARG2,
        DatReturnSubtype.INVALID_ARG3, DatReturnSubtype.INVALID_ARG4, DatReturnSubtype.INVALID_ARG5,
        DatReturnSubtype.INVALID_ARG6, DatReturnSubtype.INVALID_ARG7, DatReturnSubtype.INVALID_ARG8,
        DatReturnSubtype.INVALID_ARG9, DatReturnSubtype.INVALID_ARG10,
    };

    private Fail() {
    }

    /** {@code DAT_INVALID_HANDLE}. */
    static DatException handle(DatReturnSubtype subtype, String detail) {
        return new DatException(DatReturnType.INVALID_HANDLE, subtype, detail);
    }

    /** {@code DAT_INVALID_PARAMETER} for the C argument at 1-based position {@code arg}. */
    static DatException param(int arg, String detail) {
        return new DatException(DatReturnType.INVALID_PARAMETER, ARGS[Math.min(Math.max(arg, 0), 10)], detail);
    }

    /** {@code DAT_INVALID_STATE}. */
    static DatException state(DatReturnSubtype subtype, String detail) {
        return new DatException(DatReturnType.INVALID_STATE, subtype, detail);
    }

    /** A failure of the given type without subtype. */
    static DatException of(DatReturnType type, String detail) {
        return new DatException(type, DatReturnSubtype.NO_SUBTYPE, detail);
    }

    /** A failure of the given type and subtype. */
    static DatException of(DatReturnType type, DatReturnSubtype subtype, String detail) {
        return new DatException(type, subtype, detail);
    }

    /** Checks a query mask against the defined bits. */
    static void checkMask(long mask, long all, int arg) {
        if ((mask & ~all) != 0) {
            throw param(arg, "undefined mask bits 0x" + Long.toHexString(mask & ~all));
        }
    }
}
