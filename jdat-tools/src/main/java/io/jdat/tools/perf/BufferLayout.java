package io.jdat.tools.perf;

/**
 * Where the buffers of the perf tests lie in each side's registered region (the same on both sides):
 * four small slots for the latency tests, a control slot (the serving side's end-of-round word, see
 * {@link PerfSession#endMarkOffset()}), then the bulk slots of the bandwidth tests: one (the buffer every transfer
 * of a stream reuses, as {@code ucx_perftest} and {@code fi_pingpong} do), or {@code 2 * window + 1} with
 * {@code --buffers per-op} (a buffer per outstanding transfer, out of cache); none when they do not run.
 * Every slot starts on a 256-byte boundary ({@code DAT_OPTIMAL_ALIGNMENT}).
 *
 * @param smallSlot bytes per small slot
 * @param bulkSlot  bytes per bulk slot
 * @param bulkSlots number of bulk slots
 */
record BufferLayout(long smallSlot, long bulkSlot, int bulkSlots) {
    /** The alignment of every slot. */
    static final long ALIGN = 256;
    /** Number of small slots. */
    static final int SMALL_SLOTS = 5;

    /**
     * The layout for a configuration.
     *
     * @param config the run settings
     * @return the layout
     */
    static BufferLayout of(PerfConfig config) {
        return new BufferLayout(align(config.maxSize()), align(config.bwSize()),
                !config.bandwidth() ? 0 : config.perOpBuffers() ? 2 * config.window() + 1 : 1);
    }

    /** The offset of small slot {@code i} (slot 4 is the control slot). */
    long small(int i) {
        return i * smallSlot;
    }

    /** The offset of bulk slot {@code i}. */
    long bulk(int i) {
        return SMALL_SLOTS * smallSlot + i * bulkSlot;
    }

    /** The size of the whole region. */
    long total() {
        return bulk(bulkSlots);
    }

    private static long align(long n) {
        return (n + ALIGN - 1) / ALIGN * ALIGN;
    }
}
