/* status.h — the one status type of rtmgr.
 *
 * RTM_OK is 0; every error is negative, grouped in ranges of 100 per subsystem so
 * that a code names where it came from. rtm_strerror() names every code. */
#ifndef RTM_STATUS_H
#define RTM_STATUS_H

typedef int rtm_status_t;

#define RTM_STATUS_LIST(X)                                                        \
    X(RTM_OK, 0, "ok")                                                            \
    /* generic -1..-99 */                                                         \
    X(RTM_E_ARG, -1, "invalid argument")                                          \
    X(RTM_E_NOMEM, -2, "out of memory or static capacity")                        \
    X(RTM_E_STATE, -3, "call not allowed in this lifecycle phase")                \
    X(RTM_E_RANGE, -4, "value out of range")                                      \
    X(RTM_E_FULL, -5, "queue or ring full")                                       \
    X(RTM_E_EMPTY, -6, "queue or ring empty")                                     \
    X(RTM_E_NOTFOUND, -7, "not found")                                            \
    X(RTM_E_ABORTED, -8, "aborted")                                               \
    X(RTM_E_MISMATCH, -9, "results differ")                                       \
    /* configuration -100..-199 */                                                \
    X(RTM_E_CFG_IO, -100, "configuration file unreadable")                        \
    X(RTM_E_CFG_SYNTAX, -101, "YAML syntax error")                                \
    X(RTM_E_CFG_SCHEMA, -102, "configuration does not match the schema")          \
    X(RTM_E_CFG_VALUE, -103, "configuration value invalid")                       \
    X(RTM_E_CFG_LIMIT, -104, "configuration exceeds a limit")                     \
    X(RTM_E_CFG_BOARD, -105, "board profile invalid")                             \
    X(RTM_E_CFG_PERM, -106, "configuration or kernel file writable by others")    \
    /* OpenCL -200..-299 */                                                       \
    X(RTM_E_CL, -200, "OpenCL call failed")                                       \
    X(RTM_E_CL_NODEV, -201, "no matching OpenCL device")                          \
    X(RTM_E_CL_BUILD, -202, "OpenCL program build failed")                        \
    X(RTM_E_CL_TYPE, -203, "device lacks a required data type")                   \
    /* OS -300..-399 */                                                           \
    X(RTM_E_OS, -300, "operating-system call failed")                             \
    X(RTM_E_OS_PERM, -301, "not permitted")                                       \
    X(RTM_E_OS_THREAD, -302, "thread creation failed")                            \
    /* model -400..-499 */                                                        \
    X(RTM_E_MODEL, -400, "model has no parameters for this device")               \
    X(RTM_E_MODEL_STALE, -401, "board profile is stale for this device")          \
    X(RTM_E_MODEL_PARAM, -402, "model parameter out of range (negative, zero rate)") \
    /* I/O and log -500..-599 */                                                  \
    X(RTM_E_IO, -500, "file I/O failed")                                          \
    X(RTM_E_PARSE, -501, "input malformed")                                      \
    /* AIS input -520..-529 */                                                    \
    X(RTM_E_AIS_ARMOR, -520, "AIS payload not 6-bit armoured or bad fill bits")   \
    X(RTM_E_AIS_TYPE, -521, "AIS message type not decoded")                       \
    X(RTM_E_AIS_LENGTH, -522, "AIS message length wrong for its type")

enum {
#define RTM_STATUS_ENUM(name, value, text) name = (value),
    RTM_STATUS_LIST(RTM_STATUS_ENUM)
#undef RTM_STATUS_ENUM
};

/* Name and meaning of a status code ("RTM_E_CFG_SYNTAX: YAML syntax error").
 * Never NULL; unknown codes give "unknown status". Safe on the real-time path. */
const char *rtm_strerror(rtm_status_t status);

/* Symbolic name only ("RTM_E_CFG_SYNTAX"). Safe on the real-time path. */
const char *rtm_status_name(rtm_status_t status);

#endif
