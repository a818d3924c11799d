/* grid_path.c — descriptor and CPU twin of grid_path.cl (cost-to-go field on an
 * occupancy grid), and the path extraction the host runs on the field.
 *
 * Size keys: `width`, `height` (cells), `passes` (global relaxation passes; rounded up
 * to even). Graph: 8-connected, orthogonal step RTM_GRID_STEP = 10, diagonal
 * RTM_GRID_DIAG = 14, no corner cutting (see grid_path.cl); integer costs, so the
 * converged field equals Dijkstra's exactly.
 * Buffers: 0 `field` (uint[height][width], INOUT: the initial field in — 0 at the
 * goal(s), RTM_GRID_INF elsewhere — and the cost-to-go out), 1 `field2` (uint, SCRATCH:
 * the other half of the ping-pong), 2 `occ` (uchar[height][width], IN: non-zero =
 * blocked), 3 `flags` (uint[launches], INOUT: zero in; flags[p] = 1 when pass p changed
 * a cell). Pass p reads field (p even) or field2 (p odd) and writes the other, so with
 * an even number of passes the last one writes `field`. The job converged when the
 * last flag is 0 (rtm_grid_path_converged); a pass crosses at least one 32 x 32 tile,
 * so `passes` must cover the longest shortest path in tiles (plus its detours).
 *
 * Cost counts (the work depends on the map). One iteration = one cell relaxation.
 * Every block of an active pass (up to the one after the last that changes a cell,
 * capped by `passes`) loads its tile and sweeps it at least once (the sweep that finds no
 * change); the later passes are idle (launches_busy). How many are active is the map's:
 * fill counts them exactly (busy_passes, kinst.busy; session 52: on fill's maps at
 * widths 65-3 300 and height 512 one width's count spans 1.3-2x over goals, 14-23 at
 * width 65 and 66-103 at 2 600, and the CPU twin's time per active pass stays within
 * 15 % at a width, where the bound tiles_x + tiles_y, which the cost used for every map
 * before, is 19 and 98); without fill's count, that bound. A tile the wavefront crosses is relaxed for about
 * GP_T sweeps in about 3 passes: li = cells * active + crossed * 3 * 32, crossed the
 * cells the wavefront reaches within the passes: all of them where the passes cover the
 * map from any goal, else their expected share for a goal anywhere (reach_share;
 * session 27: calibration's and validation's 512-high strips run 128 passes, so at
 * width 16 000, 500 tiles, the front reaches 129-257 of them, 45 % expected, where li
 * counted every cell: 224 relaxations a cell at widths 6 000 and 16 000 where 215 and
 * 171 are expected, 90 and 45 % of the cells reached). Which tiles are reached depends
 * on the goal: one map's job at width 16 000 took 13.2 ms where others' took 8.2-9.1
 * (H100, session 25); the model predicts the mean. (Until session 25 li was cells *
 * 3 * 32 alone, independent of the passes: the H100's HIL route job, 4096 x 4096 cells
 * in 256 passes, was predicted 18 ms and took 47; calibration's points all run 128
 * passes.) Per relaxation, from the sweep body: 9 local loads of the 3 x 3
 * neighbourhood (3 rows: unit-stride class, z_unit = 9 + 1 store), 8 adds + 8 mins +
 * 4 diagonal tests (z_scalar = 20); GPU Z adds the cell index
 * (2 ops) and the change test (2): Z = 34 a cell, counted over the tiles' cells: a device
 * runs a partial tile (width or height not a multiple of 32) whole, its lanes outside
 * the grid with the others (a warp, or PoCL's vector over work-items), so Z = 34 *
 * tile cells / the CPU's cells (session 59: PoCL here took 28.97 ms at width 65 (3
 * tiles, 1.48x the cells) and 23.7 ms at width 64 (2 tiles), and validated +38, +60,
 * +39 % at widths 64, 96, 144 from calibration's widths 65 and 99 with Z = 34). The
 * CPU twin's sweeps step over the outside cells, an index and a blocked test (about 7
 * operations against a relaxation's 37): li counts them as GP_SKIP of a cell (its pool
 * took 7.4 ms at width 65 and 6.4 ms at 64, 1.16x, against 1.11x counted; its validation
 * here stayed +10..+20 % at widths 64 and 96, as before). md = 9. Bytes: field + occ in (5 per cell)
 * + flags, field out (4 per cell); device traffic per active pass 9 bytes per cell,
 * about tiles_x + tiles_y active passes (capped by `passes`). Launches = passes. */
#include <string.h>

#include "kernels/kernels.h"
#include "rtmgr/rng.h"

enum { FIELD, FIELD2, OCC, FLAGS };
/* the CPU twin's share of a relaxation's operations on a cell outside the grid */
#define GP_SKIP 0.2
enum { K_WIDTH, K_HEIGHT, K_PASSES };

#define GP_T 32
#define GP_HT (GP_T + 2)

static uint32_t width(const rtm_kinst_t *k) { return (uint32_t)k->size[K_WIDTH]; }
static uint32_t height(const rtm_kinst_t *k) { return (uint32_t)k->size[K_HEIGHT]; }
static uint32_t tiles_x(const rtm_kinst_t *k) { return (width(k) + GP_T - 1) / GP_T; }
static uint32_t tiles_y(const rtm_kinst_t *k) { return (height(k) + GP_T - 1) / GP_T; }
static uint32_t passes(const rtm_kinst_t *k) { return ((uint32_t)k->size[K_PASSES] + 1u) & ~1u; }
static size_t cells(const rtm_kinst_t *k) { return (size_t)width(k) * height(k); }

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    if (k->tune.wg > 1024 || 1024 % k->tune.wg)
        return RTM_E_RANGE;
    p->n_bufs = 4;
    p->buf[FIELD] = (rtm_bufspec_t){cells(k) * sizeof(uint32_t), RTM_BUF_INOUT};
    p->buf[FIELD2] = (rtm_bufspec_t){cells(k) * sizeof(uint32_t), RTM_BUF_SCRATCH};
    p->buf[OCC] = (rtm_bufspec_t){cells(k), RTM_BUF_IN};
    p->buf[FLAGS] = (rtm_bufspec_t){passes(k) * sizeof(uint32_t), RTM_BUF_INOUT};
    p->launches = passes(k);
    p->blocks_max = tiles_x(k) * tiles_y(k);
    return RTM_OK;
}

static void launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    (void)l;
    out->entry = 0;
    out->blocks = tiles_x(k) * tiles_y(k);
}

static rtm_karg_t u32_arg(uint32_t v)
{
    rtm_karg_t a = {.kind = RTM_KARG_VALUE, .bytes = sizeof(v)};
    memcpy(a.value, &v, sizeof(v));
    return a;
}

static uint32_t args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    out[0] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = l % 2 ? FIELD2 : FIELD};
    out[1] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = l % 2 ? FIELD : FIELD2};
    out[2] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = OCC};
    out[3] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = FLAGS};
    out[4] = u32_arg(width(k));
    out[5] = u32_arg(height(k));
    out[6] = u32_arg(tiles_x(k));
    out[7] = u32_arg(l);
    return 8;
}

/* Goal candidates fill() tries before it keeps the one with the most water. */
#define GOAL_TRIES 64

/* Free cells 4-connected to cell `from` (a diagonal step needs both orthogonal cells
 * free, so it joins nothing 4-steps do not), counted with `field` (RTM_GRID_INF
 * everywhere: left so) as the visited marks and `queue` (cells entries) as the FIFO. */
static size_t water(const uint8_t *occ, uint32_t w, uint32_t h, size_t from, uint32_t *field,
                    uint32_t *queue)
{
    size_t head = 0, tail = 0;
    queue[tail++] = (uint32_t)from;
    field[from] = 0;
    while (head < tail) {
        const uint32_t c = queue[head++], x = c % w, y = c / w;
        const uint32_t nb[4] = {x > 0 ? c - 1 : c, x + 1 < w ? c + 1 : c, y > 0 ? c - w : c,
                                y + 1 < h ? c + w : c};
        for (int i = 0; i < 4; i++)
            if (!occ[nb[i]] && field[nb[i]] != 0) {
                field[nb[i]] = 0;
                queue[tail++] = nb[i];
            }
    }
    for (size_t i = 0; i < tail; i++)
        field[queue[i]] = RTM_GRID_INF;
    return tail;
}

/* A cell's search key: the cheapest cost from the goal (the high 32 - KEY_BITS_CROSS
 * bits) over the fewest tile crossings of such a path (the low KEY_BITS_CROSS), so that one
 * unsigned compare orders (cost, crossings) lexicographically. */
#define KEY_BITS_CROSS 12u
#define KEY_CROSS_MAX ((1u << KEY_BITS_CROSS) - 1u)
#define KEY_COST_MAX ((1u << (32u - KEY_BITS_CROSS)) - 1u)
#define KEY_NONE 0xFFFFFFFFu
#define OCC_QUEUED 2u /* occ's bit 1 while a cell is in the search's queue */

/* The search's queue: a ring of `n` cell indices (a cell is in it once at a time). */
typedef struct {
    uint8_t *occ;
    uint32_t *key, *queue;
    size_t n, head, tail, queued;
} search_t;

/* Offers cell `to` the key `kn` (a free cell, checked by the caller). */
static void search_offer(search_t *s, size_t to, uint32_t kn)
{
    if (kn >= s->key[to])
        return;
    s->key[to] = kn;
    if (s->occ[to] & OCC_QUEUED)
        return;
    s->occ[to] |= OCC_QUEUED;
    s->queue[s->tail] = (uint32_t)to;
    s->tail = s->tail + 1 == s->n ? 0 : s->tail + 1;
    s->queued++;
}

/* The passes that do work on this map (kinst.busy): pass p gives every cell the cheapest
 * cost over paths from the goal with at most p tile crossings (a block's fixpoint inside
 * its tile, its halo from the pass before), so the last pass that changes a cell is P,
 * the largest over the cells of the fewest crossings of a cheapest path; passes 0..P set
 * their flag, pass P + 1 still loads and sweeps every tile and finds nothing, and the
 * rest are idle: P + 2 of them (1 where pass 0 changes nothing: flags[0] = 0 idles the
 * rest). The search is label-correcting on (cost, crossings) keys with a FIFO queue,
 * exact whatever order it settles in; `key` (field: every cell) holds the keys and
 * `queue` (field2) the queue, a ring of at most `cells` entries since a cell is queued
 * once at a time (OCC_QUEUED). Returns 0 where a cost passes KEY_COST_MAX (a maze: the
 * cost's own bound then applies). On this VM (one core) 21-22 ms
 * at 1 500 x 512, 0.9-1.6 s at 4096 x 4096 (its cache misses). */
static uint32_t busy_passes(uint8_t *occ, uint32_t w, uint32_t h, size_t goal, uint32_t *key,
                            uint32_t *queue)
{
    search_t s = {occ, key, queue, (size_t)w * h, 0, 0, 0};
    for (size_t i = 0; i < s.n; i++)
        key[i] = KEY_NONE;
    search_offer(&s, goal, 0);
    bool overflow = false;
    while (s.queued > 0) {
        const size_t c = s.queue[s.head];
        s.head = s.head + 1 == s.n ? 0 : s.head + 1;
        s.queued--;
        occ[c] &= (uint8_t)~OCC_QUEUED;
        const uint32_t kc = key[c];
        if ((kc >> KEY_BITS_CROSS) > KEY_COST_MAX - RTM_GRID_DIAG) {
            overflow = true;
            continue;
        }
        const uint32_t y = (uint32_t)(c / w), x = (uint32_t)(c - (size_t)y * w);
        /* free orthogonal neighbours; a diagonal step needs both it cuts past free */
        const bool l = x > 0 && !(occ[c - 1] & 1u), r = x + 1 < w && !(occ[c + 1] & 1u);
        const bool u = y > 0 && !(occ[c - w] & 1u), d = y + 1 < h && !(occ[c + w] & 1u);
        /* a step out of the tile's left (right, upper, lower) edge crosses into another:
         * one crossing more, unless the count is at its cap */
        const uint32_t more = (kc & KEY_CROSS_MAX) < KEY_CROSS_MAX;
        const uint32_t xl = more && x % GP_T == 0, xr = more && x % GP_T == GP_T - 1;
        const uint32_t yu = more && y % GP_T == 0, yd = more && y % GP_T == GP_T - 1;
        const uint32_t k1 = kc + (RTM_GRID_STEP << KEY_BITS_CROSS);
        const uint32_t k2 = kc + (RTM_GRID_DIAG << KEY_BITS_CROSS);
        if (l)
            search_offer(&s, c - 1, k1 + xl);
        if (r)
            search_offer(&s, c + 1, k1 + xr);
        if (u)
            search_offer(&s, c - w, k1 + yu);
        if (d)
            search_offer(&s, c + w, k1 + yd);
        if (l && u && !(occ[c - w - 1] & 1u))
            search_offer(&s, c - w - 1, k2 + (xl | yu));
        if (r && u && !(occ[c - w + 1] & 1u))
            search_offer(&s, c - w + 1, k2 + (xr | yu));
        if (l && d && !(occ[c + w - 1] & 1u))
            search_offer(&s, c + w - 1, k2 + (xl | yd));
        if (r && d && !(occ[c + w + 1] & 1u))
            search_offer(&s, c + w + 1, k2 + (xr | yd));
    }
    if (overflow)
        return 0;
    uint32_t last = 0;
    bool first = false; /* pass 0 changes a cell: one reached without a crossing */
    for (size_t i = 0; i < s.n; i++) {
        if (key[i] == KEY_NONE || i == goal)
            continue;
        const uint32_t cross = key[i] & KEY_CROSS_MAX;
        last = cross > last ? cross : last;
        first = first || cross == 0;
    }
    return first ? last + 2 : 1;
}

/* Random obstacles (25 %), and on grids of 16 x 16 and more a closed rectangular wall
 * whose inside is unreachable; the goal is a free cell outside that wall, in water that
 * reaches half the free cells where there is such (see below). */
static void fill(rtm_kinst_t *k, uint64_t seed)
{
    rtm_rng_t r;
    rtm_rng_seed(&r, seed);
    const uint32_t w = width(k), h = height(k);
    uint8_t *occ = k->host[OCC];
    uint32_t *field = k->host[FIELD];
    for (size_t i = 0; i < cells(k); i++) {
        occ[i] = rtm_rng_below(&r, 4) == 0;
        field[i] = RTM_GRID_INF;
    }
    uint32_t bx0 = 0, by0 = 0, bx1 = 0, by1 = 0; /* wall, inclusive; empty when bx1 == 0 */
    if (w >= 16 && h >= 16) {
        bx0 = (uint32_t)rtm_rng_below(&r, w / 2);
        by0 = (uint32_t)rtm_rng_below(&r, h / 2);
        bx1 = bx0 + 4 + (uint32_t)rtm_rng_below(&r, w / 4);
        by1 = by0 + 4 + (uint32_t)rtm_rng_below(&r, h / 4);
        for (uint32_t x = bx0; x <= bx1; x++)
            occ[(size_t)by0 * w + x] = occ[(size_t)by1 * w + x] = 1;
        for (uint32_t y = by0; y <= by1; y++)
            occ[(size_t)y * w + bx0] = occ[(size_t)y * w + bx1] = 1;
    }
    /* the goal: a free cell outside the box whose water reaches at least half of the
     * map's free cells (random obstacles, diagonal chains of which block with no corner
     * cutting, can pocket a cell: its field would converge in one pass and the job
     * measure its launches alone); the best of GOAL_TRIES candidates otherwise */
    size_t free_cells = 0;
    for (size_t i = 0; i < cells(k); i++)
        free_cells += !occ[i];
    size_t goal = SIZE_MAX, best = 0;
    for (int tries = 0, cand = 0; tries < 1000000 && cand < GOAL_TRIES; tries++) {
        const uint32_t x = (uint32_t)rtm_rng_below(&r, w), y = (uint32_t)rtm_rng_below(&r, h);
        const int in_box = bx1 && x >= bx0 && x <= bx1 && y >= by0 && y <= by1;
        if (occ[(size_t)y * w + x] || in_box)
            continue;
        cand++;
        const size_t reach = water(occ, w, h, (size_t)y * w + x, field, k->host[FIELD2]);
        if (goal == SIZE_MAX || reach > best) {
            goal = (size_t)y * w + x;
            best = reach;
        }
        if (2 * reach >= free_cells)
            break;
    }
    /* the passes that do work (busy_passes): only where the goal's tile is nearer than
     * `passes` tiles to every other (Chebyshev: a step crosses at most one tile in each
     * direction) can the field converge within them; otherwise every pass does work */
    k->busy = 1; /* no goal: pass 0 sweeps its tiles, finds nothing, and idles the rest */
    if (goal != SIZE_MAX) {
        const uint32_t gx = (uint32_t)(goal % w) / GP_T, gy = (uint32_t)(goal / w) / GP_T;
        const uint32_t ex = gx > tiles_x(k) - 1 - gx ? gx : tiles_x(k) - 1 - gx;
        const uint32_t ey = gy > tiles_y(k) - 1 - gy ? gy : tiles_y(k) - 1 - gy;
        const uint32_t far = ex > ey ? ex : ey;
        k->busy = far + 1 >= passes(k) ? passes(k)
                                       : busy_passes(occ, w, h, goal, field, k->host[FIELD2]);
        for (size_t i = 0; i < cells(k); i++)
            field[i] = RTM_GRID_INF;
        field[goal] = 0;
    }
    memset(k->host[FIELD2], 0, k->plan.buf[FIELD2].bytes);
    memset(k->host[FLAGS], 0, k->plan.buf[FLAGS].bytes);
}

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* One relaxation of local cell (x, y); returns the new value. */
static uint32_t relax(uint32_t val[GP_HT][GP_HT], uint8_t blk[GP_HT][GP_HT], int x, int y)
{
    const int l = !blk[y][x - 1], r = !blk[y][x + 1], u = !blk[y - 1][x], d = !blk[y + 1][x];
    uint32_t best = val[y][x];
    best = min_u32(best, val[y][x - 1] + RTM_GRID_STEP);
    best = min_u32(best, val[y][x + 1] + RTM_GRID_STEP);
    best = min_u32(best, val[y - 1][x] + RTM_GRID_STEP);
    best = min_u32(best, val[y + 1][x] + RTM_GRID_STEP);
    best = min_u32(best, l && u ? val[y - 1][x - 1] + RTM_GRID_DIAG : RTM_GRID_INF);
    best = min_u32(best, r && u ? val[y - 1][x + 1] + RTM_GRID_DIAG : RTM_GRID_INF);
    best = min_u32(best, l && d ? val[y + 1][x - 1] + RTM_GRID_DIAG : RTM_GRID_INF);
    best = min_u32(best, r && d ? val[y + 1][x + 1] + RTM_GRID_DIAG : RTM_GRID_INF);
    return best;
}

/* Same block as the kernel: same tile fixpoint (alternating raster sweeps here; any
 * order reaches the same fixpoint), same writes, same flag. */
static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    uint32_t *flags = k->host[FLAGS];
    if (l > 0 && __atomic_load_n(&flags[l - 1], __ATOMIC_RELAXED) == 0)
        return;
    const uint32_t *src = k->host[l % 2 ? FIELD2 : FIELD];
    uint32_t *dst = k->host[l % 2 ? FIELD : FIELD2];
    const uint8_t *occ = k->host[OCC];
    const int w = (int)width(k), h = (int)height(k);
    const int x0 = (int)(blk % tiles_x(k)) * GP_T, y0 = (int)(blk / tiles_x(k)) * GP_T;
    uint32_t val[GP_HT][GP_HT];
    uint8_t blocked[GP_HT][GP_HT];
    for (int hy = 0; hy < GP_HT; hy++) {
        for (int hx = 0; hx < GP_HT; hx++) {
            const int gx = x0 + hx - 1, gy = y0 + hy - 1;
            const int inside = gx >= 0 && gx < w && gy >= 0 && gy < h;
            const size_t gi = inside ? (size_t)gy * (size_t)w + (size_t)gx : 0;
            blocked[hy][hx] = !inside || occ[gi] != 0;
            val[hy][hx] = blocked[hy][hx] ? RTM_GRID_INF : src[gi];
        }
    }
    for (int s = 0, changed = 1; changed && s < GP_T * GP_T + 2; s++) {
        changed = 0;
        for (int i = 0; i < GP_T * GP_T; i++) {
            const int c = s % 2 ? GP_T * GP_T - 1 - i : i;
            const int x = c % GP_T + 1, y = c / GP_T + 1;
            if (blocked[y][x])
                continue;
            const uint32_t v = relax(val, blocked, x, y);
            if (v < val[y][x]) {
                val[y][x] = v;
                changed = 1;
            }
        }
    }
    int changed = 0;
    for (int y = 0; y < GP_T && y0 + y < h; y++) {
        for (int x = 0; x < GP_T && x0 + x < w; x++) {
            const size_t gi = (size_t)(y0 + y) * (size_t)w + (size_t)(x0 + x);
            changed |= val[y + 1][x + 1] != src[gi];
            dst[gi] = val[y + 1][x + 1];
        }
    }
    if (changed)
        __atomic_store_n(&flags[l], 1u, __ATOMIC_RELAXED);
}

/* The expected share of a row (column) of `t` tiles within `p` tiles of the goal's tile,
 * the goal's tile uniform over the t: a pass carries the field one tile further at most
 * (a block reads its neighbours through its halo, from the pass before), so after p
 * passes the wavefront has crossed the tiles within p of the goal's, min(g, p) +
 * min(t - 1 - g, p) + 1 of them for the goal's tile g; averaged over g. */
static double reach_share(uint32_t t, uint32_t p)
{
    if (t == 0 || p >= t - 1)
        return 1.0;
    /* sum over g of min(g, p), twice (both sides), plus the goal's own tile t times */
    const double side = (double)p * (p + 1) / 2.0 + (double)(t - 1 - p) * p;
    return (2.0 * side + t) / ((double)t * t);
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double n = (double)cells(k);
    /* the passes that do work: the map's own (fill: busy_passes), else the bound a goal
     * in a corner gives (tiles_x + tiles_y: Manhattan, which the map's detours can pass) */
    const uint32_t busy = min_u32(passes(k), k->busy ? k->busy : tiles_x(k) + tiles_y(k));
    const double active = busy;
    /* a map that converges before the last pass has had every reachable tile crossed */
    const double crossed = k->busy && k->busy < passes(k)
                               ? n
                               : n * reach_share(tiles_x(k), passes(k)) *
                                     reach_share(tiles_y(k), passes(k));
    /* the tiles' cells (a device runs every tile whole) and the CPU twin's count: its
     * sweeps step over a partial tile's outside cells (index, blocked test: 7 of a
     * relaxation's 37 operations) */
    const double tiled = (double)tiles_x(k) * GP_T * (double)tiles_y(k) * GP_T;
    const double eff = n + GP_SKIP * (tiled - n);
    memset(c, 0, sizeof(*c));
    c->li = (n * active + crossed * 3.0 * GP_T) * eff / n;
    c->z[RTM_LOC_UNIT] = 10.0;
    c->z[RTM_LOC_SCALAR] = 20.0;
    /* a device runs every tile whole: a partial tile's cells outside the grid take
     * their lanes (SIMT, or PoCL's vectors over work-items) as inside ones do */
    c->Z = 34.0 * tiled / eff;
    c->md = 9.0;
    c->bytes_in = 5.0 * n + 4.0 * passes(k);
    c->bytes_out = 4.0 * n + 4.0 * passes(k);
    c->bytes_dev = 9.0 * n * active;
    c->launches = passes(k);
    c->launches_busy = busy;
}

static size_t compare(const rtm_kinst_t *x, const rtm_kinst_t *y, char *why, size_t len)
{
    size_t bad = rtm_compare_u32(x->host[FIELD], y->host[FIELD], cells(x), why, len);
    char tmp[128];
    const size_t fb = rtm_compare_u32(x->host[FLAGS], y->host[FLAGS], passes(x), tmp, sizeof(tmp));
    if (fb && !bad && why && len)
        snprintf(why, len, "flags: %s", tmp);
    return bad + fb;
}

int rtm_grid_path_converged(const rtm_kinst_t *k)
{
    const uint32_t *flags = k->host[FLAGS];
    return flags[passes(k) - 1] == 0;
}

size_t rtm_grid_path_extract(const uint32_t *cost, const uint8_t *occ, uint32_t w, uint32_t h,
                             uint32_t sx, uint32_t sy, uint32_t *path, size_t max)
{
    static const int dx[8] = {-1, 1, 0, 0, -1, 1, -1, 1}, dy[8] = {0, 0, -1, 1, -1, -1, 1, 1};
    if (sx >= w || sy >= h || max == 0)
        return 0;
    uint32_t x = sx, y = sy;
    size_t n = 0;
    if (cost[(size_t)y * w + x] >= RTM_GRID_INF)
        return 0;
    path[n++] = y * w + x;
    while (cost[(size_t)y * w + x] > 0 && n < max) {
        const uint32_t here = cost[(size_t)y * w + x];
        int next = -1;
        for (int m = 0; m < 8 && next < 0; m++) {
            const int nx = (int)x + dx[m], ny = (int)y + dy[m];
            if (nx < 0 || ny < 0 || nx >= (int)w || ny >= (int)h)
                continue;
            if (occ[(size_t)ny * w + (size_t)nx])
                continue;
            if (m >= 4 && (occ[(size_t)y * w + (size_t)nx] || occ[(size_t)ny * w + x]))
                continue; /* no corner cutting */
            const uint32_t step = m < 4 ? RTM_GRID_STEP : RTM_GRID_DIAG;
            if (cost[(size_t)ny * w + (size_t)nx] + step == here)
                next = m;
        }
        if (next < 0)
            return 0; /* not a converged field */
        x = (uint32_t)((int)x + dx[next]);
        y = (uint32_t)((int)y + dy[next]);
        path[n++] = y * w + x;
    }
    return cost[(size_t)y * w + x] == 0 ? n : 0;
}

/* `rtmgr status` summary ("path summary"): whether the field converged, the cells that
 * reach a goal, and the path from the first free cell of row 0 (its cost and the
 * number of steps it is at least). */
static void summary(const rtm_kinst_t *k, char *buf, size_t len)
{
    const uint32_t *field = k->host[FIELD];
    const uint8_t *occ = k->host[OCC];
    size_t reach = 0;
    for (size_t i = 0; i < cells(k); i++)
        reach += field[i] < RTM_GRID_INF;
    uint32_t sx = 0;
    while (sx + 1 < width(k) && occ[sx])
        sx++;
    const uint32_t c = field[sx];
    int n = snprintf(buf, len, "grid %ux%u, %s; %.1f%% of the cells reach a goal", width(k),
                     height(k), rtm_grid_path_converged(k) ? "converged" : "NOT converged",
                     cells(k) ? 100.0 * (double)reach / (double)cells(k) : 0.0);
    if (n <= 0 || (size_t)n >= len)
        return;
    if (c < RTM_GRID_INF)
        snprintf(buf + n, len - (size_t)n, "; path from (%u,0): cost %u (at least %u steps)", sx, c,
                 (c + RTM_GRID_DIAG - 1) / RTM_GRID_DIAG);
    else
        snprintf(buf + n, len - (size_t)n, "; (%u,0) cannot reach a goal", sx);
}

const rtm_kernel_t rtm_kernel_grid_path = {
    .name = "grid_path",
    .source = "grid_path.cl",
    .entries = {"grid_path", NULL},
    .keys = {{"width", 1, 16384, 512, "grid width, cells"},
             {"height", 1, 16384, 512, "grid height, cells"},
             {"passes", 1, 4096, 128, "global relaxation passes (launches), rounded up to even"}},
    .n_keys = 3,
    .flags = RTM_KF_ONE_FLAG, /* work-item 0 polls every 16 sweeps */
    .vec_allowed = 1u << 1,
    .tune_default = {256, 1},
    .plan = plan,
    .launch = launch,
    .args = args,
    .fill = fill,
    .cpu_block = cpu_block,
    .cost = cost,
    .compare = compare,
    .summary = summary,
};
