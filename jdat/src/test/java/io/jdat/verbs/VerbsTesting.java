package io.jdat.verbs;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.conformance.Transports.IaUnderTest;
import java.util.List;

/**
 * The {@code verbs} IAs the conformance suite runs on where there is an RDMA device: named by the system property
 * {@value #PROPERTY} as {@code LABEL:NETDEV} (e.g. {@code siw:eth0}; {@code interop/verbs.sh} sets it in the
 * siw-vm guest through {@link VerbsConformance}). Without it, none: the host has no device.
 */
public final class VerbsTesting {
    /** The system property that names the device's label and network interface. */
    public static final String PROPERTY = "jdat.conformance.verbs";

    private VerbsTesting() {
    }

    /** {@return the verbs IA of {@value #PROPERTY}, or none} */
    public static List<IaUnderTest> underTest() {
        String v = System.getProperty(PROPERTY);
        if (v == null || v.isEmpty()) {
            return List.of();
        }
        String label = v.substring(0, v.indexOf(':'));
        String netdev = v.substring(v.indexOf(':') + 1);
        String ia = "verbs-conformance-" + label;
        // iWARP (siw) completes a Send or RDMA Write when it is sent, as jdat's tcp does.
        return List.of(new IaUnderTest(ia, "verbs", label.startsWith("siw"), () -> register(ia, netdev)));
    }

    private static synchronized void register(String ia, String netdev) {
        try {
            Registry.addProvider(new RegistryEntry(ia, 'u', 1, 2, true, false, "verbs", "jdat", 1, 0, netdev + " 0",
                    ""));
        } catch (DatException e) {
            if (e.type() != DatReturnType.PROVIDER_ALREADY_REGISTERED) {
                throw e;
            }
        }
    }
}
