/* fsperm.c — the permission checks of configuration and kernel files (see fsperm.h).
 * Owns nothing; every call is a walk over stat() results. */
#include "fsperm.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "limits.h"

static rtm_status_t say(char *why, size_t len, rtm_status_t st, const char *path,
                        const char *what, unsigned mode)
{
    if (why && len) {
        if (mode)
            snprintf(why, len, "%s %s (mode %04o)", path, what, mode & 07777u);
        else
            snprintf(why, len, "%s: %s", path, what);
    }
    return st;
}

/* A directory is unsafe when others may write it and it lacks the sticky bit. */
static rtm_status_t check_dir_mode(const char *dir, char *why, size_t len)
{
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return say(why, len, RTM_E_IO, dir, strerror(errno), 0);
    if (S_ISDIR(sb.st_mode) && (sb.st_mode & S_IWOTH) && !(sb.st_mode & S_ISVTX))
        return say(why, len, RTM_E_OS_PERM, dir,
                   "is a directory writable by others without the sticky bit", (unsigned)sb.st_mode);
    return RTM_OK;
}

/* Every directory above `abs` (an absolute path), from its parent up to "/". */
static rtm_status_t check_parents(const char *abs, char *why, size_t len)
{
    char dir[RTM_PATH_MAX];
    if (snprintf(dir, sizeof(dir), "%s", abs) >= (int)sizeof(dir))
        return say(why, len, RTM_E_IO, abs, "path too long", 0);
    for (;;) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            return RTM_OK;
        if (slash == dir) {
            dir[1] = '\0';
            return check_dir_mode(dir, why, len);
        }
        *slash = '\0';
        const rtm_status_t st = check_dir_mode(dir, why, len);
        if (st != RTM_OK)
            return st;
    }
}

/* `path` made absolute against the working directory (lexically; not resolved). */
static bool absolute(const char *path, char *out, size_t len)
{
    if (path[0] == '/')
        return snprintf(out, len, "%s", path) < (int)len;
    char cwd[RTM_PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd)))
        return false;
    return snprintf(out, len, "%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, path) < (int)len;
}

static rtm_status_t check_one(const char *path, bool want_dir, char *why, size_t len)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return say(why, len, RTM_E_IO, path, strerror(errno), 0);
    if (want_dir ? !S_ISDIR(sb.st_mode) : S_ISDIR(sb.st_mode))
        return say(why, len, RTM_E_IO, path, want_dir ? "not a directory" : "is a directory", 0);
    if (want_dir) {
        const rtm_status_t st = check_dir_mode(path, why, len);
        if (st != RTM_OK)
            return st;
    } else if (sb.st_mode & S_IWOTH) {
        char *r = realpath(path, NULL); /* name the file itself, not a link to it */
        char name[RTM_PATH_MAX];
        snprintf(name, sizeof(name), "%s", r ? r : path);
        free(r);
        return say(why, len, RTM_E_OS_PERM, name, "is writable by others", (unsigned)sb.st_mode);
    }
    char abs[RTM_PATH_MAX], real[RTM_PATH_MAX];
    if (!absolute(path, abs, sizeof(abs)))
        return say(why, len, RTM_E_IO, path, "path too long", 0);
    rtm_status_t st = check_parents(abs, why, len);
    if (st != RTM_OK)
        return st;
    char *r = realpath(path, NULL);
    if (!r)
        return say(why, len, RTM_E_IO, path, strerror(errno), 0);
    const int rn = snprintf(real, sizeof(real), "%s", r);
    free(r);
    if (rn >= (int)sizeof(real))
        return say(why, len, RTM_E_IO, path, "path too long", 0);
    if (strcmp(real, abs) != 0) {
        /* through symbolic links: the real file and its real directories too */
        if (stat(real, &sb) != 0)
            return say(why, len, RTM_E_IO, real, strerror(errno), 0);
        if (!want_dir && (sb.st_mode & S_IWOTH))
            return say(why, len, RTM_E_OS_PERM, real, "is writable by others",
                       (unsigned)sb.st_mode);
        if (want_dir && (st = check_dir_mode(real, why, len)) != RTM_OK)
            return st;
        st = check_parents(real, why, len);
    }
    return st;
}

rtm_status_t rtm_fsperm_check(const char *path, char *why, size_t len)
{
    if (!path || !*path)
        return say(why, len, RTM_E_ARG, "(null)", "no path", 0);
    return check_one(path, false, why, len);
}

rtm_status_t rtm_fsperm_check_dir(const char *dir, char *why, size_t len)
{
    if (!dir || !*dir)
        return say(why, len, RTM_E_ARG, "(null)", "no path", 0);
    rtm_status_t st = check_one(dir, true, why, len);
    if (st != RTM_OK)
        return st;
    DIR *d = opendir(dir);
    if (!d)
        return say(why, len, RTM_E_IO, dir, strerror(errno), 0);
    const struct dirent *e;
    while (st == RTM_OK && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[RTM_PATH_MAX];
        if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
            continue;
        struct stat sb;
        if (lstat(p, &sb) != 0)
            continue;
        if ((S_ISREG(sb.st_mode) && (sb.st_mode & S_IWOTH)) ||
            (S_ISDIR(sb.st_mode) && (sb.st_mode & S_IWOTH) && !(sb.st_mode & S_ISVTX)))
            st = say(why, len, RTM_E_OS_PERM, p, "is writable by others", (unsigned)sb.st_mode);
        else if (S_ISLNK(sb.st_mode))
            st = rtm_fsperm_check(p, why, len); /* where it points must be safe too */
    }
    closedir(d);
    return st;
}
