/* status.c — names every rtmgr status code (see status.h). */
#include "status.h"

const char *rtm_strerror(rtm_status_t status)
{
    switch (status) {
#define RTM_STATUS_TEXT(name, value, text) \
    case name:                            \
        return #name ": " text;
        RTM_STATUS_LIST(RTM_STATUS_TEXT)
#undef RTM_STATUS_TEXT
    default:
        return "unknown status";
    }
}

const char *rtm_status_name(rtm_status_t status)
{
    switch (status) {
#define RTM_STATUS_NAME(name, value, text) \
    case name:                            \
        return #name;
        RTM_STATUS_LIST(RTM_STATUS_NAME)
#undef RTM_STATUS_NAME
    default:
        return "RTM_E_UNKNOWN";
    }
}
