package io.jdat;

/** {@code DAT_QOS} (API.md §3.2). */
public final class Qos {
    /** {@code DAT_QOS_BEST_EFFORT}. */
    public static final int BEST_EFFORT = 0x00;
    /** {@code DAT_QOS_HIGH_THROUGHPUT}. */
    public static final int HIGH_THROUGHPUT = 0x01;
    /** {@code DAT_QOS_LOW_LATENCY}. */
    public static final int LOW_LATENCY = 0x02;
    /** {@code DAT_QOS_ECONOMY}: neither low latency nor high throughput. */
    public static final int ECONOMY = 0x04;
    /** {@code DAT_QOS_PREMIUM}: both. */
    public static final int PREMIUM = 0x08;
    /** Every defined bit. */
    public static final int ALL = 0x0F;

    private Qos() {
    }
}
