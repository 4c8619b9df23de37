package io.jdat;

/**
 * The SUBTYPE part of a {@code DAT_RETURN} (bits 15..0): the uDAPL <b>1.2</b> sequential enumeration
 * of API.md §2.3 (the DAT 2.0 numbering differs after {@code INVALID_HANDLE_SRQ}).
 *
 * <p>{@link #code()} equals the enum ordinal and is the value of {@code DAT_GET_SUBTYPE(rc)}.
 * The C identifier is {@code "DAT_" + name()}.
 */
public enum DatReturnSubtype {
    /** {@code DAT_NO_SUBTYPE} = 0. */
    NO_SUBTYPE,
    /** {@code DAT_SUB_INTERRUPTED} = 1. */
    SUB_INTERRUPTED,
    /** {@code DAT_RESOURCE_MEMORY} = 2. */
    RESOURCE_MEMORY,
    /** {@code DAT_RESOURCE_DEVICE} = 3. */
    RESOURCE_DEVICE,
    /** {@code DAT_RESOURCE_TEP} = 4. */
    RESOURCE_TEP,
    /** {@code DAT_RESOURCE_TEVD} = 5. */
    RESOURCE_TEVD,
    /** {@code DAT_RESOURCE_PROTECTION_DOMAIN} = 6. */
    RESOURCE_PROTECTION_DOMAIN,
    /** {@code DAT_RESOURCE_MEMORY_REGION} = 7. */
    RESOURCE_MEMORY_REGION,
    /** {@code DAT_RESOURCE_ERROR_HANDLER} = 8. */
    RESOURCE_ERROR_HANDLER,
    /** {@code DAT_RESOURCE_CREDITS} = 9. */
    RESOURCE_CREDITS,
    /** {@code DAT_RESOURCE_SRQ} = 10. */
    RESOURCE_SRQ,
    /** {@code DAT_INVALID_HANDLE_IA} = 11. */
    INVALID_HANDLE_IA,
    /** {@code DAT_INVALID_HANDLE_EP} = 12. */
    INVALID_HANDLE_EP,
    /** {@code DAT_INVALID_HANDLE_LMR} = 13. */
    INVALID_HANDLE_LMR,
    /** {@code DAT_INVALID_HANDLE_RMR} = 14. */
    INVALID_HANDLE_RMR,
    /** {@code DAT_INVALID_HANDLE_PZ} = 15. */
    INVALID_HANDLE_PZ,
    /** {@code DAT_INVALID_HANDLE_PSP} = 16. */
    INVALID_HANDLE_PSP,
    /** {@code DAT_INVALID_HANDLE_RSP} = 17. */
    INVALID_HANDLE_RSP,
    /** {@code DAT_INVALID_HANDLE_CR} = 18. */
    INVALID_HANDLE_CR,
    /** {@code DAT_INVALID_HANDLE_CNO} = 19. */
    INVALID_HANDLE_CNO,
    /** {@code DAT_INVALID_HANDLE_EVD_CR} = 20. */
    INVALID_HANDLE_EVD_CR,
    /** {@code DAT_INVALID_HANDLE_EVD_REQUEST} = 21. */
    INVALID_HANDLE_EVD_REQUEST,
    /** {@code DAT_INVALID_HANDLE_EVD_RECV} = 22. */
    INVALID_HANDLE_EVD_RECV,
    /** {@code DAT_INVALID_HANDLE_EVD_CONN} = 23. */
    INVALID_HANDLE_EVD_CONN,
    /** {@code DAT_INVALID_HANDLE_EVD_ASYNC} = 24. */
    INVALID_HANDLE_EVD_ASYNC,
    /** {@code DAT_INVALID_HANDLE_SRQ} = 25. */
    INVALID_HANDLE_SRQ,
    /** {@code DAT_INVALID_HANDLE1} = 26. */
    INVALID_HANDLE1,
    /** {@code DAT_INVALID_HANDLE2} = 27. */
    INVALID_HANDLE2,
    /** {@code DAT_INVALID_HANDLE3} = 28. */
    INVALID_HANDLE3,
    /** {@code DAT_INVALID_HANDLE4} = 29. */
    INVALID_HANDLE4,
    /** {@code DAT_INVALID_HANDLE5} = 30. */
    INVALID_HANDLE5,
    /** {@code DAT_INVALID_HANDLE6} = 31. */
    INVALID_HANDLE6,
    /** {@code DAT_INVALID_HANDLE7} = 32. */
    INVALID_HANDLE7,
    /** {@code DAT_INVALID_HANDLE8} = 33. */
    INVALID_HANDLE8,
    /** {@code DAT_INVALID_HANDLE9} = 34. */
    INVALID_HANDLE9,
    /** {@code DAT_INVALID_HANDLE10} = 35. */
    INVALID_HANDLE10,
    /** {@code DAT_INVALID_ARG1} = 36. */
    INVALID_ARG1,
    /** {@code DAT_INVALID_ARG2} = 37. */
    INVALID_ARG2,
    /** {@code DAT_INVALID_ARG3} = 38. */
    INVALID_ARG3,
    /** {@code DAT_INVALID_ARG4} = 39. */
    INVALID_ARG4,
    /** {@code DAT_INVALID_ARG5} = 40. */
    INVALID_ARG5,
    /** {@code DAT_INVALID_ARG6} = 41. */
    INVALID_ARG6,
    /** {@code DAT_INVALID_ARG7} = 42. */
    INVALID_ARG7,
    /** {@code DAT_INVALID_ARG8} = 43. */
    INVALID_ARG8,
    /** {@code DAT_INVALID_ARG9} = 44. */
    INVALID_ARG9,
    /** {@code DAT_INVALID_ARG10} = 45. */
    INVALID_ARG10,
    /** {@code DAT_INVALID_STATE_EP_UNCONNECTED} = 46. */
    INVALID_STATE_EP_UNCONNECTED,
    /** {@code DAT_INVALID_STATE_EP_ACTCONNPENDING} = 47. */
    INVALID_STATE_EP_ACTCONNPENDING,
    /** {@code DAT_INVALID_STATE_EP_PASSCONNPENDING} = 48. */
    INVALID_STATE_EP_PASSCONNPENDING,
    /** {@code DAT_INVALID_STATE_EP_TENTCONNPENDING} = 49. */
    INVALID_STATE_EP_TENTCONNPENDING,
    /** {@code DAT_INVALID_STATE_EP_CONNECTED} = 50. */
    INVALID_STATE_EP_CONNECTED,
    /** {@code DAT_INVALID_STATE_EP_DISCONNECTED} = 51. */
    INVALID_STATE_EP_DISCONNECTED,
    /** {@code DAT_INVALID_STATE_EP_RESERVED} = 52. */
    INVALID_STATE_EP_RESERVED,
    /** {@code DAT_INVALID_STATE_EP_COMPLPENDING} = 53. */
    INVALID_STATE_EP_COMPLPENDING,
    /** {@code DAT_INVALID_STATE_EP_DISCPENDING} = 54. */
    INVALID_STATE_EP_DISCPENDING,
    /** {@code DAT_INVALID_STATE_EP_PROVIDERCONTROL} = 55. */
    INVALID_STATE_EP_PROVIDERCONTROL,
    /** {@code DAT_INVALID_STATE_EP_NOTREADY} = 56. */
    INVALID_STATE_EP_NOTREADY,
    /** {@code DAT_INVALID_STATE_EP_RECV_WATERMARK} = 57. */
    INVALID_STATE_EP_RECV_WATERMARK,
    /** {@code DAT_INVALID_STATE_EP_PZ} = 58. */
    INVALID_STATE_EP_PZ,
    /** {@code DAT_INVALID_STATE_EP_EVD_REQUEST} = 59. */
    INVALID_STATE_EP_EVD_REQUEST,
    /** {@code DAT_INVALID_STATE_EP_EVD_RECV} = 60. */
    INVALID_STATE_EP_EVD_RECV,
    /** {@code DAT_INVALID_STATE_EP_EVD_CONNECT} = 61. */
    INVALID_STATE_EP_EVD_CONNECT,
    /** {@code DAT_INVALID_STATE_EP_UNCONFIGURED} = 62. */
    INVALID_STATE_EP_UNCONFIGURED,
    /** {@code DAT_INVALID_STATE_EP_UNCONFRESERVED} = 63. */
    INVALID_STATE_EP_UNCONFRESERVED,
    /** {@code DAT_INVALID_STATE_EP_UNCONFPASSIVE} = 64. */
    INVALID_STATE_EP_UNCONFPASSIVE,
    /** {@code DAT_INVALID_STATE_EP_UNCONFTENTATIVE} = 65. */
    INVALID_STATE_EP_UNCONFTENTATIVE,
    /** {@code DAT_INVALID_STATE_CNO_IN_USE} = 66. */
    INVALID_STATE_CNO_IN_USE,
    /** {@code DAT_INVALID_STATE_CNO_DEAD} = 67. */
    INVALID_STATE_CNO_DEAD,
    /** {@code DAT_INVALID_STATE_EVD_OPEN} = 68. */
    INVALID_STATE_EVD_OPEN,
    /** {@code DAT_INVALID_STATE_EVD_ENABLED} = 69. */
    INVALID_STATE_EVD_ENABLED,
    /** {@code DAT_INVALID_STATE_EVD_DISABLED} = 70. */
    INVALID_STATE_EVD_DISABLED,
    /** {@code DAT_INVALID_STATE_EVD_WAITABLE} = 71. */
    INVALID_STATE_EVD_WAITABLE,
    /** {@code DAT_INVALID_STATE_EVD_UNWAITABLE} = 72. */
    INVALID_STATE_EVD_UNWAITABLE,
    /** {@code DAT_INVALID_STATE_EVD_IN_USE} = 73. */
    INVALID_STATE_EVD_IN_USE,
    /** {@code DAT_INVALID_STATE_EVD_CONFIG_NOTIFY} = 74. */
    INVALID_STATE_EVD_CONFIG_NOTIFY,
    /** {@code DAT_INVALID_STATE_EVD_CONFIG_SOLICITED} = 75. */
    INVALID_STATE_EVD_CONFIG_SOLICITED,
    /** {@code DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD} = 76. */
    INVALID_STATE_EVD_CONFIG_THRESHOLD,
    /** {@code DAT_INVALID_STATE_EVD_WAITER} = 77. */
    INVALID_STATE_EVD_WAITER,
    /** {@code DAT_INVALID_STATE_EVD_ASYNC} = 78. */
    INVALID_STATE_EVD_ASYNC,
    /** {@code DAT_INVALID_STATE_IA_IN_USE} = 79. */
    INVALID_STATE_IA_IN_USE,
    /** {@code DAT_INVALID_STATE_LMR_IN_USE} = 80. */
    INVALID_STATE_LMR_IN_USE,
    /** {@code DAT_INVALID_STATE_LMR_FREE} = 81. */
    INVALID_STATE_LMR_FREE,
    /** {@code DAT_INVALID_STATE_PZ_IN_USE} = 82. */
    INVALID_STATE_PZ_IN_USE,
    /** {@code DAT_INVALID_STATE_PZ_FREE} = 83. */
    INVALID_STATE_PZ_FREE,
    /** {@code DAT_INVALID_STATE_SRQ_OPERATIONAL} = 84. */
    INVALID_STATE_SRQ_OPERATIONAL,
    /** {@code DAT_INVALID_STATE_SRQ_ERROR} = 85. */
    INVALID_STATE_SRQ_ERROR,
    /** {@code DAT_INVALID_STATE_SRQ_IN_USE} = 86. */
    INVALID_STATE_SRQ_IN_USE,
    /** {@code DAT_PRIVILEGES_READ} = 87. */
    PRIVILEGES_READ,
    /** {@code DAT_PRIVILEGES_WRITE} = 88. */
    PRIVILEGES_WRITE,
    /** {@code DAT_PRIVILEGES_RDMA_READ} = 89. */
    PRIVILEGES_RDMA_READ,
    /** {@code DAT_PRIVILEGES_RDMA_WRITE} = 90. */
    PRIVILEGES_RDMA_WRITE,
    /** {@code DAT_PROTECTION_READ} = 91. */
    PROTECTION_READ,
    /** {@code DAT_PROTECTION_WRITE} = 92. */
    PROTECTION_WRITE,
    /** {@code DAT_PROTECTION_RDMA_READ} = 93. */
    PROTECTION_RDMA_READ,
    /** {@code DAT_PROTECTION_RDMA_WRITE} = 94. */
    PROTECTION_RDMA_WRITE,
    /** {@code DAT_INVALID_ADDRESS_UNSUPPORTED} = 95. */
    INVALID_ADDRESS_UNSUPPORTED,
    /** {@code DAT_INVALID_ADDRESS_UNREACHABLE} = 96. */
    INVALID_ADDRESS_UNREACHABLE,
    /** {@code DAT_INVALID_ADDRESS_MALFORMED} = 97. */
    INVALID_ADDRESS_MALFORMED,
    /** {@code DAT_NAME_NOT_REGISTERED} = 98. */
    NAME_NOT_REGISTERED,
    /** {@code DAT_MAJOR_NOT_FOUND} = 99. */
    MAJOR_NOT_FOUND,
    /** {@code DAT_MINOR_NOT_FOUND} = 100. */
    MINOR_NOT_FOUND,
    /** {@code DAT_THREAD_SAFETY_NOT_FOUND} = 101. */
    THREAD_SAFETY_NOT_FOUND;

    private static final DatReturnSubtype[] VALUES = values();

    /** {@return the numeric SUBTYPE value ({@code DAT_GET_SUBTYPE})} */
    public int code() {
        return ordinal();
    }

    /** {@return the C identifier, e.g. {@code "DAT_INVALID_STATE_EP_UNCONNECTED"}} */
    public String datName() {
        return "DAT_" + name();
    }

    /**
     * The subtype of a {@code DAT_RETURN} word.
     *
     * @param rc a whole {@code DAT_RETURN} word or a bare subtype
     * @return the subtype, or {@code null} when the value names no 1.2 subtype
     */
    public static DatReturnSubtype ofReturn(int rc) {
        int s = rc & DatReturn.SUBTYPE_MASK;
        return s < VALUES.length ? VALUES[s] : null;
    }
}
