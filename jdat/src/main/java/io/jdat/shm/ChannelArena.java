package io.jdat.shm;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A shared {@link Arena} that also closes the file channels given to {@link #closeWith} when it closes: the
 * mapping of a connection file and the channel {@link MappedFile} keeps open to watch its size end together.
 *
 * <p>Why not {@code MemorySegment.reinterpret(size, arena, cleanup)}: that method is restricted, and under
 * {@code --illegal-native-access=deny} (the JDK's announced future default) it throws
 * {@link IllegalCallerException} unless native access was enabled for jdat; the {@code shm} provider must work
 * there too (without cross-memory attach). Mapping a file in an arena is not restricted.
 *
 * <p>Thread-safe, like the shared arena it wraps: any thread may allocate, register or close.
 */
final class ChannelArena implements Arena {
    private final Arena arena = Arena.ofShared();
    private final List<Closeable> channels = new ArrayList<>();
    private boolean closed;

    private ChannelArena() {
    }

    /** A new shared arena ({@link Arena#ofShared()}) that closes registered channels with it. */
    static ChannelArena ofShared() {
        return new ChannelArena();
    }

    /** Closes {@code channel} when this arena closes, or at once if it is closed already. */
    void closeWith(Closeable channel) {
        synchronized (channels) {
            if (!closed) {
                channels.add(channel);
                return;
            }
        }
        closeQuietly(channel);
    }

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        return arena.allocate(byteSize, byteAlignment);
    }

    @Override
    public MemorySegment.Scope scope() {
        return arena.scope();
    }

    /**
     * Closes the arena (unmapping every segment in it, as {@link Arena#close()}), then the registered channels.
     *
     * @throws IllegalStateException as {@link Arena#close()}: if already closed, or a segment is in use by a
     *                               native call (the channels then stay open)
     */
    @Override
    public void close() {
        arena.close();
        List<Closeable> toClose;
        synchronized (channels) {
            closed = true;
            toClose = new ArrayList<>(channels);
            channels.clear();
        }
        for (Closeable c : toClose) {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // the descriptor is released either way
        }
    }
}
