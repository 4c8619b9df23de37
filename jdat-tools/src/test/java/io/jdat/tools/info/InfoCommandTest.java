package io.jdat.tools.info;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Registry;
import io.jdat.tools.cli.ToolRun;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InfoCommandTest {
    @Test
    void listsTheMemProvider() {
        ToolRun.Run r = ToolRun.jdat("info");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().lines().anyMatch("mem"::equals), r.out());
        assertTrue(r.out().contains("api version: u1.2"), r.out());
        assertTrue(r.out().contains("thread safe: yes"), r.out());
        assertTrue(r.out().contains("library: mem (jdat transport)"), r.out());
        assertTrue(r.out().contains(Registry.providerCount() + " IA name(s)"), r.out());
    }

    @Test
    void iaOptionPrintsEveryAttributeAndClosesTheIa() {
        int openBefore = Registry.openCount("mem");
        ToolRun.Run r = ToolRun.jdat("info", "--ia", "mem");
        assertEquals(0, r.exitCode(), r.err());
        for (String line : new String[] {"ia_address: mem:mem", "max_rdma_size: 1073741824",
            "provider_name: \"jdat-mem\"", "max_private_data_size: 256", "is_thread_safe: true",
            "completion_flags_supported: 0x1f (SUPPRESS|", "evd_stream_merging_supported:",
            "provider_specific_attr:", "vendor_attr:"}) {
            assertTrue(r.out().contains(line), "missing '" + line + "' in:\n" + r.out());
        }
        assertEquals(openBefore, Registry.openCount("mem"));
    }

    @Test
    void confFileEntriesAreListedAndTheRegistryRestored(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("dat.conf");
        Files.writeString(conf, "ofa-v2-ib0 u1.2 nonthreadsafe default libdaplofa.so.2 dapl.2.0 \"ib0 0\" \"\"\n");
        int before = Registry.providerCount();
        ToolRun.Run r = ToolRun.jdat("info", "-v", "--conf", conf.toString());
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("static registry file: " + conf), r.out());
        assertTrue(r.out().lines().anyMatch("ofa-v2-ib0"::equals), r.out());
        assertTrue(r.out().contains("thread safe: no"), r.out());
        assertTrue(r.out().contains("ia params: \"ib0 0\""), r.out());
        assertTrue(r.out().contains("max_rdma_size:"), "-v opens mem:\n" + r.out());
        assertEquals(before, Registry.providerCount(), "the registry was not restored");
    }

    @Test
    void unreadableConfFailsWithExitCode1() {
        ToolRun.Run r = ToolRun.jdat("info", "--conf", "/nonexistent/dat.conf");
        assertEquals(1, r.exitCode());
        assertTrue(r.err().startsWith("jdat info: error: DAT_INTERNAL_ERROR"), r.err());
    }

    @Test
    void unknownIaIsAUsageError() {
        ToolRun.Run r = ToolRun.jdat("info", "--ia", "no-such-ia");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().contains("--ia no-such-ia: no IA of that name is registered; the registered names are mem, "
                + "tcp"), r.err());
    }

    @Test
    void versionNamesTheApi() {
        ToolRun.Run r = ToolRun.jdat("--version");
        assertEquals(0, r.exitCode());
        assertTrue(r.out().contains("uDAPL 1.2"), r.out());
    }
}
