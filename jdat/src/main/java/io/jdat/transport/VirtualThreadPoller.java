package io.jdat.transport;

/**
 * Starts the JDK's I/O poller for virtual threads while file descriptors are still free.
 *
 * <p>A virtual thread that blocks on a socket parks on the JDK's poller ({@code sun.nio.ch.Poller}), which the
 * JDK creates, with its epoll descriptors and threads, the first time one blocks. If that first time comes when the
 * process has run out of descriptors (a listener's peers exhausting {@code ulimit -n}, the case
 * {@code ListenerFailureTest} builds), the poller's class initialization fails with {@code EMFILE}, and every
 * later blocking socket call of every virtual thread of the JVM fails with {@code NoClassDefFoundError}, long
 * after descriptors are free again. Stream transports therefore start it before their first listener or
 * outgoing connection ({@link StreamListener#start}, {@link OutgoingAttempt#launch}). Initializing the class by
 * name is all it takes and costs nothing after the first call; on a JDK without that class nothing happens.
 */
final class VirtualThreadPoller {
    /** Set once the poller is started (or known absent); racing callers both initialize, which the JVM serialises. */
    private static volatile boolean started;

    private VirtualThreadPoller() {
    }

    /** Starts the poller unless it runs already. */
    static void start() {
        if (started) {
            return;
        }
        try {
            Class.forName("sun.nio.ch.Poller", true, null);
        } catch (ClassNotFoundException e) {
            // another JDK: nothing to prepare
        } catch (LinkageError e) {
            // out of descriptors already: the JVM's poller is lost (a failed class initialization is final)
        }
        started = true;
    }
}
