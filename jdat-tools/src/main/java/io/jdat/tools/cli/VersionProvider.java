package io.jdat.tools.cli;

import io.jdat.Dat;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** The {@code --version} text: the jdat-tools version, the DAT API version and the JVM. */
public final class VersionProvider implements CommandLine.IVersionProvider {
    /** Creates the provider (picocli instantiates it). */
    public VersionProvider() {
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "jdat " + toolsVersion() + " (DAT API uDAPL " + Dat.VERSION_MAJOR + "." + Dat.VERSION_MINOR + ")",
            "JVM: " + jvm()
        };
    }

    /**
     * The Maven version of jdat-tools, read from the jar's {@code pom.properties}.
     *
     * @return the version, or {@code "dev"} when run from a class directory
     */
    public static String toolsVersion() {
        try (InputStream in = VersionProvider.class.getResourceAsStream(
                "/META-INF/maven/io.jdat/jdat-tools/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "dev");
            }
        } catch (IOException e) {
            // fall through
        }
        return "dev";
    }

    /**
     * A one-line description of the running JVM.
     *
     * @return e.g. {@code "25.0.1+8-LTS (Eclipse Adoptium OpenJDK 64-Bit Server VM)"}
     */
    public static String jvm() {
        return Runtime.version() + " (" + System.getProperty("java.vendor", "?") + " "
                + System.getProperty("java.vm.name", "?") + ")";
    }
}
