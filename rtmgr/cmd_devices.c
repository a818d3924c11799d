/* cmd_devices.c — `rtmgr devices`: lists the OpenCL platforms and devices rtmgr can use,
 * with what placement and calibration depend on (units, clock, memories, work-group and
 * vector widths, double support, host-unified memory). The index printed is the N of
 * `--device N` elsewhere. Exit 3 when no platform or device is found. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ocl.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: rtmgr devices\n\n"
               "Lists OpenCL platforms and devices; the index is the N of --device N.\n");
}

static const char *type_name(cl_device_type t, char *buf, size_t len)
{
    buf[0] = '\0';
    static const struct {
        cl_device_type bit;
        const char *name;
    } types[] = {{CL_DEVICE_TYPE_CPU, "CPU"},
                 {CL_DEVICE_TYPE_GPU, "GPU"},
                 {CL_DEVICE_TYPE_ACCELERATOR, "accelerator"},
                 {CL_DEVICE_TYPE_CUSTOM, "custom"},
                 {CL_DEVICE_TYPE_DEFAULT, "default"}};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (t & types[i].bit)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "",
                     types[i].name);
    return buf[0] ? buf : "unknown";
}

/* "1.5 GiB", "64 KiB" */
static const char *bytes_str(cl_ulong b, char *buf, size_t len)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, len, u == 0 || v >= 100.0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

static void platform_line(cl_platform_id p, uint32_t index)
{
    char name[256] = "", version[256] = "", vendor[256] = "";
    cl_int err = clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(name) - 1, name, NULL);
    if (err == CL_SUCCESS)
        err = clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof(version) - 1, version, NULL);
    if (err == CL_SUCCESS)
        err = clGetPlatformInfo(p, CL_PLATFORM_VENDOR, sizeof(vendor) - 1, vendor, NULL);
    if (err != CL_SUCCESS)
        rtm_ocl_fail("clGetPlatformInfo", err, __FILE__, __LINE__);
    printf("platform %u: %s (%s)\n  version %s\n", index, name, vendor, version);
}

static void device_block(const rtm_ocl_info_t *d)
{
    char t[64], gm[32], lm[32], ma[32];
    printf("  [%u] %s\n", d->index, d->name);
    printf("      %-22s %s\n", "platform", d->platform_name);
    printf("      %-22s %s\n", "vendor", d->vendor);
    printf("      %-22s %s\n", "type", type_name(d->type, t, sizeof(t)));
    printf("      %-22s %u\n", "compute units", d->units);
    printf("      %-22s %u MHz\n", "clock", d->clock_mhz);
    printf("      %-22s %s\n", "global memory", bytes_str(d->global_mem, gm, sizeof(gm)));
    printf("      %-22s %s\n", "local memory", bytes_str(d->local_mem, lm, sizeof(lm)));
    printf("      %-22s %s\n", "max allocation", bytes_str(d->max_alloc, ma, sizeof(ma)));
    printf("      %-22s %zu\n", "max work-group", d->max_wg);
    printf("      %-22s %s\n", "OpenCL version", d->version);
    printf("      %-22s %s\n", "OpenCL C version", d->c_version);
    printf("      %-22s %s\n", "driver version", d->driver);
    printf("      %-22s char %u, int %u, float %u, double %u\n", "preferred vector width",
           d->pref_vec_char, d->pref_vec_int, d->pref_vec_float, d->pref_vec_double);
    printf("      %-22s %s\n", "double precision", d->has_double ? "yes" : "no");
    printf("      %-22s %s\n", "host-unified memory", d->host_unified ? "yes" : "no");
}

int rtm_cmd_devices(int argc, char **argv)
{
    if (argc > 1) {
        const int help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
        usage(help ? stdout : stderr);
        return help ? RTM_EXIT_OK : RTM_EXIT_USAGE;
    }
    rtm_ocl_info_t dev[RTM_MAX_DEVICES];
    uint32_t n = 0;
    const rtm_status_t st = rtm_ocl_discover(dev, RTM_MAX_DEVICES, &n);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr devices: no usable OpenCL device: %s\n", rtm_strerror(st));
        return RTM_EXIT_RUNTIME;
    }
    uint32_t platforms = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || dev[i].platform != dev[i - 1].platform)
            platform_line(dev[i].platform, platforms++);
        device_block(&dev[i]);
    }
    printf("%u device%s on %u platform%s\n", n, n == 1 ? "" : "s", platforms,
           platforms == 1 ? "" : "s");
    return RTM_EXIT_OK;
}
