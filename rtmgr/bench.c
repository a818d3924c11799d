/* bench.c — helpers shared by the sub-benchmarks of `rtmgr bench` (see bench.h). */
#include "bench.h"
#include "os.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double rtm_bench_now(void) { return rtm_os_now_s(); }

void rtm_bench_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int rtm_bench_apply_sizes(rtm_kinst_t *k, const char *spec, char *why, size_t len)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec);
    char *save = NULL;
    int set = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            snprintf(why, len, "size '%s' is not key=value", tok);
            return -1;
        }
        *eq = '\0';
        const int key = rtm_kernel_key(k->kernel, tok);
        char *end = NULL;
        const long long v = strtoll(eq + 1, &end, 10);
        if (key < 0 || *end) {
            snprintf(why, len, "kernel %s has no size key '%s' or '%s' is no integer",
                     k->kernel->name, tok, eq + 1);
            return -1;
        }
        k->size[key] = v;
        set |= 1 << key;
    }
    return set;
}
