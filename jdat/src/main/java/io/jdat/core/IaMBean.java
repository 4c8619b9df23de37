package io.jdat.core;

import io.jdat.DatException;
import io.jdat.DtoCounters;
import io.jdat.EpParam;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.ReflectionException;
import javax.management.openmbean.CompositeDataSupport;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenDataException;
import javax.management.openmbean.OpenMBeanAttributeInfoSupport;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;
import javax.management.openmbean.TabularDataSupport;
import javax.management.openmbean.TabularType;

/**
 * The JMX MBean of one open IA, {@code io.jdat:type=InterfaceAdapter,name=<ia>,id=<n>} in the platform
 * MBeanServer: registered when the IA opens, unregistered when it closes. Both happen in order on one daemon
 * thread ({@code jdat-jmx}), because the JVM's first use of the platform MBeanServer costs hundreds of
 * milliseconds (it starts every platform MXBean) that {@code dat_ia_open} should not wait for: the MBean
 * appears a moment after the open returns. Read-only attributes: the IA's
 * name, its DTO counters ({@link DtoCounters}, the sum over its Endpoints, freed ones included) and
 * {@code Endpoints}, a table with one row per live Endpoint (id, DAT state, remote address, counters).
 * A dynamic MBean with open types only, so any JMX client (jconsole, VisualVM, {@code jcmd}) reads it
 * without jdat's classes, and the core's package need not be exported to {@code java.management}.
 * Reading an attribute takes a snapshot: the data path is not touched.
 */
final class IaMBean implements DynamicMBean {
    /** The JMX domain and type of every IA's MBean. */
    static final String TYPE = "io.jdat:type=InterfaceAdapter";

    private static final System.Logger LOG = System.getLogger("io.jdat.core");
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final boolean ENABLED = !"false".equals(System.getProperty("jdat.jmx"));
    private static final String[] COUNTERS = {"RequestsPosted", "RequestsCompleted", "RequestsFlushed",
        "RequestErrors", "RequestBytes", "RecvsPosted", "RecvsCompleted", "RecvsFlushed", "RecvErrors", "RecvBytes"};
    private static final String[] COUNTER_TEXT = {"requests posted", "requests completed successfully",
        "requests flushed", "requests completed with another error", "bytes of successful requests",
        "receives posted", "receives completed successfully", "receives flushed",
        "receives completed with another error", "bytes of successful receives"};

    /** The open types and the MBeanInfo, made on the registering thread at the first registration. */
    private static final class Types {
        /** The items of an Endpoint row, in order. */
        static final String[] EP_ITEMS = new String[COUNTERS.length + 3];
        static final CompositeType EP_ROW;
        static final TabularType EP_TABLE;
        static final MBeanInfo INFO;

        static {
            try {
                String[] names = EP_ITEMS;
                String[] texts = new String[names.length];
                OpenType<?>[] types = new OpenType<?>[names.length];
                names[0] = "Id";
                texts[0] = "the Endpoint's identity hash (as in the JFR events' endpoint field)";
                types[0] = SimpleType.INTEGER;
                names[1] = "State";
                texts[1] = "the DAT state (DAT_EP_STATE_...)";
                types[1] = SimpleType.STRING;
                names[2] = "RemoteAddress";
                texts[2] = "the peer's IA address, empty when not connected";
                types[2] = SimpleType.STRING;
                for (int i = 0; i < COUNTERS.length; i++) {
                    names[i + 3] = COUNTERS[i];
                    texts[i + 3] = COUNTER_TEXT[i];
                    types[i + 3] = SimpleType.LONG;
                }
                EP_ROW = new CompositeType("io.jdat.Endpoint", "an Endpoint's DTO counters", names, texts, types);
                EP_TABLE = new TabularType("io.jdat.Endpoints", "the IA's live Endpoints", EP_ROW, new String[] {"Id"});
                MBeanAttributeInfo[] attrs = new MBeanAttributeInfo[COUNTERS.length + 2];
                attrs[0] = new OpenMBeanAttributeInfoSupport("Name", "the IA name (dat_ia_open)", SimpleType.STRING,
                        true, false, false);
                for (int i = 0; i < COUNTERS.length; i++) {
                    attrs[i + 1] = new OpenMBeanAttributeInfoSupport(COUNTERS[i], COUNTER_TEXT[i]
                            + ", over every Endpoint the IA has had", SimpleType.LONG, true, false, false);
                }
                attrs[attrs.length - 1] = new OpenMBeanAttributeInfoSupport("Endpoints",
                        "one row per live Endpoint: its state and DTO counters", EP_TABLE, true, false, false);
                INFO = new MBeanInfo(IaMBean.class.getName(), "A jdat Interface Adapter (DAT_IA_HANDLE) and its DTO counters",
                        attrs, null, new MBeanOperationInfo[0], null);
            } catch (OpenDataException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /** Registers and unregisters, in order, off the caller's thread; started at the first IA open. */
    private static final class Registrar {
        static final ExecutorService THREAD = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "jdat-jmx");
            t.setDaemon(true);
            return t;
        });
    }

    private final CoreIa ia;
    private final ObjectName name;

    private IaMBean(CoreIa ia, ObjectName name) {
        this.ia = ia;
        this.name = name;
    }

    /**
     * Registers the MBean of a newly opened IA (asynchronously, see the class comment); a failure (no
     * {@code java.management} in the runtime, a security policy) leaves the IA without one and is logged at
     * DEBUG. {@code -Djdat.jmx=false} registers nothing.
     *
     * @return the MBean, or {@code null} when there will be none
     */
    static IaMBean register(CoreIa ia) {
        if (!ENABLED) {
            return null;
        }
        try {
            String n = ia.name.matches("[A-Za-z0-9_.\\-]+") ? ia.name : ObjectName.quote(ia.name);
            IaMBean b = new IaMBean(ia, new ObjectName(TYPE + ",name=" + n + ",id=" + IDS.incrementAndGet()));
            Registrar.THREAD.execute(() -> {
                try {
                    ManagementFactory.getPlatformMBeanServer().registerMBean(b, b.name);
                } catch (Exception | LinkageError e) {
                    LOG.log(System.Logger.Level.DEBUG, () -> "no JMX MBean for IA " + ia.name + ": " + e);
                }
            });
            return b;
        } catch (Exception | LinkageError e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "no JMX MBean for IA " + ia.name + ": " + e);
            return null;
        }
    }

    /** Unregisters it (the IA closes), after its registration. */
    void unregister() {
        Registrar.THREAD.execute(() -> {
            try {
                MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                if (server.isRegistered(name)) {
                    server.unregisterMBean(name);
                }
            } catch (Exception | LinkageError e) {
                LOG.log(System.Logger.Level.DEBUG, () -> "unregistering " + name + ": " + e);
            }
        });
    }

    /** The MBean's name. */
    ObjectName name() {
        return name;
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        if ("Name".equals(attribute)) {
            return ia.name;
        }
        if ("Endpoints".equals(attribute)) {
            return endpoints();
        }
        for (int i = 0; i < COUNTERS.length; i++) {
            if (COUNTERS[i].equals(attribute)) {
                return counter(counters(), i);
            }
        }
        throw new AttributeNotFoundException(attribute);
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        AttributeList l = new AttributeList();
        for (String a : attributes) {
            try {
                l.add(new Attribute(a, getAttribute(a)));
            } catch (AttributeNotFoundException e) {
                // left out, as the interface says
            }
        }
        return l;
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) throws ReflectionException {
        throw new ReflectionException(new NoSuchMethodException(actionName), "the MBean has no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return Types.INFO;
    }

    private DtoCounters counters() {
        try {
            return ia.counters();
        } catch (DatException closed) {
            return DtoCounters.ZERO;
        }
    }

    private TabularDataSupport endpoints() {
        TabularDataSupport t = new TabularDataSupport(Types.EP_TABLE);
        List<CoreEp> eps = ia.endpoints();
        for (CoreEp ep : eps) {
            DtoCounters c = ep.counters.snapshot();
            Object[] values = new Object[COUNTERS.length + 3];
            values[0] = System.identityHashCode(ep);
            values[1] = ep.reportedState().datName();
            values[2] = remote(ep);
            for (int i = 0; i < COUNTERS.length; i++) {
                values[i + 3] = counter(c, i);
            }
            try {
                t.put(new CompositeDataSupport(Types.EP_ROW, Types.EP_ITEMS, values));
            } catch (OpenDataException e) {
                throw new IllegalStateException(e);
            }
        }
        return t;
    }

    private static String remote(CoreEp ep) {
        try {
            java.net.SocketAddress a = ep.query(EpParam.FIELD_REMOTE_IA_ADDRESS_PTR).remoteIaAddress();
            return a == null ? "" : a.toString();
        } catch (DatException freed) {
            return "";
        }
    }

    private static long counter(DtoCounters c, int i) {
        return switch (i) {
            case 0 -> c.requestsPosted();
            case 1 -> c.requestsCompleted();
            case 2 -> c.requestsFlushed();
            case 3 -> c.requestErrors();
            case 4 -> c.requestBytes();
            case 5 -> c.recvsPosted();
            case 6 -> c.recvsCompleted();
            case 7 -> c.recvsFlushed();
            case 8 -> c.recvErrors();
            default -> c.recvBytes();
        };
    }
}
