package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.Lmr;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import io.jdat.testing.DataPath;
import io.jdat.testing.Pair;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Run by {@link ShmNativeAccessTest} in a child JVM started with {@code --illegal-native-access=deny}, with
 * native access enabled ({@code jdat.test.nativeAccess=enabled}) or not ({@code =denied}). Not a test of the
 * build by itself (its name does not end in Test; it is disabled without the property).
 */
@EnabledIfSystemProperty(named = "jdat.test.nativeAccess", matches = "enabled|denied")
class ShmNativeAccessChecks {
    private static boolean enabled() {
        return System.getProperty("jdat.test.nativeAccess").equals("enabled");
    }

    @BeforeAll
    static void register() {
        ShmTesting.register();
    }

    @Test
    void crossMemoryFollowsTheJvmSetting() {
        assertEquals(!enabled(), CrossMemory.nativeAccessRefused());
        if (enabled()) {
            assertTrue(CrossMemory.isSupported() || !System.getProperty("os.name").startsWith("Linux"));
        } else {
            assertFalse(CrossMemory.isSupported());
            assertTrue(CrossMemory.available().isEmpty());
            CrossMemoryException e = assertThrows(CrossMemoryException.class, CrossMemory::probe);
            assertEquals(CrossMemoryException.Reason.NOT_SUPPORTED, e.reason());
            assertTrue(e.getMessage().contains("--enable-native-access=ALL-UNNAMED"), e.getMessage());
        }
    }

    @Test
    void anIaOpensAndMovesDataBothWays() {
        try (Pair p = new Pair(ShmTesting.SHM, null, 64).connect()) {
            ShmTesting.exchangeBothWays(p);
        }
    }

    @Test
    void sharedMemoryIsMappedByThePeer() {
        try (Pair p = new Pair(ShmTesting.SHM, null, 64).connect();
                ShmMemory mem = ShmMemory.allocate(1 << 20)) {
            Lmr lmr = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(mem.segment()),
                    mem.segment().byteSize(), p.client.pz, MemPriv.ALL);
            for (int i = 0; i < 200000; i++) {
                mem.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 3));
            }
            RmrTriplet remote = new RmrTriplet(p.server.lmr.rmrContext(), p.server.buf.address(), 60000);
            p.client.ep.postRdmaWrite(1, new LmrTriplet[] {lmr.triplet(0, 60000)}, 7, remote,
                    CompletionFlags.DEFAULT);
            DataPath.dtoOk(p.client.reqEvd, 7, 60000);
            for (int i = 0; i < 60000; i++) {
                assertEquals((byte) (i * 3), p.server.buf.get(ValueLayout.JAVA_BYTE, i), "at " + i);
            }
            lmr.free();
        }
    }
}
