package io.jdat.shm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The peer of {@link ShmFilesTest}, run in a child JVM: opens {@link ShmFiles} at {@code args[0]}, creates an
 * instance with a 4 KiB file {@code ring}, prints {@code READY dir=<instance directory>}, then on the stdin line
 * {@code close} closes the instance and prints {@code CLOSED}; exits at end of input.
 */
public final class ShmFilesPeerMain {
    private ShmFilesPeerMain() {
    }

    /** Runs the peer; see the class comment. */
    public static void main(String[] args) throws Exception {
        ShmFiles files = ShmFiles.open(Path.of(args[0]));
        ShmFiles.Instance ia = files.createInstance();
        try (FileChannel ch = ia.createFile("ring", 4096)) {
            System.out.println("READY dir=" + ia.directory());
            System.out.flush();
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("close")) {
                ia.close();
                System.out.println("CLOSED");
                System.out.flush();
            }
        }
    }
}
