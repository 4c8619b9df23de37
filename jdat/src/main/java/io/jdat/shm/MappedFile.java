package io.jdat.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;

/**
 * A file mapped read-write whose channel stays open for as long as the mapping's arena, so that a peer that
 * truncates the file can be found out with {@code fstat} ({@link #truncated()}).
 *
 * <p>Why: touching a page of a {@code MAP_SHARED} mapping beyond the file's end raises {@code SIGBUS}, which
 * the JVM turns into an {@link InternalError}. In compiled code that error is thrown asynchronously, at a
 * later safepoint, possibly outside the {@code try} around the access and so far from it that the faulting
 * connection cannot be told from the stack. The progress loops catch it at their top and ask every connection
 * whether one of its files shrank; the one that did breaks, the others go on.
 *
 * <p>The channel is closed when the arena, a {@link ChannelArena}, closes, on every path.
 */
final class MappedFile {
    private final FileChannel channel;
    private final MemorySegment segment;

    private MappedFile(FileChannel channel, MemorySegment segment) {
        this.channel = channel;
        this.segment = segment;
    }

    /**
     * Maps all of {@code channel} read-write in {@code arena} and keeps the channel open until the arena
     * closes. On failure the channel is closed.
     *
     * @param arena a {@link ChannelArena}, which closes the channel with it
     * @throws IllegalArgumentException if {@code arena} is not a {@link ChannelArena} (the channel is closed)
     */
    static MappedFile map(FileChannel channel, Arena arena) throws IOException {
        try {
            if (!(arena instanceof ChannelArena owner)) {
                throw new IllegalArgumentException("a MappedFile needs a ChannelArena, not " + arena);
            }
            MemorySegment m = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            owner.closeWith(channel);
            return new MappedFile(channel, m);
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    /** The mapping. */
    MemorySegment segment() {
        return segment;
    }

    /** True when the file is now shorter than the mapping (or cannot be asked): touching its tail would fault. */
    boolean truncated() {
        try {
            return channel.size() < segment.byteSize();
        } catch (IOException e) {
            return true; // closed with the arena: the mapping is gone as well
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
