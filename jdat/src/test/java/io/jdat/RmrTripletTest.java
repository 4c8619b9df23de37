package io.jdat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** {@link RmrTriplet#encode} / {@link RmrTriplet#decode}: dtest's 16-byte big-endian DAT_RMR_TRIPLET, bounds-checked. */
class RmrTripletTest {
    private static final RmrTriplet T = new RmrTriplet(0x11223344, 0x0102030405060708L, 0xA0B0C0D0L);

    @Test
    void encodesBigEndianAddressLengthContextLikeDtest() {
        byte[] b = new byte[RmrTriplet.BYTES + 4];
        assertEquals(2 + RmrTriplet.BYTES, T.encode(MemorySegment.ofArray(b), 2));
        assertEquals("0000" + "0102030405060708" + "a0b0c0d0" + "11223344" + "0000", HexFormat.of().formatHex(b));
    }

    @Test
    void decodesWhatItEncodesIncludingUnsignedLengthAndHighAddress() {
        RmrTriplet t = new RmrTriplet(-1, -4096L, 0xFFFF_FFFFL);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocate(40);
            t.encode(m, 21);
            assertEquals(t, RmrTriplet.decode(m, 21));
        }
        byte[] b = new byte[16];
        T.encode(MemorySegment.ofArray(b), 0);
        assertEquals(T, RmrTriplet.decode(MemorySegment.ofArray(b), 0));
    }

    @Test
    void shortSegmentsAreLengthErrorsAndNothingIsWritten() {
        byte[] b = new byte[RmrTriplet.BYTES + 3];
        MemorySegment m = MemorySegment.ofArray(b);
        for (long off : new long[] {4, 19, -1, Long.MAX_VALUE, Long.MIN_VALUE}) {
            DatException e = assertThrows(DatException.class, () -> T.encode(m, off));
            assertEquals(DatReturnType.LENGTH_ERROR, e.type());
            e = assertThrows(DatException.class, () -> RmrTriplet.decode(m, off));
            assertEquals(DatReturnType.LENGTH_ERROR, e.type());
        }
        assertArrayEquals(new byte[b.length], b);
        assertEquals(DatReturnType.LENGTH_ERROR,
                assertThrows(DatException.class, () -> RmrTriplet.decode(MemorySegment.ofArray(new byte[15]), 0)).type());
    }

    @Test
    void nullReadOnlyAndOversizedAreInvalidParameter() {
        DatException e = assertThrows(DatException.class, () -> RmrTriplet.decode(null, 0));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
        assertEquals(DatReturnSubtype.INVALID_ARG1, e.subtype());
        e = assertThrows(DatException.class, () -> T.encode(MemorySegment.ofArray(new byte[16]).asReadOnly(), 0));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
        e = assertThrows(DatException.class,
                () -> new RmrTriplet(1, 0, 1L << 32).encode(MemorySegment.ofArray(new byte[16]), 0));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
        assertEquals(DatReturnSubtype.INVALID_ARG1, e.subtype());
    }
}
