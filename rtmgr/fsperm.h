/* fsperm.h — refuses configuration and kernel files that someone else could have
 * written: a world-writable file, or a world-writable directory on the way to it.
 *
 * rtmgr runs with real-time privileges (SCHED_FIFO, locked memory) and builds the OpenCL
 * programs it finds: a task set, board profile or kernel source that any user can
 * change is a way into it. The rules, for the path as given (made absolute) and for the
 * path with every symbolic link resolved:
 *   - the file must not be writable by others (S_IWOTH);
 *   - no directory from its parent up to / may be writable by others, unless that
 *     directory has the sticky bit (like /tmp: others cannot rename or remove entries
 *     they do not own, so a private directory or file below it stays private).
 * Group-writable files are allowed (a deployment may give an admin group write access).
 *
 * Everything here is init-only (stat, realpath, readdir). */
#ifndef RTM_FSPERM_H
#define RTM_FSPERM_H

#include <stddef.h>

#include "status.h"

/* Checks one file and the directories above it. RTM_OK; RTM_E_OS_PERM with `why` naming
 * the offending path ("/etc/rtmgr/default.yaml is writable by others (mode 0666)");
 * RTM_E_IO when the path cannot be examined (why says so). why may be NULL. */
rtm_status_t rtm_fsperm_check(const char *path, char *why, size_t len);

/* Checks a directory (as rtm_fsperm_check checks a file's parents, the directory itself
 * included) and every entry directly inside it: the kernel directory, whose sources
 * include each other. */
rtm_status_t rtm_fsperm_check_dir(const char *dir, char *why, size_t len);

#endif
