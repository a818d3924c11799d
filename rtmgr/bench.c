/* bench.c — helpers shared by the sub-benchmarks of `rtmgr bench` (see bench.h). */
#include "bench.h"
#include "os.h"

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
