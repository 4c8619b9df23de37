package io.jdat.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Creates and maps the files that hold rings: owner-only ({@code rw-------}) from the moment they exist, so
 * no other user can read or write a connection's memory; an opener refuses a file that others can access.
 * The mapping lives as long as the given arena; the channel is closed at once, or kept with the arena
 * ({@link #openWatched}).
 */
final class RingFile {
    /** {@code rw-------}. */
    static final Set<PosixFilePermission> OWNER_ONLY =
            Set.copyOf(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));

    private RingFile() {
    }

    /**
     * Creates {@code path} (it must not exist) with owner-only permissions, sizes it to {@code size} bytes
     * (zero-filled) and maps it read-write in {@code arena}.
     */
    static MemorySegment create(Path path, long size, Arena arena) throws IOException {
        try (FileChannel ch = FileChannel.open(path, Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(OWNER_ONLY))) {
            // the umask can only remove bits; make the mode exact anyway
            Files.setPosixFilePermissions(path, OWNER_ONLY);
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena); // grows the file to size
        }
    }

    /**
     * Maps all of an existing ring file read-write in {@code arena}.
     *
     * @throws IOException if the file is accessible to group or others, or cannot be mapped
     */
    static MemorySegment open(Path path, Arena arena) throws IOException {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(path);
        if (!OWNER_ONLY.containsAll(perms)) {
            throw new IOException(path + " is not owner-only: " + PosixFilePermissions.toString(perms));
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena);
        }
    }

    /**
     * Like {@link #open(Path, Arena)}, keeping the channel open with the arena so that a truncation of the file
     * can be detected ({@link MappedFile#truncated()}). The file must be a regular file itself, not a symbolic
     * link: a peer names these files, and a link could point the mapping at a file it was not given.
     */
    static MappedFile openWatched(Path path, Arena arena) throws IOException {
        if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(path + " is not a regular file");
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
        if (!OWNER_ONLY.containsAll(perms)) {
            throw new IOException(path + " is not owner-only: " + PosixFilePermissions.toString(perms));
        }
        return MappedFile.map(FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS), arena);
    }
}
