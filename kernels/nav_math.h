/* nav_math.h — float arithmetic shared verbatim by the navigation kernels (OpenCL C) and
 * their CPU twins (C11): CTRV motion, CPA/TCPA, the own-ship manoeuvre model and the
 * manoeuvre cost terms.
 *
 * Both sides include this one file, so every formula is written once and both compute
 * the same IEEE single-precision operations in the same order:
 *   - no contraction to fused multiply-add (OpenCL: `#pragma OPENCL FP_CONTRACT OFF`
 *     below; C: the build passes -ffp-contract=off, clang also gets the STDC pragma);
 *   - division and sqrt correctly rounded (the kernels' build options carry
 *     -cl-fp32-correctly-rounded-divide-sqrt; C's `/` and sqrtf are IEEE);
 *   - no library trigonometry: nav_sincos() is a Cody-Waite reduction and the cephes
 *     minimax polynomials written out operation by operation (sinf/cosf of OpenCL are
 *     only 4-ulp accurate and differ between implementations).
 * With these, the twins agree with a conforming device bit for bit; the kernels'
 * compare() hooks still allow a small tolerance (documented per kernel) for devices that
 * ignore the contraction pragma.
 *
 * Frame: local tangent plane of rtmgr/traffic.h (x east, y north, metres); speed m/s;
 * course radians clockwise from north; rate of turn rad/s, positive to starboard. */
#ifndef NAV_MATH_H
#define NAV_MATH_H

#ifdef __OPENCL_VERSION__
#pragma OPENCL FP_CONTRACT OFF
#define NAV_FN static inline
#define NAV_SQRT(x) sqrt(x)
#define NAV_FABS(x) fabs(x)
#define NAV_RINT(x) rint(x)
#define NAV_FMIN(x, y) fmin(x, y)
#define NAV_FMAX(x, y) fmax(x, y)
#define NAV_INF INFINITY
typedef uint nav_uint;
#else
#include <float.h>
#include <math.h>
#include <stdint.h>
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#if FLT_EVAL_METHOD != 0
#error "the CPU twins need FLT_EVAL_METHOD == 0 (float arithmetic in float)"
#endif
#define NAV_FN static inline
#define NAV_SQRT(x) sqrtf(x)
#define NAV_FABS(x) fabsf(x)
#define NAV_RINT(x) rintf(x)
#define NAV_FMIN(x, y) fminf(x, y)
#define NAV_FMAX(x, y) fmaxf(x, y)
#define NAV_INF INFINITY
typedef uint32_t nav_uint;
#endif

/* Traffic input buffers, shared by every navigation kernel:
 *   own: NAV_OWN_FLOATS floats: x, y, sog, cog, rot of own ship (kernels read these five;
 *        the rest carries the plane's origin for the host, see kernels/nav.h);
 *   tgt: NAV_FIELDS rows of n floats (structure of arrays): x, y, sog, cog, rot, live
 *        (1 = present, 0 = absent slot). */
#define NAV_F_X 0
#define NAV_F_Y 1
#define NAV_F_SOG 2
#define NAV_F_COG 3
#define NAV_F_ROT 4
#define NAV_F_LIVE 5
#define NAV_FIELDS 6
#define NAV_OWN_FLOATS 16

/* Relative speed squared below which two ships are "not moving relative to each other"
 * (1 mm/s): TCPA is 0 and CPA the present range. (m/s)^2. */
#define NAV_W2_EPS 1.0e-6f
/* Half-angles of the COLREGs sectors: tan(15 deg) for "ahead or nearly ahead" (head-on,
 * Rule 14) and tan(67.5 deg) for "more than 22.5 deg abaft the beam" (overtaking, Rule 13). */
#define NAV_TAN_AHEAD 0.267949192f
#define NAV_TAN_ABAFT 2.41421356f
#define NAV_PI_2 1.57079633f
#define NAV_PI 3.14159265f
/* Degrees (milli-degrees) to radians. */
#define NAV_RAD_PER_MDEG 1.74532925e-5f

/* Manoeuvre cost weights (dimensionless; see manoeuvre.c for the rationale). */
#define NAV_K_COLL 100.0f      /* predicted distance inside the safety domain */
#define NAV_K_PORT 20.0f       /* give-way (head-on, crossing from starboard) turning to port */
#define NAV_K_STAND 5.0f       /* stand-on vessel changing course or speed (Rule 17(a)(i)) */
#define NAV_K_17C 5.0f         /* last chance: turning to port for a vessel on own port side */
#define NAV_K_COURSE_SB 4.0f   /* course change of 90 deg to starboard */
#define NAV_K_COURSE_PORT 6.0f /* course change of 90 deg to port */
#define NAV_K_SPEED 3.0f       /* full stop */
#define NAV_LAST_DEV_SCALE 0.1f /* last chance: deviation matters little */
/* COLREGs roles apply to a target whose straight-line CPA at the present velocities is
 * under NAV_COLREG_RANGE x the safety distance, within the horizon. */
#define NAV_COLREG_RANGE 2.0f

/* COLREGs role of own ship towards one target. */
#define NAV_ROLE_NONE 0
#define NAV_ROLE_HEAD_ON 1    /* Rule 14: both alter course to starboard */
#define NAV_ROLE_GIVE_WAY 2   /* Rule 15: crossing, target on own starboard side */
#define NAV_ROLE_STAND_ON 3   /* Rule 15/17: crossing, target on own port side */
#define NAV_ROLE_OVERTAKING 4 /* Rule 13: own ship overtakes (give way, either side) */
#define NAV_ROLE_OVERTAKEN 5  /* Rule 13/17: target overtakes own ship (stand on) */

/* sin and cos of x (radians). Cody-Waite reduction by pi/2 with a three-part constant
 * (exact products for |x| < 2^15 quadrants, i.e. |x| < 5e4) and the cephes sinf/cosf
 * minimax polynomials on [-pi/4, pi/4]. Measured error <= 2e-7 absolute for |x| <= 1e3
 * (test_nav). */
NAV_FN void nav_sincos(float x, float *s, float *c)
{
    const float q = NAV_RINT(x * 0.636619772f);
    float r = x - q * 1.5703125f;
    r = r - q * 4.83751297e-4f;
    r = r - q * 7.54978995e-8f;
    const float z = r * r;
    float ps = -1.9515295891e-4f;
    ps = ps * z + 8.3321608736e-3f;
    ps = ps * z - 1.6666654611e-1f;
    ps = ps * z;
    ps = ps * r;
    ps = ps + r;
    float pc = 2.443315711809948e-5f;
    pc = pc * z - 1.388731625493765e-3f;
    pc = pc * z + 4.166664568298827e-2f;
    pc = pc * z;
    pc = pc * z;
    pc = pc - 0.5f * z;
    pc = pc + 1.0f;
    /* Quadrant; the clamp keeps the int conversion defined for NaN and huge x. */
    const int n = ((int)NAV_FMIN(NAV_FMAX(q, -8388608.0f), 8388608.0f)) & 3;
    if (n == 0) {
        *s = ps;
        *c = pc;
    } else if (n == 1) {
        *s = pc;
        *c = -ps;
    } else if (n == 2) {
        *s = -ps;
        *c = -pc;
    } else {
        *s = -pc;
        *c = ps;
    }
}

/* sin(x) / x, stable at 0: a Taylor polynomial below |x| = 0.25 (truncation < 1e-9). */
NAV_FN float nav_sinc(float x)
{
    if (NAV_FABS(x) < 0.25f) {
        const float z = x * x;
        float p = -1.98412698e-4f;
        p = p * z + 8.33333333e-3f;
        p = p * z - 1.66666667e-1f;
        p = p * z;
        return p + 1.0f;
    }
    float s, c;
    nav_sincos(x, &s, &c);
    return s / x;
}

/* Velocity (m/s, east and north) of a ship with speed `sog` and course `cog`. */
NAV_FN void nav_velocity(float sog, float cog, float *vx, float *vy)
{
    float s, c;
    nav_sincos(cog, &s, &c);
    *vx = sog * s;
    *vy = sog * c;
}

/* CTRV position at time t of a ship at (x0, y0) with speed sog, course cog and rate of
 * turn rot. The chord form: the ship moves the chord of its arc, of length
 * sog * t * sinc(rot * t / 2), along the mean course cog + rot * t / 2. It is exact for a
 * circular arc, becomes the straight line x0 + v t exactly at rot = 0 and has no
 * cancellation at tiny rot, so no separate straight-line branch is needed. */
NAV_FN void nav_ctrv(float x0, float y0, float sog, float cog, float rot, float t, float *x,
                     float *y)
{
    const float ha = rot * t * 0.5f;
    const float len = sog * t * nav_sinc(ha);
    float s, c;
    nav_sincos(cog + ha, &s, &c);
    *x = x0 + len * s;
    *y = y0 + len * c;
}

/* Step-by-step CTRV for a fixed step dt (the manoeuvre kernel's inner loop): the chord of
 * one step, its first mid-course direction and the rotation of one step. */
typedef struct {
    float len;    /* chord of one step, m */
    float hs, hc; /* sin, cos of the mid-course of the next step */
    float rs, rc; /* sin, cos of rot * dt */
} nav_ctrv_step_t;

NAV_FN void nav_ctrv_step_init(nav_ctrv_step_t *st, float sog, float cog, float rot, float dt)
{
    const float ha = rot * dt * 0.5f;
    st->len = sog * dt * nav_sinc(ha);
    nav_sincos(cog + ha, &st->hs, &st->hc);
    nav_sincos(rot * dt, &st->rs, &st->rc);
}

/* Advances (x, y) by one step and turns the mid-course by rot * dt. */
NAV_FN void nav_ctrv_step(nav_ctrv_step_t *st, float *x, float *y)
{
    *x = *x + st->len * st->hs;
    *y = *y + st->len * st->hc;
    const float hs = st->hs * st->rc + st->hc * st->rs;
    const float hc = st->hc * st->rc - st->hs * st->rs;
    st->hs = hs;
    st->hc = hc;
}

/* Straight-line CPA of a target at relative position (rx, ry) (target - own, m) with
 * relative velocity (wx, wy) (target - own, m/s). TCPA in s, negative when the closest
 * point is past; with relative speed under 1 mm/s TCPA is 0 and CPA the present range. */
NAV_FN void nav_cpa(float rx, float ry, float wx, float wy, float *cpa, float *tcpa)
{
    const float ww = wx * wx + wy * wy;
    const float rw = rx * wx + ry * wy;
    float t = 0.0f;
    if (ww >= NAV_W2_EPS)
        t = -rw / ww;
    const float dx = rx + wx * t;
    const float dy = ry + wy * t;
    *cpa = NAV_SQRT(dx * dx + dy * dy);
    *tcpa = t;
}

/* Closest approach within the window [0, tmax]: squared distance, and its time in *t.
 * Absent ships carry NaN positions: the result is NaN and fails every `<` test. */
NAV_FN float nav_pair_d2(float rx, float ry, float wx, float wy, float tmax, float *t)
{
    const float ww = wx * wx + wy * wy;
    const float rw = rx * wx + ry * wy;
    float tc = 0.0f;
    if (ww >= NAV_W2_EPS)
        tc = -rw / ww;
    tc = tc < 0.0f ? 0.0f : tc;
    tc = tc > tmax ? tmax : tc;
    const float dx = rx + wx * tc;
    const float dy = ry + wy * tc;
    *t = tc;
    return dx * dx + dy * dy;
}

/* Course offset (rad, + starboard) and speed factor of manoeuvre m of a grid of `courses`
 * (odd) course offsets spread evenly over [-span, +span] and `speeds` speed factors from
 * 1 down to 0; m = speed index * courses + course index. */
NAV_FN void nav_manoeuvre(nav_uint m, nav_uint courses, nav_uint speeds, float span,
                          float *off, float *fac)
{
    const nav_uint c = m % courses, s = m / courses;
    const nav_uint h = (courses - 1u) / 2u;
    *off = h ? ((float)((int)c - (int)h) / (float)h) * span : 0.0f;
    *fac = speeds > 1u ? 1.0f - (float)s / (float)(speeds - 1u) : 1.0f;
}

/* Own-ship position at time t > 0 after manoeuvre (off, fac) from the origin (x0, y0):
 * the speed becomes sog * fac at once (as in SB-MPC), the course turns at `turn` rad/s
 * towards cog + off (a CTRV arc), then the ship runs straight. */
NAV_FN void nav_own_pos(float x0, float y0, float sog, float cog, float off, float fac,
                        float turn, float t, float *x, float *y)
{
    const float v = sog * fac;
    const float t_turn = NAV_FABS(off) / turn;
    const float w = off < 0.0f ? -turn : turn;
    if (t <= t_turn) {
        nav_ctrv(x0, y0, v, cog, w, t, x, y);
        return;
    }
    float x1, y1, s, c;
    nav_ctrv(x0, y0, v, cog, w, t_turn, &x1, &y1);
    nav_sincos(cog + off, &s, &c);
    const float run = v * (t - t_turn);
    *x = x1 + run * s;
    *y = y1 + run * c;
}

/* COLREGs role of own ship (heading unit vector (os, oc) = (sin, cos) of its course)
 * towards a target at relative position (rx, ry) with heading unit vector (ts, tc).
 * Sectors by dot products, no atan2: "ahead" is within 15 deg of the bow, "abaft" more
 * than 22.5 deg abaft the beam. Order: head-on, own overtaking, own overtaken, crossing
 * (target to starboard: give way; to port: stand on). */
NAV_FN int nav_role(float rx, float ry, float os, float oc, float ts, float tc)
{
    const float fo = rx * os + ry * oc; /* target ahead of own (m) */
    const float so = rx * oc - ry * os; /* target to own's starboard (m) */
    const float ft = -(rx * ts + ry * tc); /* own ahead of target */
    const float st = -(rx * tc - ry * ts); /* own to target's starboard */
    const int t_ahead = fo > 0.0f && NAV_FABS(so) <= fo * NAV_TAN_AHEAD;
    const int o_ahead = ft > 0.0f && NAV_FABS(st) <= ft * NAV_TAN_AHEAD;
    if (t_ahead && o_ahead)
        return NAV_ROLE_HEAD_ON;
    if (ft < 0.0f && NAV_FABS(st) < -ft * NAV_TAN_ABAFT)
        return NAV_ROLE_OVERTAKING;
    if (fo < 0.0f && NAV_FABS(so) < -fo * NAV_TAN_ABAFT)
        return NAV_ROLE_OVERTAKEN;
    return so > 0.0f ? NAV_ROLE_GIVE_WAY : NAV_ROLE_STAND_ON;
}

/* COLREGs role of own ship (speed osog, heading (os, oc)) towards a target at relative
 * position (rx, ry) with speed tsog and heading (ts, tc), when risk of collision exists:
 * the ships are closing and their straight-line closest approach within 0..horizon is
 * under NAV_COLREG_RANGE * d_safe; NAV_ROLE_NONE otherwise. *port_side: the target is on
 * own port side. */
NAV_FN int nav_target_role(float rx, float ry, float osog, float os, float oc, float tsog,
                           float ts, float tc, float d_safe, float horizon, int *port_side)
{
    float t;
    const float d2 = nav_pair_d2(rx, ry, tsog * ts - osog * os, tsog * tc - osog * oc, horizon, &t);
    const float r = NAV_COLREG_RANGE * d_safe;
    *port_side = rx * oc - ry * os < 0.0f;
    if (t > 0.0f && d2 < r * r)
        return nav_role(rx, ry, os, oc, ts, tc);
    return NAV_ROLE_NONE;
}

/* Deviation cost of manoeuvre (off, fac): quadratic in the course offset (port dearer than
 * starboard) plus linear in the speed reduction; scaled down in last-chance mode. */
NAV_FN float nav_deviation(float off, float fac, int last_chance)
{
    const float a = off / NAV_PI_2;
    const float k = off < 0.0f ? NAV_K_COURSE_PORT : NAV_K_COURSE_SB;
    float d = k * a * a + NAV_K_SPEED * (1.0f - fac);
    if (last_chance)
        d = d * NAV_LAST_DEV_SCALE;
    return d;
}

/* Cost of one target under one manoeuvre: collision risk plus COLREGs penalty.
 * dmin/tmin: predicted closest distance and its time; role: nav_role() when COLREGs apply
 * (else NAV_ROLE_NONE); port_side: target on own port side; horizon: steps * dt. */
NAV_FN float nav_target_cost(float dmin, float tmin, float d_safe, float horizon, int role,
                             int port_side, float off, float fac, int last_chance)
{
    float risk = 0.0f;
    if (dmin < d_safe)
        risk = NAV_K_COLL * (2.0f - dmin / d_safe) * (horizon / (horizon + tmin));
    float pen = 0.0f;
    if (last_chance) {
        if (role != NAV_ROLE_NONE && port_side && off < 0.0f)
            pen = NAV_K_17C;
    } else if (role == NAV_ROLE_HEAD_ON || role == NAV_ROLE_GIVE_WAY) {
        if (off < 0.0f)
            pen = NAV_K_PORT;
    } else if (role == NAV_ROLE_STAND_ON || role == NAV_ROLE_OVERTAKEN) {
        if (off != 0.0f || fac != 1.0f)
            pen = NAV_K_STAND;
    }
    return risk + pen;
}

#endif
