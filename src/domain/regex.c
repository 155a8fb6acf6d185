/*
 * ECMA-262 regular expressions: parser -> AST -> bytecode -> bounded backtracking VM.
 *
 * Why a VM and not a recursive matcher: recursion depth would grow with the subject, and
 * user patterns like (a+)+$ are exponential. The VM keeps every choice point and every
 * register write on one explicit stack (a trail), so backtracking restores captures and
 * loop counters exactly, the C stack only grows with lookaround nesting in the pattern
 * (bounded at parse time), and each search is capped in steps and stack entries.
 *
 * Lookbehind follows ECMA semantics: its body is compiled right-to-left (sequences
 * reversed, characters read before the position), so backreferences and captures behave
 * as in JavaScript.
 */
#include "domain/regex.h"

#include "core/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CP_INVALID_BASE 0x110000u /* invalid byte b in a subject decodes as this + b */
#define CP_MAX 0x1100FFu
#define REP_INF UINT32_MAX
#define SLOT_NONE SIZE_MAX
#define NO_REG UINT32_MAX
#define MAX_PATTERN_LEN 32768u
#define MAX_NESTING 200u
#define MAX_CLASS_RANGES (1u << 20)

/* ------------------------------------------------------------------ Unicode data */

enum uc_cat {
    UC_CN,
    UC_LU,
    UC_LL,
    UC_LT,
    UC_LM,
    UC_LO,
    UC_MN,
    UC_MC,
    UC_ME,
    UC_ND,
    UC_NL,
    UC_NO,
    UC_PC,
    UC_PD,
    UC_PS,
    UC_PE,
    UC_PI,
    UC_PF,
    UC_PO,
    UC_SM,
    UC_SC,
    UC_SK,
    UC_SO,
    UC_ZS,
    UC_ZL,
    UC_ZP,
    UC_CC,
    UC_CF,
    UC_CS,
    UC_CO
};

#define CAT(c) (1u << (c))
#define CATS_L (CAT(UC_LU) | CAT(UC_LL) | CAT(UC_LT) | CAT(UC_LM) | CAT(UC_LO))
#define CATS_M (CAT(UC_MN) | CAT(UC_MC) | CAT(UC_ME))
#define CATS_N (CAT(UC_ND) | CAT(UC_NL) | CAT(UC_NO))
#define CATS_P                                                                                     \
    (CAT(UC_PC) | CAT(UC_PD) | CAT(UC_PS) | CAT(UC_PE) | CAT(UC_PI) | CAT(UC_PF) | CAT(UC_PO))
#define CATS_S (CAT(UC_SM) | CAT(UC_SC) | CAT(UC_SK) | CAT(UC_SO))
#define CATS_Z (CAT(UC_ZS) | CAT(UC_ZL) | CAT(UC_ZP))
#define CATS_C (CAT(UC_CN) | CAT(UC_CC) | CAT(UC_CF) | CAT(UC_CS) | CAT(UC_CO))

static const uint32_t uc_gc_table[3968];

struct uc_prop {
    const char *name;
    uint32_t cats; /* General_Category mask; 0 for the binary properties below */
    int binary;    /* 0, or which special set (enum uc_binary) */
};

enum uc_binary { UB_NONE, UB_ANY, UB_ASCII, UB_ASSIGNED, UB_AHEX, UB_WHITE_SPACE };

/* Names from PropertyValueAliases.txt (gc) and the ECMA-262 binary property table. */
static const struct uc_prop uc_props[] = {
    {"C", CATS_C, 0},
    {"Other", CATS_C, 0},
    {"Cc", CAT(UC_CC), 0},
    {"Control", CAT(UC_CC), 0},
    {"cntrl", CAT(UC_CC), 0},
    {"Cf", CAT(UC_CF), 0},
    {"Format", CAT(UC_CF), 0},
    {"Cn", CAT(UC_CN), 0},
    {"Unassigned", CAT(UC_CN), 0},
    {"Co", CAT(UC_CO), 0},
    {"Private_Use", CAT(UC_CO), 0},
    {"Cs", CAT(UC_CS), 0},
    {"Surrogate", CAT(UC_CS), 0},
    {"L", CATS_L, 0},
    {"Letter", CATS_L, 0},
    {"LC", CAT(UC_LU) | CAT(UC_LL) | CAT(UC_LT), 0},
    {"Cased_Letter", CAT(UC_LU) | CAT(UC_LL) | CAT(UC_LT), 0},
    {"Ll", CAT(UC_LL), 0},
    {"Lowercase_Letter", CAT(UC_LL), 0},
    {"Lm", CAT(UC_LM), 0},
    {"Modifier_Letter", CAT(UC_LM), 0},
    {"Lo", CAT(UC_LO), 0},
    {"Other_Letter", CAT(UC_LO), 0},
    {"Lt", CAT(UC_LT), 0},
    {"Titlecase_Letter", CAT(UC_LT), 0},
    {"Lu", CAT(UC_LU), 0},
    {"Uppercase_Letter", CAT(UC_LU), 0},
    {"M", CATS_M, 0},
    {"Mark", CATS_M, 0},
    {"Combining_Mark", CATS_M, 0},
    {"Mc", CAT(UC_MC), 0},
    {"Spacing_Mark", CAT(UC_MC), 0},
    {"Me", CAT(UC_ME), 0},
    {"Enclosing_Mark", CAT(UC_ME), 0},
    {"Mn", CAT(UC_MN), 0},
    {"Nonspacing_Mark", CAT(UC_MN), 0},
    {"N", CATS_N, 0},
    {"Number", CATS_N, 0},
    {"Nd", CAT(UC_ND), 0},
    {"Decimal_Number", CAT(UC_ND), 0},
    {"digit", CAT(UC_ND), 0},
    {"Nl", CAT(UC_NL), 0},
    {"Letter_Number", CAT(UC_NL), 0},
    {"No", CAT(UC_NO), 0},
    {"Other_Number", CAT(UC_NO), 0},
    {"P", CATS_P, 0},
    {"Punctuation", CATS_P, 0},
    {"punct", CATS_P, 0},
    {"Pc", CAT(UC_PC), 0},
    {"Connector_Punctuation", CAT(UC_PC), 0},
    {"Pd", CAT(UC_PD), 0},
    {"Dash_Punctuation", CAT(UC_PD), 0},
    {"Pe", CAT(UC_PE), 0},
    {"Close_Punctuation", CAT(UC_PE), 0},
    {"Pf", CAT(UC_PF), 0},
    {"Final_Punctuation", CAT(UC_PF), 0},
    {"Pi", CAT(UC_PI), 0},
    {"Initial_Punctuation", CAT(UC_PI), 0},
    {"Po", CAT(UC_PO), 0},
    {"Other_Punctuation", CAT(UC_PO), 0},
    {"Ps", CAT(UC_PS), 0},
    {"Open_Punctuation", CAT(UC_PS), 0},
    {"S", CATS_S, 0},
    {"Symbol", CATS_S, 0},
    {"Sc", CAT(UC_SC), 0},
    {"Currency_Symbol", CAT(UC_SC), 0},
    {"Sk", CAT(UC_SK), 0},
    {"Modifier_Symbol", CAT(UC_SK), 0},
    {"Sm", CAT(UC_SM), 0},
    {"Math_Symbol", CAT(UC_SM), 0},
    {"So", CAT(UC_SO), 0},
    {"Other_Symbol", CAT(UC_SO), 0},
    {"Z", CATS_Z, 0},
    {"Separator", CATS_Z, 0},
    {"Zl", CAT(UC_ZL), 0},
    {"Line_Separator", CAT(UC_ZL), 0},
    {"Zp", CAT(UC_ZP), 0},
    {"Paragraph_Separator", CAT(UC_ZP), 0},
    {"Zs", CAT(UC_ZS), 0},
    {"Space_Separator", CAT(UC_ZS), 0},
    {"Any", 0, UB_ANY},
    {"ASCII", 0, UB_ASCII},
    {"Assigned", 0, UB_ASSIGNED},
    {"ASCII_Hex_Digit", 0, UB_AHEX},
    {"AHex", 0, UB_AHEX},
    {"White_Space", 0, UB_WHITE_SPACE},
    {"space", 0, UB_WHITE_SPACE},
};

static const uint32_t set_digit[] = {'0', '9'};
static const uint32_t set_word[] = {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'};
/* ECMA WhiteSpace (incl. every Zs and U+FEFF) plus LineTerminator. */
static const uint32_t set_space[] = {0x09,   0x0D,   0x20,   0x20,   0xA0,   0xA0,   0x1680,
                                     0x1680, 0x2000, 0x200A, 0x2028, 0x2029, 0x202F, 0x202F,
                                     0x205F, 0x205F, 0x3000, 0x3000, 0xFEFF, 0xFEFF};
/* Unicode White_Space, for \p{White_Space}: like \s but with U+0085 and without U+FEFF. */
static const uint32_t set_white_space[] = {0x09,   0x0D,   0x20,   0x20,   0x85,   0x85,   0xA0,
                                           0xA0,   0x1680, 0x1680, 0x2000, 0x200A, 0x2028, 0x2029,
                                           0x202F, 0x202F, 0x205F, 0x205F, 0x3000, 0x3000};
static const uint32_t set_ahex[] = {'0', '9', 'A', 'F', 'a', 'f'};

static enum uc_cat uc_category(uint32_t cp)
{
    size_t lo = 0, hi = TE_ARRAY_LEN(uc_gc_table);
    if (cp > 0x10FFFF)
        return UC_CN;
    while (hi - lo > 1) { /* last entry whose start <= cp; entry 0 starts at 0 */
        size_t mid = lo + (hi - lo) / 2;
        if ((uc_gc_table[mid] >> 5) <= cp)
            lo = mid;
        else
            hi = mid;
    }
    return (enum uc_cat)(uc_gc_table[lo] & 31);
}

/* ------------------------------------------------------------------ UTF-8 */

/* Decodes the code point at s[i] (i < len); returns its length. Invalid bytes decode one at
 * a time as pseudo code points, so every byte string has exactly one tokenisation. */
static size_t utf8_decode(const uint8_t *s, size_t len, size_t i, uint32_t *cp)
{
    uint8_t b = s[i];
    uint32_t c, min;
    size_t n;

    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2, c = b & 0x1Fu, min = 0x80;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3, c = b & 0x0Fu, min = 0x800;
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4, c = b & 0x07u, min = 0x10000;
    } else {
        goto invalid;
    }
    if (len - i < n)
        goto invalid;
    for (size_t k = 1; k < n; k++) {
        if ((s[i + k] & 0xC0) != 0x80)
            goto invalid;
        c = (c << 6) | (s[i + k] & 0x3Fu);
    }
    if (c < min || c > 0x10FFFF)
        goto invalid;
    *cp = c;
    return n;
invalid:
    *cp = CP_INVALID_BASE + b;
    return 1;
}

/* The code point that ends at s[i] (i > 0), consistent with forward decoding. */
static size_t utf8_decode_back(const uint8_t *s, size_t len, size_t i, uint32_t *cp)
{
    size_t k = i - 1, n;
    uint32_t c;

    while (k > 0 && i - k < 4 && (s[k] & 0xC0) == 0x80)
        k--;
    n = utf8_decode(s, len, k, &c);
    if (k + n == i) {
        *cp = c;
        return n;
    }
    *cp = CP_INVALID_BASE + s[i - 1];
    return 1;
}

static size_t utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* ------------------------------------------------------------------ range sets */

/* A set of code points as [lo, hi] pairs; sorted and disjoint once normalised. */
struct rset {
    uint32_t *r;
    size_t n; /* number of ranges */
    size_t cap;
};

static int rset_add(struct rset *s, uint32_t lo, uint32_t hi)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 8;
        uint32_t *nr = realloc(s->r, ncap * 2 * sizeof(*nr));
        if (!nr)
            return REGEX_ENOMEM;
        s->r = nr;
        s->cap = ncap;
    }
    s->r[2 * s->n] = lo;
    s->r[2 * s->n + 1] = hi;
    s->n++;
    return 0;
}

static int rset_add_table(struct rset *s, const uint32_t *pairs, size_t nvals)
{
    for (size_t i = 0; i + 1 < nvals; i += 2) {
        if (rset_add(s, pairs[i], pairs[i + 1]))
            return REGEX_ENOMEM;
    }
    return 0;
}

static int cmp_range(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void rset_normalize(struct rset *s)
{
    size_t out = 0;

    if (s->n == 0)
        return;
    qsort(s->r, s->n, 2 * sizeof(uint32_t), cmp_range);
    for (size_t i = 1; i < s->n; i++) {
        uint32_t lo = s->r[2 * i], hi = s->r[2 * i + 1];
        if (lo <= s->r[2 * out + 1] + 1) {
            if (hi > s->r[2 * out + 1])
                s->r[2 * out + 1] = hi;
        } else {
            out++;
            s->r[2 * out] = lo;
            s->r[2 * out + 1] = hi;
        }
    }
    s->n = out + 1;
}

/* Complement over every code point a subject can produce; s must be normalised. */
static int rset_invert(struct rset *s)
{
    struct rset t = {NULL, 0, 0};
    uint32_t next = 0;

    for (size_t i = 0; i < s->n; i++) {
        if (s->r[2 * i] > next && rset_add(&t, next, s->r[2 * i] - 1))
            goto fail;
        next = s->r[2 * i + 1] + 1;
    }
    if (next <= CP_MAX && rset_add(&t, next, CP_MAX))
        goto fail;
    free(s->r);
    *s = t;
    return 0;
fail:
    free(t.r);
    return REGEX_ENOMEM;
}

static bool rset_has(const struct rset *s, uint32_t cp)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < s->r[2 * mid])
            hi = mid;
        else if (cp > s->r[2 * mid + 1])
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

static int rset_add_cats(struct rset *s, uint32_t cats)
{
    size_t n = TE_ARRAY_LEN(uc_gc_table);
    for (size_t i = 0; i < n; i++) {
        uint32_t lo = uc_gc_table[i] >> 5;
        uint32_t hi = i + 1 < n ? (uc_gc_table[i + 1] >> 5) - 1 : 0x10FFFF;
        if ((cats & CAT(uc_gc_table[i] & 31)) && rset_add(s, lo, hi))
            return REGEX_ENOMEM;
    }
    return 0;
}

static int rset_add_prop(struct rset *s, const struct uc_prop *p)
{
    switch ((enum uc_binary)p->binary) {
    case UB_NONE:
        return rset_add_cats(s, p->cats);
    case UB_ANY:
        return rset_add(s, 0, 0x10FFFF);
    case UB_ASCII:
        return rset_add(s, 0, 0x7F);
    case UB_ASSIGNED:
        return rset_add_cats(s, ~CAT(UC_CN));
    case UB_AHEX:
        return rset_add_table(s, set_ahex, TE_ARRAY_LEN(set_ahex));
    case UB_WHITE_SPACE:
        return rset_add_table(s, set_white_space, TE_ARRAY_LEN(set_white_space));
    }
    return 0;
}

/* ------------------------------------------------------------------ AST */

enum ntype {
    N_EMPTY,
    N_CHAR,
    N_ANY,
    N_CLASS,
    N_BOL,
    N_EOL,
    N_WORDB,
    N_NWORDB,
    N_GROUP,
    N_BACKREF,
    N_SEQ,
    N_ALT,
    N_REPEAT,
    N_LOOK
};

struct node {
    uint8_t type;
    bool greedy, neg, behind;
    uint32_t a, b;           /* CHAR cp | CLASS index | GROUP/BACKREF group | REPEAT min, max */
    uint32_t cap_lo, cap_hi; /* REPEAT: groups [cap_lo, cap_hi) lie inside it */
    int32_t kid, next, tail; /* children as a singly linked list */
    size_t off;              /* offset in the pattern, for messages */
    char *name;              /* BACKREF \k<name> until resolved */
};

struct gname {
    char *name;
    uint32_t group;
};

struct parser {
    const uint8_t *pat;
    size_t len, pos;
    char *err;
    size_t errlen;
    int rc;
    unsigned depth;
    struct node *nodes;
    size_t nnodes, nodecap;
    struct rset *classes;
    size_t nclasses, classcap, total_ranges;
    uint32_t ncaps;
    struct gname *names;
    size_t nnames, namecap;
};

static int perr(struct parser *p, size_t off, const char *fmt, ...) TE_PRINTF(3, 4);

static int perr(struct parser *p, size_t off, const char *fmt, ...)
{
    if (p->rc == 0 && p->err && p->errlen) {
        va_list ap;
        char msg[160];
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(p->err, p->errlen, "%s at offset %zu", msg, off);
    }
    if (p->rc == 0)
        p->rc = REGEX_ESYNTAX;
    return REGEX_ESYNTAX;
}

static int oom(struct parser *p)
{
    if (p->rc == 0 && p->err && p->errlen)
        snprintf(p->err, p->errlen, "out of memory");
    if (p->rc == 0)
        p->rc = REGEX_ENOMEM;
    return REGEX_ENOMEM;
}

static int new_node(struct parser *p, enum ntype type, size_t off, int32_t *out)
{
    struct node *n;

    if (p->nnodes == p->nodecap) {
        size_t ncap = p->nodecap ? p->nodecap * 2 : 32;
        struct node *nn = realloc(p->nodes, ncap * sizeof(*nn));
        if (!nn)
            return oom(p);
        p->nodes = nn;
        p->nodecap = ncap;
    }
    n = &p->nodes[p->nnodes];
    memset(n, 0, sizeof(*n));
    n->type = (uint8_t)type;
    n->kid = n->next = n->tail = -1;
    n->off = off;
    *out = (int32_t)p->nnodes++;
    return 0;
}

static void add_kid(struct parser *p, int32_t parent, int32_t kid)
{
    struct node *n = &p->nodes[parent];
    if (n->tail < 0)
        n->kid = kid;
    else
        p->nodes[n->tail].next = kid;
    n->tail = kid;
}

/* Takes ownership of *set (normalised here) and stores it as a class. */
static int add_class(struct parser *p, struct rset *set, bool negate, uint32_t *idx)
{
    rset_normalize(set);
    if (negate && rset_invert(set))
        goto nomem;
    p->total_ranges += set->n;
    if (p->total_ranges > MAX_CLASS_RANGES) {
        free(set->r);
        return perr(p, p->pos, "character classes too large");
    }
    if (p->nclasses == p->classcap) {
        size_t ncap = p->classcap ? p->classcap * 2 : 8;
        struct rset *nc = realloc(p->classes, ncap * sizeof(*nc));
        if (!nc)
            goto nomem;
        p->classes = nc;
        p->classcap = ncap;
    }
    *idx = (uint32_t)p->nclasses;
    p->classes[p->nclasses++] = *set;
    return 0;
nomem:
    free(set->r);
    return oom(p);
}

/* ------------------------------------------------------------------ parser */

static bool is_syntax_char(uint32_t c)
{
    return c < 0x80 && c && strchr("^$\\.*+?()[]{}|", (int)c) != NULL;
}

static bool is_quant_char(uint8_t c)
{
    return c == '*' || c == '+' || c == '?' || c == '{';
}

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool peek_is(const struct parser *p, size_t ahead, uint8_t c)
{
    return p->pos + ahead < p->len && p->pat[p->pos + ahead] == c;
}

/* Reads exactly n hex digits at pos; -1 if they are not there. */
static int64_t read_hex(struct parser *p, unsigned n)
{
    int64_t v = 0;
    if (p->len - p->pos < n)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        int h = hexval(p->pat[p->pos + i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    p->pos += n;
    return v;
}

/* After "\u": HHHH (a surrogate pair written as two escapes is joined) or {H...}. */
static int parse_unicode_escape(struct parser *p, size_t at, uint32_t *cp)
{
    int64_t v;

    if (peek_is(p, 0, '{')) {
        size_t start = ++p->pos;
        v = 0;
        while (p->pos < p->len && hexval(p->pat[p->pos]) >= 0) {
            v = v * 16 + hexval(p->pat[p->pos++]);
            if (v > 0x10FFFF)
                return perr(p, at, "\\u{...} escape out of range");
        }
        if (p->pos == start || !peek_is(p, 0, '}'))
            return perr(p, at, "invalid \\u{...} escape");
        p->pos++;
        *cp = (uint32_t)v;
        return 0;
    }
    v = read_hex(p, 4);
    if (v < 0)
        return perr(p, at, "invalid \\u escape");
    if (v >= 0xD800 && v <= 0xDBFF && peek_is(p, 0, '\\') && peek_is(p, 1, 'u')) {
        size_t save = p->pos;
        int64_t lo;
        p->pos += 2;
        lo = read_hex(p, 4);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
            *cp = (uint32_t)(0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00));
            return 0;
        }
        p->pos = save;
    }
    *cp = (uint32_t)v;
    return 0;
}

/* CharacterEscape after the backslash (pos is past it). */
static int parse_char_escape(struct parser *p, bool in_class, uint32_t *cp)
{
    size_t at = p->pos - 1;
    uint8_t c;

    if (p->pos >= p->len)
        return perr(p, at, "\\ at end of pattern");
    c = p->pat[p->pos++];
    switch (c) {
    case 't':
        *cp = 0x09;
        return 0;
    case 'n':
        *cp = 0x0A;
        return 0;
    case 'v':
        *cp = 0x0B;
        return 0;
    case 'f':
        *cp = 0x0C;
        return 0;
    case 'r':
        *cp = 0x0D;
        return 0;
    case '0':
        if (p->pos < p->len && p->pat[p->pos] >= '0' && p->pat[p->pos] <= '9')
            return perr(p, at, "invalid decimal escape");
        *cp = 0;
        return 0;
    case 'c': {
        uint8_t l = p->pos < p->len ? p->pat[p->pos] : 0;
        if (!((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z')))
            return perr(p, at, "invalid \\c escape");
        p->pos++;
        *cp = l % 32u;
        return 0;
    }
    case 'x': {
        int64_t v = read_hex(p, 2);
        if (v < 0)
            return perr(p, at, "invalid \\x escape");
        *cp = (uint32_t)v;
        return 0;
    }
    case 'u':
        return parse_unicode_escape(p, at, cp);
    case '-':
        if (in_class) {
            *cp = '-';
            return 0;
        }
        break;
    default:
        if (is_syntax_char(c) || c == '/') {
            *cp = c;
            return 0;
        }
        break;
    }
    if (c >= 0x21 && c < 0x7F)
        return perr(p, at, "invalid escape \\%c", c);
    return perr(p, at, "invalid escape");
}

static const struct uc_prop *find_prop(const char *name, size_t n, bool binary_ok)
{
    for (size_t i = 0; i < TE_ARRAY_LEN(uc_props); i++) {
        const struct uc_prop *pr = &uc_props[i];
        if (strlen(pr->name) == n && memcmp(pr->name, name, n) == 0)
            return (pr->binary && !binary_ok) ? NULL : pr;
    }
    return NULL;
}

/* After "\p" or "\P": {Name} or {General_Category=Value}; adds the set to out. */
static int parse_property(struct parser *p, size_t at, bool negate, struct rset *out)
{
    const char *name, *eq;
    const struct uc_prop *pr = NULL;
    struct rset set = {NULL, 0, 0};
    size_t start, n;

    if (!peek_is(p, 0, '{'))
        return perr(p, at, "invalid property escape (expected \\p{...})");
    start = ++p->pos;
    while (p->pos < p->len && p->pat[p->pos] != '}') {
        uint8_t c = p->pat[p->pos];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '='))
            return perr(p, at, "invalid property escape");
        p->pos++;
    }
    if (p->pos >= p->len)
        return perr(p, at, "unterminated property escape");
    name = (const char *)p->pat + start;
    n = p->pos - start;
    p->pos++;
    eq = memchr(name, '=', n);
    if (eq) {
        size_t k = (size_t)(eq - name);
        if ((k == 16 && memcmp(name, "General_Category", 16) == 0) ||
            (k == 2 && memcmp(name, "gc", 2) == 0))
            pr = find_prop(eq + 1, n - k - 1, false);
    } else {
        pr = find_prop(name, n, true);
    }
    if (!pr)
        return perr(p, at, "unsupported Unicode property \\p{%.*s}", (int)(n > 40 ? 40 : n), name);
    if (rset_add_prop(&set, pr))
        goto nomem;
    rset_normalize(&set);
    if (negate && rset_invert(&set))
        goto nomem;
    for (size_t i = 0; i < set.n; i++) {
        if (rset_add(out, set.r[2 * i], set.r[2 * i + 1]))
            goto nomem;
    }
    free(set.r);
    return 0;
nomem:
    free(set.r);
    return oom(p);
}

/* \d \D \w \W \s \S \p \P (letter at pos-1) into out; 1 if c was not such a letter. */
static int class_escape(struct parser *p, uint8_t c, size_t at, struct rset *out)
{
    struct rset t = {NULL, 0, 0};
    const uint32_t *tab;
    size_t n;

    switch (c) {
    case 'd':
    case 'D':
        tab = set_digit, n = TE_ARRAY_LEN(set_digit);
        break;
    case 'w':
    case 'W':
        tab = set_word, n = TE_ARRAY_LEN(set_word);
        break;
    case 's':
    case 'S':
        tab = set_space, n = TE_ARRAY_LEN(set_space);
        break;
    case 'p':
    case 'P':
        return parse_property(p, at, c == 'P', out);
    default:
        return 1;
    }
    if (rset_add_table(&t, tab, n))
        goto nomem;
    if (c >= 'A' && c <= 'Z') {
        rset_normalize(&t);
        if (rset_invert(&t))
            goto nomem;
    }
    for (size_t i = 0; i < t.n; i++) {
        if (rset_add(out, t.r[2 * i], t.r[2 * i + 1]))
            goto nomem;
    }
    free(t.r);
    return 0;
nomem:
    free(t.r);
    return oom(p);
}

/* Decodes one literal pattern code point at pos. */
static int pattern_char(struct parser *p, uint32_t *cp)
{
    size_t n = utf8_decode(p->pat, p->len, p->pos, cp);
    if (*cp >= CP_INVALID_BASE)
        return perr(p, p->pos, "invalid UTF-8 in pattern");
    p->pos += n;
    return 0;
}

/* One class atom: a code point (*is_set false) or a class escape added to set. */
static int class_atom(struct parser *p, uint32_t *cp, bool *is_set, struct rset *set)
{
    size_t at = p->pos;
    uint8_t c;
    int rc;

    *is_set = false;
    if (p->pat[p->pos] != '\\')
        return pattern_char(p, cp);
    p->pos++;
    if (p->pos >= p->len)
        return perr(p, at, "\\ at end of pattern");
    c = p->pat[p->pos++];
    rc = class_escape(p, c, at, set);
    if (rc <= 0) {
        *is_set = true;
        return rc;
    }
    if (c == 'b') {
        *cp = 0x08;
        return 0;
    }
    if ((c >= '1' && c <= '9') || c == 'B' || c == 'k')
        return perr(p, at, "invalid escape \\%c in character class", c);
    p->pos--;
    return parse_char_escape(p, true, cp);
}

static int parse_class(struct parser *p, int32_t *out)
{
    size_t open = p->pos++;
    struct rset set = {NULL, 0, 0};
    bool negate = false, lo_set, hi_set;
    uint32_t lo, hi, idx;
    int rc;

    if (peek_is(p, 0, '^')) {
        negate = true;
        p->pos++;
    }
    for (;;) {
        if (p->pos >= p->len) {
            rc = perr(p, open, "unterminated character class");
            goto fail;
        }
        if (p->pat[p->pos] == ']')
            break;
        rc = class_atom(p, &lo, &lo_set, &set);
        if (rc)
            goto fail;
        if (peek_is(p, 0, '-') && p->pos + 1 < p->len && p->pat[p->pos + 1] != ']') {
            size_t dash = p->pos++;
            rc = class_atom(p, &hi, &hi_set, &set);
            if (rc)
                goto fail;
            if (lo_set || hi_set) {
                rc = perr(p, dash, "invalid range with a class escape in character class");
                goto fail;
            }
            if (lo > hi) {
                rc = perr(p, dash, "range out of order in character class");
                goto fail;
            }
            rc = rset_add(&set, lo, hi);
        } else if (!lo_set) {
            rc = rset_add(&set, lo, lo);
        }
        if (rc) {
            rc = oom(p);
            goto fail;
        }
    }
    p->pos++;
    rc = add_class(p, &set, negate, &idx);
    if (rc)
        return rc;
    rc = new_node(p, N_CLASS, open, out);
    if (rc == 0)
        p->nodes[*out].a = idx;
    return rc;
fail:
    free(set.r);
    return rc;
}

static bool id_start(uint32_t cp)
{
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '$' || cp == '_';
    return (CAT(uc_category(cp)) & (CATS_L | CAT(UC_NL))) != 0;
}

static bool id_continue(uint32_t cp)
{
    if (id_start(cp) || (cp >= '0' && cp <= '9') || cp == 0x200C || cp == 0x200D)
        return true;
    return cp >= 0x80 &&
           (CAT(uc_category(cp)) & (CAT(UC_MN) | CAT(UC_MC) | CAT(UC_ND) | CAT(UC_PC))) != 0;
}

/* After "<": an identifier up to ">"; *out is a malloc'd UTF-8 string. */
static int parse_group_name(struct parser *p, size_t at, char **out)
{
    struct buf b = BUF_INIT;
    uint32_t cp;
    char enc[4];
    int rc;

    for (;;) {
        if (p->pos >= p->len) {
            rc = perr(p, at, "unterminated group name");
            goto fail;
        }
        if (p->pat[p->pos] == '>')
            break;
        if (p->pat[p->pos] == '\\') {
            size_t esc = p->pos;
            p->pos++;
            if (!peek_is(p, 0, 'u')) {
                rc = perr(p, esc, "invalid escape in group name");
                goto fail;
            }
            p->pos++;
            rc = parse_unicode_escape(p, esc, &cp);
        } else {
            rc = pattern_char(p, &cp);
        }
        if (rc)
            goto fail;
        if (!(b.len == 0 ? id_start(cp) : id_continue(cp))) {
            rc = perr(p, at, "invalid group name");
            goto fail;
        }
        if (buf_append(&b, enc, utf8_encode(cp, enc))) {
            rc = oom(p);
            goto fail;
        }
    }
    p->pos++;
    if (b.len == 0) {
        rc = perr(p, at, "empty group name");
        goto fail;
    }
    *out = buf_steal(&b);
    return 0;
fail:
    buf_free(&b);
    return rc;
}

static int add_group_name(struct parser *p, char *name, size_t at)
{
    for (size_t i = 0; i < p->nnames; i++) {
        if (strcmp(p->names[i].name, name) == 0) {
            free(name);
            return perr(p, at, "duplicate group name");
        }
    }
    if (p->nnames == p->namecap) {
        size_t ncap = p->namecap ? p->namecap * 2 : 4;
        struct gname *nn = realloc(p->names, ncap * sizeof(*nn));
        if (!nn) {
            free(name);
            return oom(p);
        }
        p->names = nn;
        p->namecap = ncap;
    }
    p->names[p->nnames].name = name;
    p->names[p->nnames++].group = p->ncaps;
    return 0;
}

static int parse_disj(struct parser *p, int32_t *out);

/* "(" already seen at open; parses the body and the closing ")". */
static int parse_group_body(struct parser *p, size_t open, const char *what, int32_t *kid)
{
    int rc = parse_disj(p, kid);
    if (rc)
        return rc;
    if (!peek_is(p, 0, ')'))
        return perr(p, open, "unterminated %s", what);
    p->pos++;
    return 0;
}

static int parse_group(struct parser *p, int32_t *out)
{
    size_t open = p->pos++;
    uint32_t group = 0;
    int32_t kid;
    int rc;

    if (peek_is(p, 0, '?')) {
        if (peek_is(p, 1, ':')) {
            p->pos += 2;
        } else if (peek_is(p, 1, '<')) {
            char *name = NULL;
            p->pos += 2;
            rc = parse_group_name(p, open, &name);
            if (rc)
                return rc;
            group = ++p->ncaps;
            rc = add_group_name(p, name, open);
            if (rc)
                return rc;
        } else {
            return perr(p, open, "invalid group");
        }
    } else {
        group = ++p->ncaps;
    }
    rc = parse_group_body(p, open, "group", &kid);
    if (rc || group == 0) {
        *out = kid;
        return rc;
    }
    rc = new_node(p, N_GROUP, open, out);
    if (rc)
        return rc;
    p->nodes[*out].a = group;
    add_kid(p, *out, kid);
    return 0;
}

/* Decimal digits at pos, saturating below UINT32_MAX; false if there are none. */
static bool read_decimal(struct parser *p, uint32_t *v)
{
    size_t start = p->pos;
    uint64_t x = 0;
    while (p->pos < p->len && p->pat[p->pos] >= '0' && p->pat[p->pos] <= '9') {
        x = x * 10 + (uint64_t)(p->pat[p->pos++] - '0');
        if (x > UINT32_MAX - 1)
            x = UINT32_MAX - 1;
    }
    *v = (uint32_t)x;
    return p->pos > start;
}

/* "\" at pos in atom position (not \b \B, handled as assertions). */
static int parse_atom_escape(struct parser *p, int32_t *out)
{
    size_t at = p->pos++;
    struct rset set = {NULL, 0, 0};
    uint32_t v, idx;
    uint8_t c;
    int rc;

    if (p->pos >= p->len)
        return perr(p, at, "\\ at end of pattern");
    c = p->pat[p->pos];
    if (c >= '1' && c <= '9') {
        (void)read_decimal(p, &v);
        rc = new_node(p, N_BACKREF, at, out);
        if (rc == 0)
            p->nodes[*out].a = v;
        return rc;
    }
    if (c == 'k') {
        char *name = NULL;
        if (!peek_is(p, 1, '<'))
            return perr(p, at, "invalid named reference");
        p->pos += 2;
        rc = parse_group_name(p, at, &name);
        if (rc)
            return rc;
        rc = new_node(p, N_BACKREF, at, out);
        if (rc) {
            free(name);
            return rc;
        }
        p->nodes[*out].name = name;
        return 0;
    }
    p->pos++;
    rc = class_escape(p, c, at, &set);
    if (rc < 0) {
        free(set.r);
        return rc;
    }
    if (rc == 0) {
        rc = add_class(p, &set, false, &idx);
        if (rc == 0)
            rc = new_node(p, N_CLASS, at, out);
        if (rc == 0)
            p->nodes[*out].a = idx;
        return rc;
    }
    p->pos--;
    rc = parse_char_escape(p, false, &v);
    if (rc == 0)
        rc = new_node(p, N_CHAR, at, out);
    if (rc == 0)
        p->nodes[*out].a = v;
    return rc;
}

/* {n} {n,} {n,m} at pos; false (pos unchanged) if the text is not a quantifier. */
static bool parse_braces(struct parser *p, uint32_t *min, uint32_t *max)
{
    size_t save = p->pos++;
    if (!read_decimal(p, min))
        goto no;
    *max = *min;
    if (peek_is(p, 0, ',')) {
        p->pos++;
        if (!read_decimal(p, max))
            *max = REP_INF;
    }
    if (!peek_is(p, 0, '}'))
        goto no;
    p->pos++;
    return true;
no:
    p->pos = save;
    return false;
}

static int parse_atom(struct parser *p, int32_t *out)
{
    size_t at = p->pos;
    uint32_t cp, a, b;
    uint8_t c = p->pat[p->pos];
    int rc;

    switch (c) {
    case '.':
        p->pos++;
        return new_node(p, N_ANY, at, out);
    case '(':
        return parse_group(p, out);
    case '[':
        return parse_class(p, out);
    case '\\':
        return parse_atom_escape(p, out);
    case '*':
    case '+':
    case '?':
        return perr(p, at, "nothing to repeat");
    case '{':
        if (parse_braces(p, &a, &b))
            return perr(p, at, "nothing to repeat");
        return perr(p, at, "lone '{' (escape it as \\{)");
    case '}':
        return perr(p, at, "lone '}' (escape it as \\})");
    case ']':
        return perr(p, at, "lone ']' (escape it as \\])");
    case ')':
        return perr(p, at, "unmatched ')'");
    default:
        rc = pattern_char(p, &cp);
        if (rc == 0)
            rc = new_node(p, N_CHAR, at, out);
        if (rc == 0)
            p->nodes[*out].a = cp;
        return rc;
    }
}

/* Wraps atom in a REPEAT node if a quantifier follows. caps_before: groups opened before
 * the atom, so the ones inside are (caps_before, ncaps]. */
static int parse_quantifier(struct parser *p, int32_t atom, uint32_t caps_before, int32_t *out)
{
    size_t at = p->pos;
    uint32_t min, max;
    struct node *n;
    int rc;

    *out = atom;
    if (p->pos >= p->len || !is_quant_char(p->pat[p->pos]))
        return 0;
    switch (p->pat[p->pos]) {
    case '*':
        min = 0, max = REP_INF, p->pos++;
        break;
    case '+':
        min = 1, max = REP_INF, p->pos++;
        break;
    case '?':
        min = 0, max = 1, p->pos++;
        break;
    default:
        if (!parse_braces(p, &min, &max))
            return perr(p, at, "incomplete quantifier");
        if (min > max)
            return perr(p, at, "numbers out of order in {} quantifier");
        break;
    }
    rc = new_node(p, N_REPEAT, at, out);
    if (rc)
        return rc;
    n = &p->nodes[*out];
    n->a = min;
    n->b = max;
    n->greedy = true;
    n->cap_lo = caps_before + 1;
    n->cap_hi = p->ncaps + 1;
    if (peek_is(p, 0, '?')) {
        n->greedy = false;
        p->pos++;
    }
    add_kid(p, *out, atom);
    return 0;
}

/* (?= (?! (?<= (?<! at pos; 1 if pos is not at a lookaround. */
static int parse_lookaround(struct parser *p, int32_t *out)
{
    size_t open = p->pos;
    bool behind = false, neg;
    int32_t kid;
    int rc;

    if (!peek_is(p, 1, '?'))
        return 1;
    if (peek_is(p, 2, '<') && (peek_is(p, 3, '=') || peek_is(p, 3, '!'))) {
        behind = true;
        neg = peek_is(p, 3, '!');
        p->pos += 4;
    } else if (peek_is(p, 2, '=') || peek_is(p, 2, '!')) {
        neg = peek_is(p, 2, '!');
        p->pos += 3;
    } else {
        return 1;
    }
    rc = parse_group_body(p, open, behind ? "lookbehind" : "lookahead", &kid);
    if (rc == 0)
        rc = new_node(p, N_LOOK, open, out);
    if (rc)
        return rc;
    p->nodes[*out].neg = neg;
    p->nodes[*out].behind = behind;
    add_kid(p, *out, kid);
    return 0;
}

static int parse_term(struct parser *p, int32_t *out)
{
    size_t at = p->pos;
    uint8_t c = p->pat[p->pos];
    uint32_t caps_before = p->ncaps;
    int32_t atom;
    int rc;

    if (c == '^' || c == '$') {
        p->pos++;
        return new_node(p, c == '^' ? N_BOL : N_EOL, at, out);
    }
    if (c == '\\' && (peek_is(p, 1, 'b') || peek_is(p, 1, 'B'))) {
        p->pos += 2;
        return new_node(p, p->pat[at + 1] == 'b' ? N_WORDB : N_NWORDB, at, out);
    }
    if (c == '(') {
        rc = parse_lookaround(p, out);
        if (rc <= 0)
            return rc;
    }
    rc = parse_atom(p, &atom);
    if (rc)
        return rc;
    return parse_quantifier(p, atom, caps_before, out);
}

static int parse_alt(struct parser *p, int32_t *out)
{
    int32_t term;
    int rc = new_node(p, N_SEQ, p->pos, out);

    while (rc == 0 && p->pos < p->len && p->pat[p->pos] != '|' && p->pat[p->pos] != ')') {
        rc = parse_term(p, &term);
        if (rc == 0)
            add_kid(p, *out, term);
    }
    return rc;
}

static int parse_disj(struct parser *p, int32_t *out)
{
    int32_t alt = -1, seq;
    int rc;

    if (++p->depth > MAX_NESTING) {
        rc = perr(p, p->pos, "pattern nested too deeply");
        goto done;
    }
    rc = parse_alt(p, &seq);
    while (rc == 0 && peek_is(p, 0, '|')) {
        if (alt < 0) {
            rc = new_node(p, N_ALT, p->pos, &alt);
            if (rc)
                break;
            add_kid(p, alt, seq);
        }
        p->pos++;
        rc = parse_alt(p, &seq);
        if (rc == 0)
            add_kid(p, alt, seq);
    }
    *out = alt >= 0 ? alt : seq;
done:
    p->depth--;
    return rc;
}

/* Backreferences may point forward, so names and numbers are checked after parsing. */
static int resolve_backrefs(struct parser *p)
{
    for (size_t i = 0; i < p->nnodes; i++) {
        struct node *n = &p->nodes[i];
        if (n->type != N_BACKREF)
            continue;
        if (n->name) {
            size_t k;
            for (k = 0; k < p->nnames && strcmp(p->names[k].name, n->name) != 0; k++)
                ;
            if (k == p->nnames)
                return perr(p, n->off, "reference to undefined group name");
            n->a = p->names[k].group;
        } else if (n->a > p->ncaps) {
            return perr(p, n->off, "invalid backreference \\%u", n->a);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ program */

enum op {
    OP_CHAR,  /* a: code point */
    OP_ANY,   /* any code point but a line terminator */
    OP_CLASS, /* a: class index */
    OP_BOL,
    OP_EOL,
    OP_WORDB,
    OP_NWORDB,
    OP_SAVE,      /* slot a = pos */
    OP_RESET,     /* slots [a, b) = unset: captures of a repeated atom, per iteration */
    OP_SPLIT,     /* try a, then b */
    OP_JMP,       /* a */
    OP_BACKREF,   /* a: group */
    OP_SETPOS,    /* slot a = pos (start of a loop iteration) */
    OP_CHECKPROG, /* fail if pos == slot a: an iteration that matched empty */
    OP_SETCNT,    /* slot a = 0 */
    OP_LOOP,      /* counter slot a, min b, max c, exit d */
    OP_LOOPEND,   /* counter slot a, pos slot b (or NO_REG), min c, head d */
    OP_REPEAT,    /* one-character atom: op a, arg b, min c, max d */
    OP_LOOK,      /* body follows; a: continuation after OP_LOOKEND; neg */
    OP_LOOKEND,
    OP_MATCH,
};

struct insn {
    uint8_t op;
    bool back; /* consumes right to left (inside a lookbehind) */
    bool greedy;
    bool neg;
    uint32_t a, b, c, d;
};

struct regex {
    struct insn *prog;
    size_t nprog;
    struct rset *classes;
    size_t nclasses;
    uint32_t nslots; /* 2 per group (group 0 included) then loop registers */
    bool anchored;   /* every match starts at offset 0 */
    int32_t first;   /* class every match must start with, or -1 */
};

struct comp {
    struct parser *p;
    struct insn *prog;
    size_t n, cap;
    uint32_t nslots;
};

static int emit(struct comp *c, enum op op, bool back, uint32_t a, uint32_t b, size_t *at)
{
    if (c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 64;
        struct insn *np;
        if (ncap > UINT32_MAX / 2)
            return perr(c->p, 0, "pattern too large");
        np = realloc(c->prog, ncap * sizeof(*np));
        if (!np)
            return oom(c->p);
        c->prog = np;
        c->cap = ncap;
    }
    memset(&c->prog[c->n], 0, sizeof(c->prog[0]));
    c->prog[c->n].op = (uint8_t)op;
    c->prog[c->n].back = back;
    c->prog[c->n].a = a;
    c->prog[c->n].b = b;
    if (at)
        *at = c->n;
    c->n++;
    return 0;
}

static bool nullable(const struct parser *p, int32_t ni)
{
    const struct node *n = &p->nodes[ni];
    int32_t k;

    switch ((enum ntype)n->type) {
    case N_CHAR:
    case N_ANY:
    case N_CLASS:
        return false;
    case N_GROUP:
        return nullable(p, n->kid);
    case N_SEQ:
        for (k = n->kid; k >= 0; k = p->nodes[k].next) {
            if (!nullable(p, k))
                return false;
        }
        return true;
    case N_ALT:
        for (k = n->kid; k >= 0; k = p->nodes[k].next) {
            if (nullable(p, k))
                return true;
        }
        return false;
    case N_REPEAT:
        return n->a == 0 || nullable(p, n->kid);
    default:
        return true;
    }
}

static int compile_node(struct comp *c, int32_t ni, bool back);

static int compile_seq(struct comp *c, const struct node *n, bool back)
{
    const struct parser *p = c->p;
    int32_t *kids = NULL;
    size_t cnt = 0, i;
    int32_t k;
    int rc = 0;

    if (!back) {
        for (k = n->kid; k >= 0 && rc == 0; k = p->nodes[k].next)
            rc = compile_node(c, k, false);
        return rc;
    }
    for (k = n->kid; k >= 0; k = p->nodes[k].next)
        cnt++;
    if (cnt == 0)
        return 0;
    kids = malloc(cnt * sizeof(*kids));
    if (!kids)
        return oom(c->p);
    for (i = 0, k = n->kid; k >= 0; k = p->nodes[k].next)
        kids[i++] = k;
    for (i = cnt; i-- > 0 && rc == 0;)
        rc = compile_node(c, kids[i], true);
    free(kids);
    return rc;
}

static int compile_alt(struct comp *c, const struct node *n, bool back)
{
    size_t split, jmp, prev_jmp = SIZE_MAX;
    int32_t k;
    int rc;

    for (k = n->kid; k >= 0; k = c->p->nodes[k].next) {
        bool last = c->p->nodes[k].next < 0;
        split = SIZE_MAX;
        if (!last && (rc = emit(c, OP_SPLIT, back, (uint32_t)c->n + 1, 0, &split)))
            return rc;
        if ((rc = compile_node(c, k, back)))
            return rc;
        if (!last) {
            if ((rc = emit(c, OP_JMP, back, 0, (uint32_t)prev_jmp, &jmp)))
                return rc;
            prev_jmp = jmp; /* chain of jumps to patch with the end address */
            c->prog[split].b = (uint32_t)c->n;
        }
    }
    while (prev_jmp != SIZE_MAX) {
        size_t next = c->prog[prev_jmp].b == UINT32_MAX ? SIZE_MAX : c->prog[prev_jmp].b;
        c->prog[prev_jmp].a = (uint32_t)c->n;
        c->prog[prev_jmp].b = 0;
        prev_jmp = next;
    }
    return 0;
}

/* Loop body: optional start-position register, capture reset, the atom. */
static int compile_body(struct comp *c, const struct node *n, bool back, uint32_t posreg)
{
    int rc = 0;
    if (posreg != NO_REG)
        rc = emit(c, OP_SETPOS, back, posreg, 0, NULL);
    if (rc == 0 && n->cap_hi > n->cap_lo)
        rc = emit(c, OP_RESET, back, 2 * n->cap_lo, 2 * n->cap_hi, NULL);
    if (rc == 0)
        rc = compile_node(c, n->kid, back);
    return rc;
}

/* x* x? and x{0,1}: a SPLIT around the body; x{n,m} in general: a counter loop. */
static int compile_repeat(struct comp *c, const struct node *n, bool back)
{
    const struct node *kid = &c->p->nodes[n->kid];
    uint32_t posreg = NO_REG, cnt;
    size_t split, head, loop;
    int rc;

    if (n->b == 0)
        return 0;
    if (kid->type == N_CHAR || kid->type == N_ANY || kid->type == N_CLASS) {
        enum op aop = kid->type == N_CHAR ? OP_CHAR : kid->type == N_ANY ? OP_ANY : OP_CLASS;
        if ((rc = emit(c, OP_REPEAT, back, aop, kid->a, &head)))
            return rc;
        c->prog[head].c = n->a;
        c->prog[head].d = n->b;
        c->prog[head].greedy = n->greedy;
        return 0;
    }
    if (n->a == 1 && n->b == 1)
        return compile_node(c, n->kid, back);
    if (nullable(c->p, n->kid))
        posreg = c->nslots++;
    if (n->a == 0 && (n->b == REP_INF || n->b == 1)) {
        if ((rc = emit(c, OP_SPLIT, back, 0, 0, &split)) || (rc = compile_body(c, n, back, posreg)))
            return rc;
        if (posreg != NO_REG && (rc = emit(c, OP_CHECKPROG, back, posreg, 0, NULL)))
            return rc;
        if (n->b == REP_INF && (rc = emit(c, OP_JMP, back, (uint32_t)split, 0, NULL)))
            return rc;
        c->prog[split].a = n->greedy ? (uint32_t)split + 1 : (uint32_t)c->n;
        c->prog[split].b = n->greedy ? (uint32_t)c->n : (uint32_t)split + 1;
        return 0;
    }
    cnt = c->nslots++;
    if ((rc = emit(c, OP_SETCNT, back, cnt, 0, NULL)) ||
        (rc = emit(c, OP_LOOP, back, cnt, n->a, &loop)))
        return rc;
    c->prog[loop].c = n->b;
    c->prog[loop].greedy = n->greedy;
    if ((rc = compile_body(c, n, back, posreg)) ||
        (rc = emit(c, OP_LOOPEND, back, cnt, posreg, &head)))
        return rc;
    c->prog[head].c = n->a;
    c->prog[head].d = (uint32_t)loop;
    c->prog[loop].d = (uint32_t)c->n;
    return 0;
}

static int compile_node(struct comp *c, int32_t ni, bool back)
{
    const struct node *n = &c->p->nodes[ni];
    size_t at;
    int rc;

    switch ((enum ntype)n->type) {
    case N_EMPTY:
        return 0;
    case N_CHAR:
        return emit(c, OP_CHAR, back, n->a, 0, NULL);
    case N_ANY:
        return emit(c, OP_ANY, back, 0, 0, NULL);
    case N_CLASS:
        return emit(c, OP_CLASS, back, n->a, 0, NULL);
    case N_BOL:
        return emit(c, OP_BOL, back, 0, 0, NULL);
    case N_EOL:
        return emit(c, OP_EOL, back, 0, 0, NULL);
    case N_WORDB:
        return emit(c, OP_WORDB, back, 0, 0, NULL);
    case N_NWORDB:
        return emit(c, OP_NWORDB, back, 0, 0, NULL);
    case N_BACKREF:
        return emit(c, OP_BACKREF, back, n->a, 0, NULL);
    case N_SEQ:
        return compile_seq(c, n, back);
    case N_ALT:
        return compile_alt(c, n, back);
    case N_REPEAT:
        return compile_repeat(c, n, back);
    case N_GROUP:
        /* Right to left, the group's end is reached first. */
        if ((rc = emit(c, OP_SAVE, back, 2 * n->a + back, 0, NULL)) ||
            (rc = compile_node(c, n->kid, back)))
            return rc;
        return emit(c, OP_SAVE, back, 2 * n->a + !back, 0, NULL);
    case N_LOOK:
        if ((rc = emit(c, OP_LOOK, back, 0, 0, &at)))
            return rc;
        c->prog[at].neg = n->neg;
        if ((rc = compile_node(c, n->kid, n->behind)) ||
            (rc = emit(c, OP_LOOKEND, n->behind, 0, 0, NULL)))
            return rc;
        c->prog[at].a = (uint32_t)c->n;
        return 0;
    }
    return 0;
}

static bool anchored(const struct parser *p, int32_t ni)
{
    const struct node *n = &p->nodes[ni];
    int32_t k;

    switch ((enum ntype)n->type) {
    case N_BOL:
        return true;
    case N_GROUP:
        return anchored(p, n->kid);
    case N_SEQ:
        return n->kid >= 0 && anchored(p, n->kid);
    case N_ALT:
        for (k = n->kid; k >= 0; k = p->nodes[k].next) {
            if (!anchored(p, k))
                return false;
        }
        return true;
    default:
        return false;
    }
}

/* Adds to set every code point a match of node ni can start with; false if that is
 * unknown (dot, backreference). Zero-width nodes add nothing. */
static int first_chars(struct parser *p, int32_t ni, struct rset *set, bool *known)
{
    const struct node *n = &p->nodes[ni];
    int32_t k;
    int rc = 0;

    switch ((enum ntype)n->type) {
    case N_CHAR:
        return rset_add(set, n->a, n->a);
    case N_CLASS: {
        const struct rset *cl = &p->classes[n->a];
        for (size_t i = 0; i < cl->n && rc == 0; i++)
            rc = rset_add(set, cl->r[2 * i], cl->r[2 * i + 1]);
        return rc;
    }
    case N_ANY:
    case N_BACKREF:
        *known = false;
        return 0;
    case N_GROUP:
        return first_chars(p, n->kid, set, known);
    case N_REPEAT:
        return n->b == 0 ? 0 : first_chars(p, n->kid, set, known);
    case N_SEQ:
        for (k = n->kid; k >= 0 && *known && rc == 0; k = p->nodes[k].next) {
            rc = first_chars(p, k, set, known);
            if (!nullable(p, k))
                break;
        }
        return rc;
    case N_ALT:
        for (k = n->kid; k >= 0 && *known && rc == 0; k = p->nodes[k].next)
            rc = first_chars(p, k, set, known);
        return rc;
    default:
        return 0;
    }
}

static int compute_first(struct parser *p, int32_t root, int32_t *first)
{
    struct rset set = {NULL, 0, 0};
    bool known = true;
    uint32_t idx;
    int rc;

    *first = -1;
    if (nullable(p, root))
        return 0;
    rc = first_chars(p, root, &set, &known);
    if (rc) {
        free(set.r);
        return oom(p);
    }
    if (!known) {
        free(set.r);
        return 0;
    }
    rc = add_class(p, &set, false, &idx);
    if (rc == 0)
        *first = (int32_t)idx;
    return rc;
}

static void parser_free(struct parser *p)
{
    for (size_t i = 0; i < p->nnodes; i++)
        free(p->nodes[i].name);
    for (size_t i = 0; i < p->nnames; i++)
        free(p->names[i].name);
    for (size_t i = 0; i < p->nclasses; i++)
        free(p->classes[i].r);
    free(p->nodes);
    free(p->names);
    free(p->classes);
}

void regex_free(struct regex *re)
{
    if (!re)
        return;
    for (size_t i = 0; i < re->nclasses; i++)
        free(re->classes[i].r);
    free(re->classes);
    free(re->prog);
    free(re);
}

int regex_compile(const char *pattern, size_t len, struct regex **out, char *err, size_t errlen)
{
    struct parser p;
    struct comp c;
    struct regex *re = NULL;
    int32_t root, first = -1;
    int rc;

    memset(&p, 0, sizeof(p));
    memset(&c, 0, sizeof(c));
    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    p.pat = (const uint8_t *)pattern;
    p.len = len;
    p.err = err;
    p.errlen = errlen;
    c.p = &p;
    if (len > MAX_PATTERN_LEN) {
        rc = perr(&p, MAX_PATTERN_LEN, "pattern too long");
        goto fail;
    }
    rc = parse_disj(&p, &root);
    if (rc == 0 && p.pos < p.len)
        rc = perr(&p, p.pos, "unmatched ')'");
    if (rc == 0)
        rc = resolve_backrefs(&p);
    if (rc == 0)
        rc = compute_first(&p, root, &first);
    if (rc)
        goto fail;
    c.nslots = 2 * (p.ncaps + 1);
    rc = compile_node(&c, root, false);
    if (rc == 0)
        rc = emit(&c, OP_MATCH, false, 0, 0, NULL);
    if (rc)
        goto fail;
    re = calloc(1, sizeof(*re));
    if (!re) {
        rc = oom(&p);
        goto fail;
    }
    re->prog = c.prog;
    re->nprog = c.n;
    re->classes = p.classes;
    re->nclasses = p.nclasses;
    re->nslots = c.nslots;
    re->anchored = anchored(&p, root);
    re->first = first;
    p.classes = NULL;
    p.nclasses = 0;
    parser_free(&p);
    *out = re;
    return 0;
fail:
    free(c.prog);
    parser_free(&p);
    return rc ? rc : p.rc;
}

/* ------------------------------------------------------------------ VM */

enum bt_kind {
    BT_UNDO,   /* slot pc had value pos */
    BT_CHOICE, /* resume at pc with pos */
    BT_GREEDY, /* OP_REPEAT at pc matched up to pos; may give back down to aux */
    BT_LAZY,   /* OP_REPEAT at pc matched aux times up to pos; may take one more */
};

struct bt {
    uint32_t kind;
    uint32_t pc;
    size_t pos;
    size_t aux;
};

struct vm {
    const struct regex *re;
    const uint8_t *s;
    size_t len;
    size_t *slots;
    struct bt *st;
    size_t sp, cap, max;
    uint64_t steps, max_steps;
};

static int push(struct vm *vm, enum bt_kind kind, uint32_t pc, size_t pos, size_t aux)
{
    if (vm->sp == vm->cap) {
        size_t ncap = vm->cap ? vm->cap * 2 : 64;
        struct bt *ns;
        if (vm->cap >= vm->max)
            return REGEX_EBUDGET;
        if (ncap > vm->max)
            ncap = vm->max;
        ns = realloc(vm->st, ncap * sizeof(*ns));
        if (!ns)
            return REGEX_ENOMEM;
        vm->st = ns;
        vm->cap = ncap;
    }
    vm->st[vm->sp].kind = kind;
    vm->st[vm->sp].pc = pc;
    vm->st[vm->sp].pos = pos;
    vm->st[vm->sp].aux = aux;
    vm->sp++;
    return 0;
}

/* Register writes go through the trail so that backtracking restores them. */
static int set_slot(struct vm *vm, uint32_t i, size_t v)
{
    int rc;
    if (vm->slots[i] == v)
        return 0;
    rc = push(vm, BT_UNDO, i, vm->slots[i], 0);
    if (rc == 0)
        vm->slots[i] = v;
    return rc;
}

static bool budget_ok(struct vm *vm)
{
    return ++vm->steps <= vm->max_steps;
}

static bool is_line_term(uint32_t cp)
{
    return cp == 0x0A || cp == 0x0D || cp == 0x2028 || cp == 0x2029;
}

/* Matches one code point against a CHAR/ANY/CLASS atom, moving pos if it does. */
static bool atom_step(const struct vm *vm, uint32_t op, uint32_t arg, bool back, size_t *pos)
{
    uint32_t cp;
    size_t n;
    bool ok;

    if (back) {
        if (*pos == 0)
            return false;
        n = utf8_decode_back(vm->s, vm->len, *pos, &cp);
    } else {
        if (*pos >= vm->len)
            return false;
        n = utf8_decode(vm->s, vm->len, *pos, &cp);
    }
    if (op == OP_CHAR)
        ok = cp == arg;
    else if (op == OP_ANY)
        ok = !is_line_term(cp);
    else
        ok = rset_has(&vm->re->classes[arg], cp);
    if (ok)
        *pos = back ? *pos - n : *pos + n;
    return ok;
}

/* Undoes one code point of a greedy repeat. */
static size_t step_back(const struct vm *vm, bool back, size_t pos)
{
    uint32_t cp;
    if (back)
        return pos + utf8_decode(vm->s, vm->len, pos, &cp);
    return pos - utf8_decode_back(vm->s, vm->len, pos, &cp);
}

static bool is_word_byte(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* \w is ASCII-only, so the bytes either side decide (a continuation byte is not \w). */
static bool at_word_boundary(const struct vm *vm, size_t pos)
{
    bool before = pos > 0 && is_word_byte(vm->s[pos - 1]);
    bool after = pos < vm->len && is_word_byte(vm->s[pos]);
    return before != after;
}

/* An unset group matches the empty string, as in ECMA-262. */
static bool backref_step(const struct vm *vm, uint32_t group, bool back, size_t *pos)
{
    size_t s = vm->slots[2 * group], e = vm->slots[2 * group + 1], n;

    if (s == SLOT_NONE || e == SLOT_NONE || e <= s)
        return true;
    n = e - s;
    if (back) {
        if (*pos < n || memcmp(vm->s + *pos - n, vm->s + s, n) != 0)
            return false;
        *pos -= n;
        return true;
    }
    if (vm->len - *pos < n || memcmp(vm->s + *pos, vm->s + s, n) != 0)
        return false;
    *pos += n;
    return true;
}

/* 1 entered, 0 failed, <0 budget/memory. */
static int repeat_enter(struct vm *vm, uint32_t pc, size_t *pos)
{
    const struct insn *in = &vm->re->prog[pc];
    size_t p = *pos, pmin, n;

    for (n = 0; n < in->c; n++) {
        if (!budget_ok(vm))
            return REGEX_EBUDGET;
        if (!atom_step(vm, in->a, in->b, in->back, &p))
            return 0;
    }
    pmin = p;
    if (in->greedy) {
        while (in->d == REP_INF || n < in->d) {
            if (!budget_ok(vm))
                return REGEX_EBUDGET;
            if (!atom_step(vm, in->a, in->b, in->back, &p))
                break;
            n++;
        }
        if (p != pmin) {
            int rc = push(vm, BT_GREEDY, pc, p, pmin);
            if (rc)
                return rc;
        }
    } else if (in->d == REP_INF || n < in->d) {
        int rc = push(vm, BT_LAZY, pc, p, n);
        if (rc)
            return rc;
    }
    *pos = p;
    return 1;
}

/* Pops to the next alternative: 1 (pc/pos set), 0 (nothing left above base), <0. */
static int backtrack(struct vm *vm, size_t base, uint32_t *pc, size_t *pos)
{
    while (vm->sp > base) {
        struct bt *e = &vm->st[vm->sp - 1];
        const struct insn *in;
        size_t p = e->pos;

        switch ((enum bt_kind)e->kind) {
        case BT_UNDO:
            vm->slots[e->pc] = e->pos;
            vm->sp--;
            continue;
        case BT_CHOICE:
            *pc = e->pc;
            *pos = e->pos;
            vm->sp--;
            return 1;
        case BT_GREEDY:
            in = &vm->re->prog[e->pc];
            p = step_back(vm, in->back, p);
            *pc = e->pc + 1;
            if (p == e->aux)
                vm->sp--;
            else
                e->pos = p;
            *pos = p;
            return 1;
        case BT_LAZY:
            in = &vm->re->prog[e->pc];
            if (!budget_ok(vm))
                return REGEX_EBUDGET;
            if (!atom_step(vm, in->a, in->b, in->back, &p)) {
                vm->sp--;
                continue;
            }
            *pc = e->pc + 1;
            e->aux++;
            e->pos = p;
            if (in->d != REP_INF && e->aux >= in->d)
                vm->sp--;
            *pos = p;
            return 1;
        }
    }
    return 0;
}

static void unwind(struct vm *vm, size_t base)
{
    while (vm->sp > base) {
        struct bt *e = &vm->st[--vm->sp];
        if (e->kind == BT_UNDO)
            vm->slots[e->pc] = e->pos;
    }
}

/* After a successful positive lookaround: its alternatives are discarded (lookarounds
 * are atomic) but its register writes stay undoable by the enclosing match. */
static void keep_undo(struct vm *vm, size_t base)
{
    size_t out = base;
    for (size_t i = base; i < vm->sp; i++) {
        if (vm->st[i].kind == BT_UNDO)
            vm->st[out++] = vm->st[i];
    }
    vm->sp = out;
}

static int vm_run(struct vm *vm, uint32_t pc, size_t pos, size_t base);

/* Runs a lookaround body; recursion depth is bounded by the pattern's nesting. */
static int lookaround(struct vm *vm, uint32_t pc, size_t pos)
{
    const struct insn *in = &vm->re->prog[pc];
    size_t base = vm->sp;
    int rc = vm_run(vm, pc + 1, pos, base);

    if (rc < 0)
        return rc;
    if (in->neg) {
        if (rc == 1)
            unwind(vm, base);
        return !rc;
    }
    if (rc == 1)
        keep_undo(vm, base);
    return rc;
}

static int loop_head(struct vm *vm, const struct insn *in, uint32_t *pc, size_t pos)
{
    size_t cnt = vm->slots[in->a];

    if (cnt < in->b) {
        (*pc)++;
        return 0;
    }
    if (in->c != REP_INF && cnt >= in->c) {
        *pc = in->d;
        return 0;
    }
    if (in->greedy) {
        (*pc)++;
        return push(vm, BT_CHOICE, in->d, pos, 0);
    }
    *pc = in->d;
    return push(vm, BT_CHOICE, (uint32_t)(in - vm->re->prog) + 1, pos, 0);
}

/* One instruction: 1 continue (pc, pos updated), 0 fail (backtrack), <0 abort. */
static int exec(struct vm *vm, uint32_t *pc, size_t *pos)
{
    const struct insn *in = &vm->re->prog[*pc];
    uint32_t i;
    int rc;

    switch ((enum op)in->op) {
    case OP_CHAR:
    case OP_ANY:
    case OP_CLASS:
        rc = atom_step(vm, in->op, in->a, in->back, pos);
        break;
    case OP_BOL:
        rc = *pos == 0;
        break;
    case OP_EOL:
        rc = *pos == vm->len;
        break;
    case OP_WORDB:
        rc = at_word_boundary(vm, *pos);
        break;
    case OP_NWORDB:
        rc = !at_word_boundary(vm, *pos);
        break;
    case OP_SAVE:
    case OP_SETPOS:
        rc = set_slot(vm, in->a, *pos);
        return rc ? rc : (++*pc, 1);
    case OP_SETCNT:
        rc = set_slot(vm, in->a, 0);
        return rc ? rc : (++*pc, 1);
    case OP_RESET:
        for (i = in->a, rc = 0; i < in->b && rc == 0; i++)
            rc = set_slot(vm, i, SLOT_NONE);
        return rc ? rc : (++*pc, 1);
    case OP_SPLIT:
        rc = push(vm, BT_CHOICE, in->b, *pos, 0);
        *pc = in->a;
        return rc ? rc : 1;
    case OP_JMP:
        *pc = in->a;
        return 1;
    case OP_BACKREF:
        rc = backref_step(vm, in->a, in->back, pos);
        break;
    case OP_CHECKPROG:
        rc = *pos != vm->slots[in->a];
        break;
    case OP_LOOP:
        rc = loop_head(vm, in, pc, *pos);
        return rc ? rc : 1;
    case OP_LOOPEND:
        if (in->b != NO_REG && vm->slots[in->a] >= in->c && *pos == vm->slots[in->b])
            return 0;
        rc = set_slot(vm, in->a, vm->slots[in->a] + 1);
        *pc = in->d;
        return rc ? rc : 1;
    case OP_REPEAT:
        rc = repeat_enter(vm, *pc, pos);
        break;
    case OP_LOOK:
        rc = lookaround(vm, *pc, *pos);
        if (rc == 1)
            *pc = in->a;
        return rc;
    case OP_LOOKEND:
    case OP_MATCH:
        return 2;
    default:
        return 0;
    }
    if (rc == 1)
        ++*pc;
    return rc;
}

/* 1 when OP_MATCH/OP_LOOKEND is reached, 0 when every alternative above base failed. */
static int vm_run(struct vm *vm, uint32_t pc, size_t pos, size_t base)
{
    for (;;) {
        int rc;
        if (!budget_ok(vm))
            return REGEX_EBUDGET;
        rc = exec(vm, &pc, &pos);
        if (rc == 2)
            return 1;
        if (rc < 0)
            return rc;
        if (rc == 0) {
            rc = backtrack(vm, base, &pc, &pos);
            if (rc <= 0)
                return rc;
        }
    }
}

static bool may_start(const struct vm *vm, size_t start)
{
    uint32_t cp;
    if (vm->re->first < 0)
        return true;
    if (start >= vm->len)
        return false;
    (void)utf8_decode(vm->s, vm->len, start, &cp);
    return rset_has(&vm->re->classes[vm->re->first], cp);
}

int regex_search_limits(const struct regex *re, const char *subject, size_t len,
                        const struct regex_limits *lim)
{
    struct vm vm;
    size_t start = 0;
    int rc = REGEX_NOMATCH;
    uint32_t cp;

    memset(&vm, 0, sizeof(vm));
    vm.re = re;
    vm.s = (const uint8_t *)subject;
    vm.len = len;
    vm.max_steps = lim && lim->max_steps ? lim->max_steps : REGEX_DEFAULT_STEPS;
    vm.max = lim && lim->max_stack ? lim->max_stack : REGEX_DEFAULT_STACK;
    vm.slots = malloc(re->nslots * sizeof(*vm.slots));
    if (!vm.slots)
        return REGEX_ENOMEM;
    for (uint32_t i = 0; i < re->nslots; i++)
        vm.slots[i] = SLOT_NONE;
    for (;;) {
        if (may_start(&vm, start)) {
            rc = vm_run(&vm, 0, start, 0);
            if (rc != REGEX_NOMATCH)
                break;
        }
        if (re->anchored || start >= len)
            break;
        start += utf8_decode(vm.s, len, start, &cp);
    }
    if (lim && lim->steps_used)
        *lim->steps_used += vm.steps;
    free(vm.slots);
    free(vm.st);
    return rc;
}

int regex_search(const struct regex *re, const char *subject, size_t len)
{
    return regex_search_limits(re, subject, len, NULL);
}

/* ------------------------------------------------------------------ generated data */

/*
 * Unicode 14.0.0 General_Category as a partition of the code space: each entry is
 * (first code point << 5) | category, sorted; a range ends where the next one starts.
 * Generated with Python's unicodedata; categories are numbered as in enum uc_cat.
 */
static const uint32_t uc_gc_table[3968] = {
    0x1a,      0x417,     0x432,     0x494,     0x4b2,     0x50e,     0x52f,     0x552,
    0x573,     0x592,     0x5ad,     0x5d2,     0x609,     0x752,     0x793,     0x7f2,
    0x821,     0xb6e,     0xb92,     0xbaf,     0xbd5,     0xbec,     0xc15,     0xc22,
    0xf6e,     0xf93,     0xfaf,     0xfd3,     0xffa,     0x1417,    0x1432,    0x1454,
    0x14d6,    0x14f2,    0x1515,    0x1536,    0x1545,    0x1570,    0x1593,    0x15bb,
    0x15d6,    0x15f5,    0x1616,    0x1633,    0x164b,    0x1695,    0x16a2,    0x16d2,
    0x1715,    0x172b,    0x1745,    0x1771,    0x178b,    0x17f2,    0x1801,    0x1af3,
    0x1b01,    0x1be2,    0x1ef3,    0x1f02,    0x2001,    0x2022,    0x2041,    0x2062,
    0x2081,    0x20a2,    0x20c1,    0x20e2,    0x2101,    0x2122,    0x2141,    0x2162,
    0x2181,    0x21a2,    0x21c1,    0x21e2,    0x2201,    0x2222,    0x2241,    0x2262,
    0x2281,    0x22a2,    0x22c1,    0x22e2,    0x2301,    0x2322,    0x2341,    0x2362,
    0x2381,    0x23a2,    0x23c1,    0x23e2,    0x2401,    0x2422,    0x2441,    0x2462,
    0x2481,    0x24a2,    0x24c1,    0x24e2,    0x2501,    0x2522,    0x2541,    0x2562,
    0x2581,    0x25a2,    0x25c1,    0x25e2,    0x2601,    0x2622,    0x2641,    0x2662,
    0x2681,    0x26a2,    0x26c1,    0x26e2,    0x2721,    0x2742,    0x2761,    0x2782,
    0x27a1,    0x27c2,    0x27e1,    0x2802,    0x2821,    0x2842,    0x2861,    0x2882,
    0x28a1,    0x28c2,    0x28e1,    0x2902,    0x2941,    0x2962,    0x2981,    0x29a2,
    0x29c1,    0x29e2,    0x2a01,    0x2a22,    0x2a41,    0x2a62,    0x2a81,    0x2aa2,
    0x2ac1,    0x2ae2,    0x2b01,    0x2b22,    0x2b41,    0x2b62,    0x2b81,    0x2ba2,
    0x2bc1,    0x2be2,    0x2c01,    0x2c22,    0x2c41,    0x2c62,    0x2c81,    0x2ca2,
    0x2cc1,    0x2ce2,    0x2d01,    0x2d22,    0x2d41,    0x2d62,    0x2d81,    0x2da2,
    0x2dc1,    0x2de2,    0x2e01,    0x2e22,    0x2e41,    0x2e62,    0x2e81,    0x2ea2,
    0x2ec1,    0x2ee2,    0x2f01,    0x2f42,    0x2f61,    0x2f82,    0x2fa1,    0x2fc2,
    0x3021,    0x3062,    0x3081,    0x30a2,    0x30c1,    0x3102,    0x3121,    0x3182,
    0x31c1,    0x3242,    0x3261,    0x32a2,    0x32c1,    0x3322,    0x3381,    0x33c2,
    0x33e1,    0x3422,    0x3441,    0x3462,    0x3481,    0x34a2,    0x34c1,    0x3502,
    0x3521,    0x3542,    0x3581,    0x35a2,    0x35c1,    0x3602,    0x3621,    0x3682,
    0x36a1,    0x36c2,    0x36e1,    0x3722,    0x3765,    0x3781,    0x37a2,    0x3805,
    0x3881,    0x38a3,    0x38c2,    0x38e1,    0x3903,    0x3922,    0x3941,    0x3963,
    0x3982,    0x39a1,    0x39c2,    0x39e1,    0x3a02,    0x3a21,    0x3a42,    0x3a61,
    0x3a82,    0x3aa1,    0x3ac2,    0x3ae1,    0x3b02,    0x3b21,    0x3b42,    0x3b61,
    0x3b82,    0x3bc1,    0x3be2,    0x3c01,    0x3c22,    0x3c41,    0x3c62,    0x3c81,
    0x3ca2,    0x3cc1,    0x3ce2,    0x3d01,    0x3d22,    0x3d41,    0x3d62,    0x3d81,
    0x3da2,    0x3dc1,    0x3de2,    0x3e21,    0x3e43,    0x3e62,    0x3e81,    0x3ea2,
    0x3ec1,    0x3f22,    0x3f41,    0x3f62,    0x3f81,    0x3fa2,    0x3fc1,    0x3fe2,
    0x4001,    0x4022,    0x4041,    0x4062,    0x4081,    0x40a2,    0x40c1,    0x40e2,
    0x4101,    0x4122,    0x4141,    0x4162,    0x4181,    0x41a2,    0x41c1,    0x41e2,
    0x4201,    0x4222,    0x4241,    0x4262,    0x4281,    0x42a2,    0x42c1,    0x42e2,
    0x4301,    0x4322,    0x4341,    0x4362,    0x4381,    0x43a2,    0x43c1,    0x43e2,
    0x4401,    0x4422,    0x4441,    0x4462,    0x4481,    0x44a2,    0x44c1,    0x44e2,
    0x4501,    0x4522,    0x4541,    0x4562,    0x4581,    0x45a2,    0x45c1,    0x45e2,
    0x4601,    0x4622,    0x4641,    0x4662,    0x4741,    0x4782,    0x47a1,    0x47e2,
    0x4821,    0x4842,    0x4861,    0x48e2,    0x4901,    0x4922,    0x4941,    0x4962,
    0x4981,    0x49a2,    0x49c1,    0x49e2,    0x5285,    0x52a2,    0x5604,    0x5855,
    0x58c4,    0x5a55,    0x5c04,    0x5cb5,    0x5d84,    0x5db5,    0x5dc4,    0x5df5,
    0x6006,    0x6e01,    0x6e22,    0x6e41,    0x6e62,    0x6e84,    0x6eb5,    0x6ec1,
    0x6ee2,    0x6f00,    0x6f44,    0x6f62,    0x6fd2,    0x6fe1,    0x7000,    0x7095,
    0x70c1,    0x70f2,    0x7101,    0x7160,    0x7181,    0x71a0,    0x71c1,    0x7202,
    0x7221,    0x7440,    0x7461,    0x7582,    0x79e1,    0x7a02,    0x7a41,    0x7aa2,
    0x7b01,    0x7b22,    0x7b41,    0x7b62,    0x7b81,    0x7ba2,    0x7bc1,    0x7be2,
    0x7c01,    0x7c22,    0x7c41,    0x7c62,    0x7c81,    0x7ca2,    0x7cc1,    0x7ce2,
    0x7d01,    0x7d22,    0x7d41,    0x7d62,    0x7d81,    0x7da2,    0x7dc1,    0x7de2,
    0x7e81,    0x7ea2,    0x7ed3,    0x7ee1,    0x7f02,    0x7f21,    0x7f62,    0x7fa1,
    0x8602,    0x8c01,    0x8c22,    0x8c41,    0x8c62,    0x8c81,    0x8ca2,    0x8cc1,
    0x8ce2,    0x8d01,    0x8d22,    0x8d41,    0x8d62,    0x8d81,    0x8da2,    0x8dc1,
    0x8de2,    0x8e01,    0x8e22,    0x8e41,    0x8e62,    0x8e81,    0x8ea2,    0x8ec1,
    0x8ee2,    0x8f01,    0x8f22,    0x8f41,    0x8f62,    0x8f81,    0x8fa2,    0x8fc1,
    0x8fe2,    0x9001,    0x9022,    0x9056,    0x9066,    0x9108,    0x9141,    0x9162,
    0x9181,    0x91a2,    0x91c1,    0x91e2,    0x9201,    0x9222,    0x9241,    0x9262,
    0x9281,    0x92a2,    0x92c1,    0x92e2,    0x9301,    0x9322,    0x9341,    0x9362,
    0x9381,    0x93a2,    0x93c1,    0x93e2,    0x9401,    0x9422,    0x9441,    0x9462,
    0x9481,    0x94a2,    0x94c1,    0x94e2,    0x9501,    0x9522,    0x9541,    0x9562,
    0x9581,    0x95a2,    0x95c1,    0x95e2,    0x9601,    0x9622,    0x9641,    0x9662,
    0x9681,    0x96a2,    0x96c1,    0x96e2,    0x9701,    0x9722,    0x9741,    0x9762,
    0x9781,    0x97a2,    0x97c1,    0x97e2,    0x9801,    0x9842,    0x9861,    0x9882,
    0x98a1,    0x98c2,    0x98e1,    0x9902,    0x9921,    0x9942,    0x9961,    0x9982,
    0x99a1,    0x99c2,    0x9a01,    0x9a22,    0x9a41,    0x9a62,    0x9a81,    0x9aa2,
    0x9ac1,    0x9ae2,    0x9b01,    0x9b22,    0x9b41,    0x9b62,    0x9b81,    0x9ba2,
    0x9bc1,    0x9be2,    0x9c01,    0x9c22,    0x9c41,    0x9c62,    0x9c81,    0x9ca2,
    0x9cc1,    0x9ce2,    0x9d01,    0x9d22,    0x9d41,    0x9d62,    0x9d81,    0x9da2,
    0x9dc1,    0x9de2,    0x9e01,    0x9e22,    0x9e41,    0x9e62,    0x9e81,    0x9ea2,
    0x9ec1,    0x9ee2,    0x9f01,    0x9f22,    0x9f41,    0x9f62,    0x9f81,    0x9fa2,
    0x9fc1,    0x9fe2,    0xa001,    0xa022,    0xa041,    0xa062,    0xa081,    0xa0a2,
    0xa0c1,    0xa0e2,    0xa101,    0xa122,    0xa141,    0xa162,    0xa181,    0xa1a2,
    0xa1c1,    0xa1e2,    0xa201,    0xa222,    0xa241,    0xa262,    0xa281,    0xa2a2,
    0xa2c1,    0xa2e2,    0xa301,    0xa322,    0xa341,    0xa362,    0xa381,    0xa3a2,
    0xa3c1,    0xa3e2,    0xa401,    0xa422,    0xa441,    0xa462,    0xa481,    0xa4a2,
    0xa4c1,    0xa4e2,    0xa501,    0xa522,    0xa541,    0xa562,    0xa581,    0xa5a2,
    0xa5c1,    0xa5e2,    0xa600,    0xa621,    0xaae0,    0xab24,    0xab52,    0xac02,
    0xb132,    0xb14d,    0xb160,    0xb1b6,    0xb1f4,    0xb200,    0xb226,    0xb7cd,
    0xb7e6,    0xb812,    0xb826,    0xb872,    0xb886,    0xb8d2,    0xb8e6,    0xb900,
    0xba05,    0xbd60,    0xbde5,    0xbe72,    0xbea0,    0xc01b,    0xc0d3,    0xc132,
    0xc174,    0xc192,    0xc1d6,    0xc206,    0xc372,    0xc39b,    0xc3b2,    0xc405,
    0xc804,    0xc825,    0xc966,    0xcc09,    0xcd52,    0xcdc5,    0xce06,    0xce25,
    0xda92,    0xdaa5,    0xdac6,    0xdbbb,    0xdbd6,    0xdbe6,    0xdca4,    0xdce6,
    0xdd36,    0xdd46,    0xddc5,    0xde09,    0xdf45,    0xdfb6,    0xdfe5,    0xe012,
    0xe1c0,    0xe1fb,    0xe205,    0xe226,    0xe245,    0xe606,    0xe960,    0xe9a5,
    0xf4c6,    0xf625,    0xf640,    0xf809,    0xf945,    0xfd66,    0xfe84,    0xfed6,
    0xfef2,    0xff44,    0xff60,    0xffa6,    0xffd4,    0x10005,   0x102c6,   0x10344,
    0x10366,   0x10484,   0x104a6,   0x10504,   0x10526,   0x105c0,   0x10612,   0x107e0,
    0x10805,   0x10b26,   0x10b80,   0x10bd2,   0x10be0,   0x10c05,   0x10d60,   0x10e05,
    0x11115,   0x11125,   0x111e0,   0x1121b,   0x11240,   0x11306,   0x11405,   0x11924,
    0x11946,   0x11c5b,   0x11c66,   0x12067,   0x12085,   0x12746,   0x12767,   0x12786,
    0x127a5,   0x127c7,   0x12826,   0x12927,   0x129a6,   0x129c7,   0x12a05,   0x12a26,
    0x12b05,   0x12c46,   0x12c92,   0x12cc9,   0x12e12,   0x12e24,   0x12e45,   0x13026,
    0x13047,   0x13080,   0x130a5,   0x131a0,   0x131e5,   0x13220,   0x13265,   0x13520,
    0x13545,   0x13620,   0x13645,   0x13660,   0x136c5,   0x13740,   0x13786,   0x137a5,
    0x137c7,   0x13826,   0x138a0,   0x138e7,   0x13920,   0x13967,   0x139a6,   0x139c5,
    0x139e0,   0x13ae7,   0x13b00,   0x13b85,   0x13bc0,   0x13be5,   0x13c46,   0x13c80,
    0x13cc9,   0x13e05,   0x13e54,   0x13e8b,   0x13f56,   0x13f74,   0x13f85,   0x13fb2,
    0x13fc6,   0x13fe0,   0x14026,   0x14067,   0x14080,   0x140a5,   0x14160,   0x141e5,
    0x14220,   0x14265,   0x14520,   0x14545,   0x14620,   0x14645,   0x14680,   0x146a5,
    0x146e0,   0x14705,   0x14740,   0x14786,   0x147a0,   0x147c7,   0x14826,   0x14860,
    0x148e6,   0x14920,   0x14966,   0x149c0,   0x14a26,   0x14a40,   0x14b25,   0x14ba0,
    0x14bc5,   0x14be0,   0x14cc9,   0x14e06,   0x14e45,   0x14ea6,   0x14ed2,   0x14ee0,
    0x15026,   0x15067,   0x15080,   0x150a5,   0x151c0,   0x151e5,   0x15240,   0x15265,
    0x15520,   0x15545,   0x15620,   0x15645,   0x15680,   0x156a5,   0x15740,   0x15786,
    0x157a5,   0x157c7,   0x15826,   0x158c0,   0x158e6,   0x15927,   0x15940,   0x15967,
    0x159a6,   0x159c0,   0x15a05,   0x15a20,   0x15c05,   0x15c46,   0x15c80,   0x15cc9,
    0x15e12,   0x15e34,   0x15e40,   0x15f25,   0x15f46,   0x16000,   0x16026,   0x16047,
    0x16080,   0x160a5,   0x161a0,   0x161e5,   0x16220,   0x16265,   0x16520,   0x16545,
    0x16620,   0x16645,   0x16680,   0x166a5,   0x16740,   0x16786,   0x167a5,   0x167c7,
    0x167e6,   0x16807,   0x16826,   0x168a0,   0x168e7,   0x16920,   0x16967,   0x169a6,
    0x169c0,   0x16aa6,   0x16ae7,   0x16b00,   0x16b85,   0x16bc0,   0x16be5,   0x16c46,
    0x16c80,   0x16cc9,   0x16e16,   0x16e25,   0x16e4b,   0x16f00,   0x17046,   0x17065,
    0x17080,   0x170a5,   0x17160,   0x171c5,   0x17220,   0x17245,   0x172c0,   0x17325,
    0x17360,   0x17385,   0x173a0,   0x173c5,   0x17400,   0x17465,   0x174a0,   0x17505,
    0x17560,   0x175c5,   0x17740,   0x177c7,   0x17806,   0x17827,   0x17860,   0x178c7,
    0x17920,   0x17947,   0x179a6,   0x179c0,   0x17a05,   0x17a20,   0x17ae7,   0x17b00,
    0x17cc9,   0x17e0b,   0x17e76,   0x17f34,   0x17f56,   0x17f60,   0x18006,   0x18027,
    0x18086,   0x180a5,   0x181a0,   0x181c5,   0x18220,   0x18245,   0x18520,   0x18545,
    0x18740,   0x18786,   0x187a5,   0x187c6,   0x18827,   0x188a0,   0x188c6,   0x18920,
    0x18946,   0x189c0,   0x18aa6,   0x18ae0,   0x18b05,   0x18b60,   0x18ba5,   0x18bc0,
    0x18c05,   0x18c46,   0x18c80,   0x18cc9,   0x18e00,   0x18ef2,   0x18f0b,   0x18ff6,
    0x19005,   0x19026,   0x19047,   0x19092,   0x190a5,   0x191a0,   0x191c5,   0x19220,
    0x19245,   0x19520,   0x19545,   0x19680,   0x196a5,   0x19740,   0x19786,   0x197a5,
    0x197c7,   0x197e6,   0x19807,   0x198a0,   0x198c6,   0x198e7,   0x19920,   0x19947,
    0x19986,   0x199c0,   0x19aa7,   0x19ae0,   0x19ba5,   0x19be0,   0x19c05,   0x19c46,
    0x19c80,   0x19cc9,   0x19e00,   0x19e25,   0x19e60,   0x1a006,   0x1a047,   0x1a085,
    0x1a1a0,   0x1a1c5,   0x1a220,   0x1a245,   0x1a766,   0x1a7a5,   0x1a7c7,   0x1a826,
    0x1a8a0,   0x1a8c7,   0x1a920,   0x1a947,   0x1a9a6,   0x1a9c5,   0x1a9f6,   0x1aa00,
    0x1aa85,   0x1aae7,   0x1ab0b,   0x1abe5,   0x1ac46,   0x1ac80,   0x1acc9,   0x1ae0b,
    0x1af36,   0x1af45,   0x1b000,   0x1b026,   0x1b047,   0x1b080,   0x1b0a5,   0x1b2e0,
    0x1b345,   0x1b640,   0x1b665,   0x1b780,   0x1b7a5,   0x1b7c0,   0x1b805,   0x1b8e0,
    0x1b946,   0x1b960,   0x1b9e7,   0x1ba46,   0x1baa0,   0x1bac6,   0x1bae0,   0x1bb07,
    0x1bc00,   0x1bcc9,   0x1be00,   0x1be47,   0x1be92,   0x1bea0,   0x1c025,   0x1c626,
    0x1c645,   0x1c686,   0x1c760,   0x1c7f4,   0x1c805,   0x1c8c4,   0x1c8e6,   0x1c9f2,
    0x1ca09,   0x1cb52,   0x1cb80,   0x1d025,   0x1d060,   0x1d085,   0x1d0a0,   0x1d0c5,
    0x1d160,   0x1d185,   0x1d480,   0x1d4a5,   0x1d4c0,   0x1d4e5,   0x1d626,   0x1d645,
    0x1d686,   0x1d7a5,   0x1d7c0,   0x1d805,   0x1d8a0,   0x1d8c4,   0x1d8e0,   0x1d906,
    0x1d9c0,   0x1da09,   0x1db40,   0x1db85,   0x1dc00,   0x1e005,   0x1e036,   0x1e092,
    0x1e276,   0x1e292,   0x1e2b6,   0x1e306,   0x1e356,   0x1e409,   0x1e54b,   0x1e696,
    0x1e6a6,   0x1e6d6,   0x1e6e6,   0x1e716,   0x1e726,   0x1e74e,   0x1e76f,   0x1e78e,
    0x1e7af,   0x1e7c7,   0x1e805,   0x1e900,   0x1e925,   0x1eda0,   0x1ee26,   0x1efe7,
    0x1f006,   0x1f0b2,   0x1f0c6,   0x1f105,   0x1f1a6,   0x1f300,   0x1f326,   0x1f7a0,
    0x1f7d6,   0x1f8c6,   0x1f8f6,   0x1f9a0,   0x1f9d6,   0x1fa12,   0x1fab6,   0x1fb32,
    0x1fb60,   0x20005,   0x20567,   0x205a6,   0x20627,   0x20646,   0x20707,   0x20726,
    0x20767,   0x207a6,   0x207e5,   0x20809,   0x20952,   0x20a05,   0x20ac7,   0x20b06,
    0x20b45,   0x20bc6,   0x20c25,   0x20c47,   0x20ca5,   0x20ce7,   0x20dc5,   0x20e26,
    0x20ea5,   0x21046,   0x21067,   0x210a6,   0x210e7,   0x211a6,   0x211c5,   0x211e7,
    0x21209,   0x21347,   0x213a6,   0x213d6,   0x21401,   0x218c0,   0x218e1,   0x21900,
    0x219a1,   0x219c0,   0x21a02,   0x21f72,   0x21f84,   0x21fa2,   0x22005,   0x24920,
    0x24945,   0x249c0,   0x24a05,   0x24ae0,   0x24b05,   0x24b20,   0x24b45,   0x24bc0,
    0x24c05,   0x25120,   0x25145,   0x251c0,   0x25205,   0x25620,   0x25645,   0x256c0,
    0x25705,   0x257e0,   0x25805,   0x25820,   0x25845,   0x258c0,   0x25905,   0x25ae0,
    0x25b05,   0x26220,   0x26245,   0x262c0,   0x26305,   0x26b60,   0x26ba6,   0x26c12,
    0x26d2b,   0x26fa0,   0x27005,   0x27216,   0x27340,   0x27401,   0x27ec0,   0x27f02,
    0x27fc0,   0x2800d,   0x28025,   0x2cdb6,   0x2cdd2,   0x2cde5,   0x2d017,   0x2d025,
    0x2d36e,   0x2d38f,   0x2d3a0,   0x2d405,   0x2dd72,   0x2ddca,   0x2de25,   0x2df20,
    0x2e005,   0x2e246,   0x2e2a7,   0x2e2c0,   0x2e3e5,   0x2e646,   0x2e687,   0x2e6b2,
    0x2e6e0,   0x2e805,   0x2ea46,   0x2ea80,   0x2ec05,   0x2eda0,   0x2edc5,   0x2ee20,
    0x2ee46,   0x2ee80,   0x2f005,   0x2f686,   0x2f6c7,   0x2f6e6,   0x2f7c7,   0x2f8c6,
    0x2f8e7,   0x2f926,   0x2fa92,   0x2fae4,   0x2fb12,   0x2fb74,   0x2fb85,   0x2fba6,
    0x2fbc0,   0x2fc09,   0x2fd40,   0x2fe0b,   0x2ff40,   0x30012,   0x300cd,   0x300f2,
    0x30166,   0x301db,   0x301e6,   0x30209,   0x30340,   0x30405,   0x30864,   0x30885,
    0x30f20,   0x31005,   0x310a6,   0x310e5,   0x31526,   0x31545,   0x31560,   0x31605,
    0x31ec0,   0x32005,   0x323e0,   0x32406,   0x32467,   0x324e6,   0x32527,   0x32580,
    0x32607,   0x32646,   0x32667,   0x32726,   0x32780,   0x32816,   0x32820,   0x32892,
    0x328c9,   0x32a05,   0x32dc0,   0x32e05,   0x32ea0,   0x33005,   0x33580,   0x33605,
    0x33940,   0x33a09,   0x33b4b,   0x33b60,   0x33bd6,   0x34005,   0x342e6,   0x34327,
    0x34366,   0x34380,   0x343d2,   0x34405,   0x34aa7,   0x34ac6,   0x34ae7,   0x34b06,
    0x34be0,   0x34c06,   0x34c27,   0x34c46,   0x34c67,   0x34ca6,   0x34da7,   0x34e66,
    0x34fa0,   0x34fe6,   0x35009,   0x35140,   0x35209,   0x35340,   0x35412,   0x354e4,
    0x35512,   0x355c0,   0x35606,   0x357c8,   0x357e6,   0x359e0,   0x36006,   0x36087,
    0x360a5,   0x36686,   0x366a7,   0x366c6,   0x36767,   0x36786,   0x367a7,   0x36846,
    0x36867,   0x368a5,   0x369a0,   0x36a09,   0x36b52,   0x36c36,   0x36d66,   0x36e96,
    0x36fb2,   0x36fe0,   0x37006,   0x37047,   0x37065,   0x37427,   0x37446,   0x374c7,
    0x37506,   0x37547,   0x37566,   0x375c5,   0x37609,   0x37745,   0x37cc6,   0x37ce7,
    0x37d06,   0x37d47,   0x37da6,   0x37dc7,   0x37de6,   0x37e47,   0x37e80,   0x37f92,
    0x38005,   0x38487,   0x38586,   0x38687,   0x386c6,   0x38700,   0x38772,   0x38809,
    0x38940,   0x389a5,   0x38a09,   0x38b45,   0x38f04,   0x38fd2,   0x39002,   0x39120,
    0x39201,   0x39760,   0x397a1,   0x39812,   0x39900,   0x39a06,   0x39a72,   0x39a86,
    0x39c27,   0x39c46,   0x39d25,   0x39da6,   0x39dc5,   0x39e86,   0x39ea5,   0x39ee7,
    0x39f06,   0x39f45,   0x39f60,   0x3a002,   0x3a584,   0x3ad62,   0x3af04,   0x3af22,
    0x3b364,   0x3b806,   0x3c001,   0x3c022,   0x3c041,   0x3c062,   0x3c081,   0x3c0a2,
    0x3c0c1,   0x3c0e2,   0x3c101,   0x3c122,   0x3c141,   0x3c162,   0x3c181,   0x3c1a2,
    0x3c1c1,   0x3c1e2,   0x3c201,   0x3c222,   0x3c241,   0x3c262,   0x3c281,   0x3c2a2,
    0x3c2c1,   0x3c2e2,   0x3c301,   0x3c322,   0x3c341,   0x3c362,   0x3c381,   0x3c3a2,
    0x3c3c1,   0x3c3e2,   0x3c401,   0x3c422,   0x3c441,   0x3c462,   0x3c481,   0x3c4a2,
    0x3c4c1,   0x3c4e2,   0x3c501,   0x3c522,   0x3c541,   0x3c562,   0x3c581,   0x3c5a2,
    0x3c5c1,   0x3c5e2,   0x3c601,   0x3c622,   0x3c641,   0x3c662,   0x3c681,   0x3c6a2,
    0x3c6c1,   0x3c6e2,   0x3c701,   0x3c722,   0x3c741,   0x3c762,   0x3c781,   0x3c7a2,
    0x3c7c1,   0x3c7e2,   0x3c801,   0x3c822,   0x3c841,   0x3c862,   0x3c881,   0x3c8a2,
    0x3c8c1,   0x3c8e2,   0x3c901,   0x3c922,   0x3c941,   0x3c962,   0x3c981,   0x3c9a2,
    0x3c9c1,   0x3c9e2,   0x3ca01,   0x3ca22,   0x3ca41,   0x3ca62,   0x3ca81,   0x3caa2,
    0x3cac1,   0x3cae2,   0x3cb01,   0x3cb22,   0x3cb41,   0x3cb62,   0x3cb81,   0x3cba2,
    0x3cbc1,   0x3cbe2,   0x3cc01,   0x3cc22,   0x3cc41,   0x3cc62,   0x3cc81,   0x3cca2,
    0x3ccc1,   0x3cce2,   0x3cd01,   0x3cd22,   0x3cd41,   0x3cd62,   0x3cd81,   0x3cda2,
    0x3cdc1,   0x3cde2,   0x3ce01,   0x3ce22,   0x3ce41,   0x3ce62,   0x3ce81,   0x3cea2,
    0x3cec1,   0x3cee2,   0x3cf01,   0x3cf22,   0x3cf41,   0x3cf62,   0x3cf81,   0x3cfa2,
    0x3cfc1,   0x3cfe2,   0x3d001,   0x3d022,   0x3d041,   0x3d062,   0x3d081,   0x3d0a2,
    0x3d0c1,   0x3d0e2,   0x3d101,   0x3d122,   0x3d141,   0x3d162,   0x3d181,   0x3d1a2,
    0x3d1c1,   0x3d1e2,   0x3d201,   0x3d222,   0x3d241,   0x3d262,   0x3d281,   0x3d2a2,
    0x3d3c1,   0x3d3e2,   0x3d401,   0x3d422,   0x3d441,   0x3d462,   0x3d481,   0x3d4a2,
    0x3d4c1,   0x3d4e2,   0x3d501,   0x3d522,   0x3d541,   0x3d562,   0x3d581,   0x3d5a2,
    0x3d5c1,   0x3d5e2,   0x3d601,   0x3d622,   0x3d641,   0x3d662,   0x3d681,   0x3d6a2,
    0x3d6c1,   0x3d6e2,   0x3d701,   0x3d722,   0x3d741,   0x3d762,   0x3d781,   0x3d7a2,
    0x3d7c1,   0x3d7e2,   0x3d801,   0x3d822,   0x3d841,   0x3d862,   0x3d881,   0x3d8a2,
    0x3d8c1,   0x3d8e2,   0x3d901,   0x3d922,   0x3d941,   0x3d962,   0x3d981,   0x3d9a2,
    0x3d9c1,   0x3d9e2,   0x3da01,   0x3da22,   0x3da41,   0x3da62,   0x3da81,   0x3daa2,
    0x3dac1,   0x3dae2,   0x3db01,   0x3db22,   0x3db41,   0x3db62,   0x3db81,   0x3dba2,
    0x3dbc1,   0x3dbe2,   0x3dc01,   0x3dc22,   0x3dc41,   0x3dc62,   0x3dc81,   0x3dca2,
    0x3dcc1,   0x3dce2,   0x3dd01,   0x3dd22,   0x3dd41,   0x3dd62,   0x3dd81,   0x3dda2,
    0x3ddc1,   0x3dde2,   0x3de01,   0x3de22,   0x3de41,   0x3de62,   0x3de81,   0x3dea2,
    0x3dec1,   0x3dee2,   0x3df01,   0x3df22,   0x3df41,   0x3df62,   0x3df81,   0x3dfa2,
    0x3dfc1,   0x3dfe2,   0x3e101,   0x3e202,   0x3e2c0,   0x3e301,   0x3e3c0,   0x3e402,
    0x3e501,   0x3e602,   0x3e701,   0x3e802,   0x3e8c0,   0x3e901,   0x3e9c0,   0x3ea02,
    0x3eb00,   0x3eb21,   0x3eb40,   0x3eb61,   0x3eb80,   0x3eba1,   0x3ebc0,   0x3ebe1,
    0x3ec02,   0x3ed01,   0x3ee02,   0x3efc0,   0x3f002,   0x3f103,   0x3f202,   0x3f303,
    0x3f402,   0x3f503,   0x3f602,   0x3f6a0,   0x3f6c2,   0x3f701,   0x3f783,   0x3f7b5,
    0x3f7c2,   0x3f7f5,   0x3f842,   0x3f8a0,   0x3f8c2,   0x3f901,   0x3f983,   0x3f9b5,
    0x3fa02,   0x3fa80,   0x3fac2,   0x3fb01,   0x3fb80,   0x3fbb5,   0x3fc02,   0x3fd01,
    0x3fdb5,   0x3fe00,   0x3fe42,   0x3fea0,   0x3fec2,   0x3ff01,   0x3ff83,   0x3ffb5,
    0x3ffe0,   0x40017,   0x4017b,   0x4020d,   0x402d2,   0x40310,   0x40331,   0x4034e,
    0x40370,   0x403b1,   0x403ce,   0x403f0,   0x40412,   0x40518,   0x40539,   0x4055b,
    0x405f7,   0x40612,   0x40730,   0x40751,   0x40772,   0x407ec,   0x40832,   0x40893,
    0x408ae,   0x408cf,   0x408f2,   0x40a53,   0x40a72,   0x40a8c,   0x40ab2,   0x40bf7,
    0x40c1b,   0x40ca0,   0x40cdb,   0x40e0b,   0x40e24,   0x40e40,   0x40e8b,   0x40f53,
    0x40fae,   0x40fcf,   0x40fe4,   0x4100b,   0x41153,   0x411ae,   0x411cf,   0x411e0,
    0x41204,   0x413a0,   0x41414,   0x41820,   0x41a06,   0x41ba8,   0x41c26,   0x41c48,
    0x41ca6,   0x41e20,   0x42016,   0x42041,   0x42076,   0x420e1,   0x42116,   0x42142,
    0x42161,   0x421c2,   0x42201,   0x42262,   0x42296,   0x422a1,   0x422d6,   0x42313,
    0x42321,   0x423d6,   0x42481,   0x424b6,   0x424c1,   0x424f6,   0x42501,   0x42536,
    0x42541,   0x425d6,   0x425e2,   0x42601,   0x42682,   0x426a5,   0x42722,   0x42756,
    0x42782,   0x427c1,   0x42813,   0x428a1,   0x428c2,   0x42956,   0x42973,   0x42996,
    0x429c2,   0x429f6,   0x42a0b,   0x42c0a,   0x43061,   0x43082,   0x430aa,   0x4312b,
    0x43156,   0x43180,   0x43213,   0x432b6,   0x43353,   0x43396,   0x43413,   0x43436,
    0x43473,   0x43496,   0x434d3,   0x434f6,   0x435d3,   0x435f6,   0x439d3,   0x43a16,
    0x43a53,   0x43a76,   0x43a93,   0x43ab6,   0x43e93,   0x46016,   0x4610e,   0x4612f,
    0x4614e,   0x4616f,   0x46196,   0x46413,   0x46456,   0x4652e,   0x4654f,   0x46576,
    0x46f93,   0x46fb6,   0x47373,   0x47696,   0x47b93,   0x47c56,   0x484e0,   0x48816,
    0x48960,   0x48c0b,   0x49396,   0x49d4b,   0x4a016,   0x4b6f3,   0x4b716,   0x4b833,
    0x4b856,   0x4bf13,   0x4c016,   0x4cdf3,   0x4ce16,   0x4ed0e,   0x4ed2f,   0x4ed4e,
    0x4ed6f,   0x4ed8e,   0x4edaf,   0x4edce,   0x4edef,   0x4ee0e,   0x4ee2f,   0x4ee4e,
    0x4ee6f,   0x4ee8e,   0x4eeaf,   0x4eecb,   0x4f296,   0x4f813,   0x4f8ae,   0x4f8cf,
    0x4f8f3,   0x4fcce,   0x4fcef,   0x4fd0e,   0x4fd2f,   0x4fd4e,   0x4fd6f,   0x4fd8e,
    0x4fdaf,   0x4fdce,   0x4fdef,   0x4fe13,   0x50016,   0x52013,   0x5306e,   0x5308f,
    0x530ae,   0x530cf,   0x530ee,   0x5310f,   0x5312e,   0x5314f,   0x5316e,   0x5318f,
    0x531ae,   0x531cf,   0x531ee,   0x5320f,   0x5322e,   0x5324f,   0x5326e,   0x5328f,
    0x532ae,   0x532cf,   0x532ee,   0x5330f,   0x53333,   0x53b0e,   0x53b2f,   0x53b4e,
    0x53b6f,   0x53b93,   0x53f8e,   0x53faf,   0x53fd3,   0x56016,   0x56613,   0x568b6,
    0x568f3,   0x569b6,   0x56e80,   0x56ed6,   0x572c0,   0x572f6,   0x58001,   0x58602,
    0x58c01,   0x58c22,   0x58c41,   0x58ca2,   0x58ce1,   0x58d02,   0x58d21,   0x58d42,
    0x58d61,   0x58d82,   0x58da1,   0x58e22,   0x58e41,   0x58e62,   0x58ea1,   0x58ec2,
    0x58f84,   0x58fc1,   0x59022,   0x59041,   0x59062,   0x59081,   0x590a2,   0x590c1,
    0x590e2,   0x59101,   0x59122,   0x59141,   0x59162,   0x59181,   0x591a2,   0x591c1,
    0x591e2,   0x59201,   0x59222,   0x59241,   0x59262,   0x59281,   0x592a2,   0x592c1,
    0x592e2,   0x59301,   0x59322,   0x59341,   0x59362,   0x59381,   0x593a2,   0x593c1,
    0x593e2,   0x59401,   0x59422,   0x59441,   0x59462,   0x59481,   0x594a2,   0x594c1,
    0x594e2,   0x59501,   0x59522,   0x59541,   0x59562,   0x59581,   0x595a2,   0x595c1,
    0x595e2,   0x59601,   0x59622,   0x59641,   0x59662,   0x59681,   0x596a2,   0x596c1,
    0x596e2,   0x59701,   0x59722,   0x59741,   0x59762,   0x59781,   0x597a2,   0x597c1,
    0x597e2,   0x59801,   0x59822,   0x59841,   0x59862,   0x59881,   0x598a2,   0x598c1,
    0x598e2,   0x59901,   0x59922,   0x59941,   0x59962,   0x59981,   0x599a2,   0x599c1,
    0x599e2,   0x59a01,   0x59a22,   0x59a41,   0x59a62,   0x59a81,   0x59aa2,   0x59ac1,
    0x59ae2,   0x59b01,   0x59b22,   0x59b41,   0x59b62,   0x59b81,   0x59ba2,   0x59bc1,
    0x59be2,   0x59c01,   0x59c22,   0x59c41,   0x59c62,   0x59cb6,   0x59d61,   0x59d82,
    0x59da1,   0x59dc2,   0x59de6,   0x59e41,   0x59e62,   0x59e80,   0x59f32,   0x59fab,
    0x59fd2,   0x5a002,   0x5a4c0,   0x5a4e2,   0x5a500,   0x5a5a2,   0x5a5c0,   0x5a605,
    0x5ad00,   0x5ade4,   0x5ae12,   0x5ae20,   0x5afe6,   0x5b005,   0x5b2e0,   0x5b405,
    0x5b4e0,   0x5b505,   0x5b5e0,   0x5b605,   0x5b6e0,   0x5b705,   0x5b7e0,   0x5b805,
    0x5b8e0,   0x5b905,   0x5b9e0,   0x5ba05,   0x5bae0,   0x5bb05,   0x5bbe0,   0x5bc06,
    0x5c012,   0x5c050,   0x5c071,   0x5c090,   0x5c0b1,   0x5c0d2,   0x5c130,   0x5c151,
    0x5c172,   0x5c190,   0x5c1b1,   0x5c1d2,   0x5c2ed,   0x5c312,   0x5c34d,   0x5c372,
    0x5c390,   0x5c3b1,   0x5c3d2,   0x5c410,   0x5c431,   0x5c44e,   0x5c46f,   0x5c48e,
    0x5c4af,   0x5c4ce,   0x5c4ef,   0x5c50e,   0x5c52f,   0x5c552,   0x5c5e4,   0x5c612,
    0x5c74d,   0x5c792,   0x5c80d,   0x5c832,   0x5c84e,   0x5c872,   0x5ca16,   0x5ca52,
    0x5caae,   0x5cacf,   0x5caee,   0x5cb0f,   0x5cb2e,   0x5cb4f,   0x5cb6e,   0x5cb8f,
    0x5cbad,   0x5cbc0,   0x5d016,   0x5d340,   0x5d376,   0x5de80,   0x5e016,   0x5fac0,
    0x5fe16,   0x5ff80,   0x60017,   0x60032,   0x60096,   0x600a4,   0x600c5,   0x600ea,
    0x6010e,   0x6012f,   0x6014e,   0x6016f,   0x6018e,   0x601af,   0x601ce,   0x601ef,
    0x6020e,   0x6022f,   0x60256,   0x6028e,   0x602af,   0x602ce,   0x602ef,   0x6030e,
    0x6032f,   0x6034e,   0x6036f,   0x6038d,   0x603ae,   0x603cf,   0x60416,   0x6042a,
    0x60546,   0x605c7,   0x6060d,   0x60624,   0x606d6,   0x6070a,   0x60764,   0x60785,
    0x607b2,   0x607d6,   0x60800,   0x60825,   0x612e0,   0x61326,   0x61375,   0x613a4,
    0x613e5,   0x6140d,   0x61425,   0x61f72,   0x61f84,   0x61fe5,   0x62000,   0x620a5,
    0x62600,   0x62625,   0x631e0,   0x63216,   0x6324b,   0x632d6,   0x63405,   0x63816,
    0x63c80,   0x63e05,   0x64016,   0x643e0,   0x6440b,   0x64556,   0x6490b,   0x64a16,
    0x64a2b,   0x64c16,   0x6500b,   0x65156,   0x6562b,   0x65816,   0x68005,   0x9b816,
    0x9c005,   0x1402a4,  0x1402c5,  0x1491a0,  0x149216,  0x1498e0,  0x149a05,  0x149f04,
    0x149fd2,  0x14a005,  0x14c184,  0x14c1b2,  0x14c205,  0x14c409,  0x14c545,  0x14c580,
    0x14c801,  0x14c822,  0x14c841,  0x14c862,  0x14c881,  0x14c8a2,  0x14c8c1,  0x14c8e2,
    0x14c901,  0x14c922,  0x14c941,  0x14c962,  0x14c981,  0x14c9a2,  0x14c9c1,  0x14c9e2,
    0x14ca01,  0x14ca22,  0x14ca41,  0x14ca62,  0x14ca81,  0x14caa2,  0x14cac1,  0x14cae2,
    0x14cb01,  0x14cb22,  0x14cb41,  0x14cb62,  0x14cb81,  0x14cba2,  0x14cbc1,  0x14cbe2,
    0x14cc01,  0x14cc22,  0x14cc41,  0x14cc62,  0x14cc81,  0x14cca2,  0x14ccc1,  0x14cce2,
    0x14cd01,  0x14cd22,  0x14cd41,  0x14cd62,  0x14cd81,  0x14cda2,  0x14cdc5,  0x14cde6,
    0x14ce08,  0x14ce72,  0x14ce86,  0x14cfd2,  0x14cfe4,  0x14d001,  0x14d022,  0x14d041,
    0x14d062,  0x14d081,  0x14d0a2,  0x14d0c1,  0x14d0e2,  0x14d101,  0x14d122,  0x14d141,
    0x14d162,  0x14d181,  0x14d1a2,  0x14d1c1,  0x14d1e2,  0x14d201,  0x14d222,  0x14d241,
    0x14d262,  0x14d281,  0x14d2a2,  0x14d2c1,  0x14d2e2,  0x14d301,  0x14d322,  0x14d341,
    0x14d362,  0x14d384,  0x14d3c6,  0x14d405,  0x14dcca,  0x14de06,  0x14de52,  0x14df00,
    0x14e015,  0x14e2e4,  0x14e415,  0x14e441,  0x14e462,  0x14e481,  0x14e4a2,  0x14e4c1,
    0x14e4e2,  0x14e501,  0x14e522,  0x14e541,  0x14e562,  0x14e581,  0x14e5a2,  0x14e5c1,
    0x14e5e2,  0x14e641,  0x14e662,  0x14e681,  0x14e6a2,  0x14e6c1,  0x14e6e2,  0x14e701,
    0x14e722,  0x14e741,  0x14e762,  0x14e781,  0x14e7a2,  0x14e7c1,  0x14e7e2,  0x14e801,
    0x14e822,  0x14e841,  0x14e862,  0x14e881,  0x14e8a2,  0x14e8c1,  0x14e8e2,  0x14e901,
    0x14e922,  0x14e941,  0x14e962,  0x14e981,  0x14e9a2,  0x14e9c1,  0x14e9e2,  0x14ea01,
    0x14ea22,  0x14ea41,  0x14ea62,  0x14ea81,  0x14eaa2,  0x14eac1,  0x14eae2,  0x14eb01,
    0x14eb22,  0x14eb41,  0x14eb62,  0x14eb81,  0x14eba2,  0x14ebc1,  0x14ebe2,  0x14ec01,
    0x14ec22,  0x14ec41,  0x14ec62,  0x14ec81,  0x14eca2,  0x14ecc1,  0x14ece2,  0x14ed01,
    0x14ed22,  0x14ed41,  0x14ed62,  0x14ed81,  0x14eda2,  0x14edc1,  0x14ede2,  0x14ee04,
    0x14ee22,  0x14ef21,  0x14ef42,  0x14ef61,  0x14ef82,  0x14efa1,  0x14efe2,  0x14f001,
    0x14f022,  0x14f041,  0x14f062,  0x14f081,  0x14f0a2,  0x14f0c1,  0x14f0e2,  0x14f104,
    0x14f135,  0x14f161,  0x14f182,  0x14f1a1,  0x14f1c2,  0x14f1e5,  0x14f201,  0x14f222,
    0x14f241,  0x14f262,  0x14f2c1,  0x14f2e2,  0x14f301,  0x14f322,  0x14f341,  0x14f362,
    0x14f381,  0x14f3a2,  0x14f3c1,  0x14f3e2,  0x14f401,  0x14f422,  0x14f441,  0x14f462,
    0x14f481,  0x14f4a2,  0x14f4c1,  0x14f4e2,  0x14f501,  0x14f522,  0x14f541,  0x14f5e2,
    0x14f601,  0x14f6a2,  0x14f6c1,  0x14f6e2,  0x14f701,  0x14f722,  0x14f741,  0x14f762,
    0x14f781,  0x14f7a2,  0x14f7c1,  0x14f7e2,  0x14f801,  0x14f822,  0x14f841,  0x14f862,
    0x14f881,  0x14f902,  0x14f921,  0x14f942,  0x14f960,  0x14fa01,  0x14fa22,  0x14fa40,
    0x14fa62,  0x14fa80,  0x14faa2,  0x14fac1,  0x14fae2,  0x14fb01,  0x14fb22,  0x14fb40,
    0x14fe44,  0x14fea1,  0x14fec2,  0x14fee5,  0x14ff04,  0x14ff42,  0x14ff65,  0x150046,
    0x150065,  0x1500c6,  0x1500e5,  0x150166,  0x150185,  0x150467,  0x1504a6,  0x1504e7,
    0x150516,  0x150586,  0x1505a0,  0x15060b,  0x1506d6,  0x150714,  0x150736,  0x150740,
    0x150805,  0x150e92,  0x150f00,  0x151007,  0x151045,  0x151687,  0x151886,  0x1518c0,
    0x1519d2,  0x151a09,  0x151b40,  0x151c06,  0x151e45,  0x151f12,  0x151f65,  0x151f92,
    0x151fa5,  0x151fe6,  0x152009,  0x152145,  0x1524c6,  0x1525d2,  0x152605,  0x1528e6,
    0x152a47,  0x152a80,  0x152bf2,  0x152c05,  0x152fa0,  0x153006,  0x153067,  0x153085,
    0x153666,  0x153687,  0x1536c6,  0x153747,  0x153786,  0x1537c7,  0x153832,  0x1539c0,
    0x1539e4,  0x153a09,  0x153b40,  0x153bd2,  0x153c05,  0x153ca6,  0x153cc4,  0x153ce5,
    0x153e09,  0x153f45,  0x153fe0,  0x154005,  0x154526,  0x1545e7,  0x154626,  0x154667,
    0x1546a6,  0x1546e0,  0x154805,  0x154866,  0x154885,  0x154986,  0x1549a7,  0x1549c0,
    0x154a09,  0x154b40,  0x154b92,  0x154c05,  0x154e04,  0x154e25,  0x154ef6,  0x154f45,
    0x154f67,  0x154f86,  0x154fa7,  0x154fc5,  0x155606,  0x155625,  0x155646,  0x1556a5,
    0x1556e6,  0x155725,  0x1557c6,  0x155805,  0x155826,  0x155845,  0x155860,  0x155b65,
    0x155ba4,  0x155bd2,  0x155c05,  0x155d67,  0x155d86,  0x155dc7,  0x155e12,  0x155e45,
    0x155e64,  0x155ea7,  0x155ec6,  0x155ee0,  0x156025,  0x1560e0,  0x156125,  0x1561e0,
    0x156225,  0x1562e0,  0x156405,  0x1564e0,  0x156505,  0x1565e0,  0x156602,  0x156b75,
    0x156b84,  0x156c02,  0x156d24,  0x156d55,  0x156d80,  0x156e02,  0x157805,  0x157c67,
    0x157ca6,  0x157cc7,  0x157d06,  0x157d27,  0x157d72,  0x157d87,  0x157da6,  0x157dc0,
    0x157e09,  0x157f40,  0x158005,  0x1af480,  0x1af605,  0x1af8e0,  0x1af965,  0x1aff80,
    0x1b001c,  0x1c001d,  0x1f2005,  0x1f4dc0,  0x1f4e05,  0x1f5b40,  0x1f6002,  0x1f60e0,
    0x1f6262,  0x1f6300,  0x1f63a5,  0x1f63c6,  0x1f63e5,  0x1f6533,  0x1f6545,  0x1f66e0,
    0x1f6705,  0x1f67a0,  0x1f67c5,  0x1f67e0,  0x1f6805,  0x1f6840,  0x1f6865,  0x1f68a0,
    0x1f68c5,  0x1f7655,  0x1f7860,  0x1f7a65,  0x1fa7cf,  0x1fa7ee,  0x1fa816,  0x1faa05,
    0x1fb200,  0x1fb245,  0x1fb900,  0x1fb9f6,  0x1fba00,  0x1fbe05,  0x1fbf94,  0x1fbfb6,
    0x1fc006,  0x1fc212,  0x1fc2ee,  0x1fc30f,  0x1fc332,  0x1fc340,  0x1fc406,  0x1fc612,
    0x1fc62d,  0x1fc66c,  0x1fc6ae,  0x1fc6cf,  0x1fc6ee,  0x1fc70f,  0x1fc72e,  0x1fc74f,
    0x1fc76e,  0x1fc78f,  0x1fc7ae,  0x1fc7cf,  0x1fc7ee,  0x1fc80f,  0x1fc82e,  0x1fc84f,
    0x1fc86e,  0x1fc88f,  0x1fc8b2,  0x1fc8ee,  0x1fc90f,  0x1fc932,  0x1fc9ac,  0x1fca12,
    0x1fca60,  0x1fca92,  0x1fcb0d,  0x1fcb2e,  0x1fcb4f,  0x1fcb6e,  0x1fcb8f,  0x1fcbae,
    0x1fcbcf,  0x1fcbf2,  0x1fcc53,  0x1fcc6d,  0x1fcc93,  0x1fcce0,  0x1fcd12,  0x1fcd34,
    0x1fcd52,  0x1fcd80,  0x1fce05,  0x1fcea0,  0x1fcec5,  0x1fdfa0,  0x1fdffb,  0x1fe000,
    0x1fe032,  0x1fe094,  0x1fe0b2,  0x1fe10e,  0x1fe12f,  0x1fe152,  0x1fe173,  0x1fe192,
    0x1fe1ad,  0x1fe1d2,  0x1fe209,  0x1fe352,  0x1fe393,  0x1fe3f2,  0x1fe421,  0x1fe76e,
    0x1fe792,  0x1fe7af,  0x1fe7d5,  0x1fe7ec,  0x1fe815,  0x1fe822,  0x1feb6e,  0x1feb93,
    0x1febaf,  0x1febd3,  0x1febee,  0x1fec0f,  0x1fec32,  0x1fec4e,  0x1fec6f,  0x1fec92,
    0x1fecc5,  0x1fee04,  0x1fee25,  0x1ff3c4,  0x1ff405,  0x1ff7e0,  0x1ff845,  0x1ff900,
    0x1ff945,  0x1ffa00,  0x1ffa45,  0x1ffb00,  0x1ffb45,  0x1ffba0,  0x1ffc14,  0x1ffc53,
    0x1ffc75,  0x1ffc96,  0x1ffcb4,  0x1ffce0,  0x1ffd16,  0x1ffd33,  0x1ffdb6,  0x1ffde0,
    0x1fff3b,  0x1fff96,  0x1fffc0,  0x200005,  0x200180,  0x2001a5,  0x2004e0,  0x200505,
    0x200760,  0x200785,  0x2007c0,  0x2007e5,  0x2009c0,  0x200a05,  0x200bc0,  0x201005,
    0x201f60,  0x202012,  0x202060,  0x2020eb,  0x202680,  0x2026f6,  0x20280a,  0x202eab,
    0x202f36,  0x20314b,  0x203196,  0x2031e0,  0x203216,  0x2033a0,  0x203416,  0x203420,
    0x203a16,  0x203fa6,  0x203fc0,  0x205005,  0x2053a0,  0x205405,  0x205a20,  0x205c06,
    0x205c2b,  0x205f80,  0x206005,  0x20640b,  0x206480,  0x2065a5,  0x20682a,  0x206845,
    0x20694a,  0x206960,  0x206a05,  0x206ec6,  0x206f60,  0x207005,  0x2073c0,  0x2073f2,
    0x207405,  0x207880,  0x207905,  0x207a12,  0x207a2a,  0x207ac0,  0x208001,  0x208502,
    0x208a05,  0x2093c0,  0x209409,  0x209540,  0x209601,  0x209a80,  0x209b02,  0x209f80,
    0x20a005,  0x20a500,  0x20a605,  0x20ac80,  0x20adf2,  0x20ae01,  0x20af60,  0x20af81,
    0x20b160,  0x20b181,  0x20b260,  0x20b281,  0x20b2c0,  0x20b2e2,  0x20b440,  0x20b462,
    0x20b640,  0x20b662,  0x20b740,  0x20b762,  0x20b7a0,  0x20c005,  0x20e6e0,  0x20e805,
    0x20eac0,  0x20ec05,  0x20ed00,  0x20f004,  0x20f0c0,  0x20f0e4,  0x20f620,  0x20f644,
    0x20f760,  0x210005,  0x2100c0,  0x210105,  0x210120,  0x210145,  0x2106c0,  0x2106e5,
    0x210720,  0x210785,  0x2107a0,  0x2107e5,  0x210ac0,  0x210af2,  0x210b0b,  0x210c05,
    0x210ef6,  0x210f2b,  0x211005,  0x2113e0,  0x2114eb,  0x211600,  0x211c05,  0x211e60,
    0x211e85,  0x211ec0,  0x211f6b,  0x212005,  0x2122cb,  0x212380,  0x2123f2,  0x212405,
    0x212740,  0x2127f2,  0x212800,  0x213005,  0x213700,  0x21378b,  0x2137c5,  0x21380b,
    0x213a00,  0x213a4b,  0x214005,  0x214026,  0x214080,  0x2140a6,  0x2140e0,  0x214186,
    0x214205,  0x214280,  0x2142a5,  0x214300,  0x214325,  0x2146c0,  0x214706,  0x214760,
    0x2147e6,  0x21480b,  0x214920,  0x214a12,  0x214b20,  0x214c05,  0x214fab,  0x214ff2,
    0x215005,  0x2153ab,  0x215400,  0x215805,  0x215916,  0x215925,  0x215ca6,  0x215ce0,
    0x215d6b,  0x215e12,  0x215ee0,  0x216005,  0x2166c0,  0x216732,  0x216805,  0x216ac0,
    0x216b0b,  0x216c05,  0x216e60,  0x216f0b,  0x217005,  0x217240,  0x217332,  0x2173a0,
    0x21752b,  0x217600,  0x218005,  0x218920,  0x219001,  0x219660,  0x219802,  0x219e60,
    0x219f4b,  0x21a005,  0x21a486,  0x21a500,  0x21a609,  0x21a740,  0x21cc0b,  0x21cfe0,
    0x21d005,  0x21d540,  0x21d566,  0x21d5ad,  0x21d5c0,  0x21d605,  0x21d640,  0x21e005,
    0x21e3ab,  0x21e4e5,  0x21e500,  0x21e605,  0x21e8c6,  0x21ea2b,  0x21eab2,  0x21eb40,
    0x21ee05,  0x21f046,  0x21f0d2,  0x21f140,  0x21f605,  0x21f8ab,  0x21f980,  0x21fc05,
    0x21fee0,  0x220007,  0x220026,  0x220047,  0x220065,  0x220706,  0x2208f2,  0x2209c0,
    0x220a4b,  0x220cc9,  0x220e06,  0x220e25,  0x220e66,  0x220ea5,  0x220ec0,  0x220fe6,
    0x221047,  0x221065,  0x221607,  0x221666,  0x2216e7,  0x221726,  0x221772,  0x2217bb,
    0x2217d2,  0x221846,  0x221860,  0x2219bb,  0x2219c0,  0x221a05,  0x221d20,  0x221e09,
    0x221f40,  0x222006,  0x222065,  0x2224e6,  0x222587,  0x2225a6,  0x2226a0,  0x2226c9,
    0x222812,  0x222885,  0x2228a7,  0x2228e5,  0x222900,  0x222a05,  0x222e66,  0x222e92,
    0x222ec5,  0x222ee0,  0x223006,  0x223047,  0x223065,  0x223667,  0x2236c6,  0x2237e7,
    0x223825,  0x2238b2,  0x223926,  0x2239b2,  0x2239c7,  0x2239e6,  0x223a09,  0x223b45,
    0x223b72,  0x223b85,  0x223bb2,  0x223c00,  0x223c2b,  0x223ea0,  0x224005,  0x224240,
    0x224265,  0x224587,  0x2245e6,  0x224647,  0x224686,  0x2246a7,  0x2246c6,  0x224712,
    0x2247c6,  0x2247e0,  0x225005,  0x2250e0,  0x225105,  0x225120,  0x225145,  0x2251c0,
    0x2251e5,  0x2253c0,  0x2253e5,  0x225532,  0x225540,  0x225605,  0x225be6,  0x225c07,
    0x225c66,  0x225d60,  0x225e09,  0x225f40,  0x226006,  0x226047,  0x226080,  0x2260a5,
    0x2261a0,  0x2261e5,  0x226220,  0x226265,  0x226520,  0x226545,  0x226620,  0x226645,
    0x226680,  0x2266a5,  0x226740,  0x226766,  0x2267a5,  0x2267c7,  0x226806,  0x226827,
    0x2268a0,  0x2268e7,  0x226920,  0x226967,  0x2269c0,  0x226a05,  0x226a20,  0x226ae7,
    0x226b00,  0x226ba5,  0x226c47,  0x226c80,  0x226cc6,  0x226da0,  0x226e06,  0x226ea0,
    0x228005,  0x2286a7,  0x228706,  0x228807,  0x228846,  0x2288a7,  0x2288c6,  0x2288e5,
    0x228972,  0x228a09,  0x228b52,  0x228b80,  0x228bb2,  0x228bc6,  0x228be5,  0x228c40,
    0x229005,  0x229607,  0x229666,  0x229727,  0x229746,  0x229767,  0x2297e6,  0x229827,
    0x229846,  0x229885,  0x2298d2,  0x2298e5,  0x229900,  0x229a09,  0x229b40,  0x22b005,
    0x22b5e7,  0x22b646,  0x22b6c0,  0x22b707,  0x22b786,  0x22b7c7,  0x22b7e6,  0x22b832,
    0x22bb05,  0x22bb86,  0x22bbc0,  0x22c005,  0x22c607,  0x22c666,  0x22c767,  0x22c7a6,
    0x22c7c7,  0x22c7e6,  0x22c832,  0x22c885,  0x22c8a0,  0x22ca09,  0x22cb40,  0x22cc12,
    0x22cda0,  0x22d005,  0x22d566,  0x22d587,  0x22d5a6,  0x22d5c7,  0x22d606,  0x22d6c7,
    0x22d6e6,  0x22d705,  0x22d732,  0x22d740,  0x22d809,  0x22d940,  0x22e005,  0x22e360,
    0x22e3a6,  0x22e407,  0x22e446,  0x22e4c7,  0x22e4e6,  0x22e580,  0x22e609,  0x22e74b,
    0x22e792,  0x22e7f6,  0x22e805,  0x22e8e0,  0x230005,  0x230587,  0x2305e6,  0x230707,
    0x230726,  0x230772,  0x230780,  0x231401,  0x231802,  0x231c09,  0x231d4b,  0x231e60,
    0x231fe5,  0x2320e0,  0x232125,  0x232140,  0x232185,  0x232280,  0x2322a5,  0x2322e0,
    0x232305,  0x232607,  0x2326c0,  0x2326e7,  0x232720,  0x232766,  0x2327a7,  0x2327c6,
    0x2327e5,  0x232807,  0x232825,  0x232847,  0x232866,  0x232892,  0x2328e0,  0x232a09,
    0x232b40,  0x233405,  0x233500,  0x233545,  0x233a27,  0x233a86,  0x233b00,  0x233b46,
    0x233b87,  0x233c06,  0x233c25,  0x233c52,  0x233c65,  0x233c87,  0x233ca0,  0x234005,
    0x234026,  0x234165,  0x234666,  0x234727,  0x234745,  0x234766,  0x2347f2,  0x2348e6,
    0x234900,  0x234a05,  0x234a26,  0x234ae7,  0x234b26,  0x234b85,  0x235146,  0x2352e7,
    0x235306,  0x235352,  0x2353a5,  0x2353d2,  0x235460,  0x235605,  0x235f20,  0x238005,
    0x238120,  0x238145,  0x2385e7,  0x238606,  0x2386e0,  0x238706,  0x2387c7,  0x2387e6,
    0x238805,  0x238832,  0x2388c0,  0x238a09,  0x238b4b,  0x238da0,  0x238e12,  0x238e45,
    0x239200,  0x239246,  0x239500,  0x239527,  0x239546,  0x239627,  0x239646,  0x239687,
    0x2396a6,  0x2396e0,  0x23a005,  0x23a0e0,  0x23a105,  0x23a140,  0x23a165,  0x23a626,
    0x23a6e0,  0x23a746,  0x23a760,  0x23a786,  0x23a7c0,  0x23a7e6,  0x23a8c5,  0x23a8e6,
    0x23a900,  0x23aa09,  0x23ab40,  0x23ac05,  0x23acc0,  0x23ace5,  0x23ad20,  0x23ad45,
    0x23b147,  0x23b1e0,  0x23b206,  0x23b240,  0x23b267,  0x23b2a6,  0x23b2c7,  0x23b2e6,
    0x23b305,  0x23b320,  0x23b409,  0x23b540,  0x23dc05,  0x23de66,  0x23dea7,  0x23def2,
    0x23df20,  0x23f605,  0x23f620,  0x23f80b,  0x23fab6,  0x23fbb4,  0x23fc36,  0x23fe40,
    0x23fff2,  0x240005,  0x247340,  0x24800a,  0x248de0,  0x248e12,  0x248ea0,  0x249005,
    0x24a880,  0x25f205,  0x25fe32,  0x25fe60,  0x260005,  0x2685e0,  0x26861b,  0x268720,
    0x288005,  0x28c8e0,  0x2d0005,  0x2d4720,  0x2d4805,  0x2d4be0,  0x2d4c09,  0x2d4d40,
    0x2d4dd2,  0x2d4e05,  0x2d57e0,  0x2d5809,  0x2d5940,  0x2d5a05,  0x2d5dc0,  0x2d5e06,
    0x2d5eb2,  0x2d5ec0,  0x2d6005,  0x2d6606,  0x2d66f2,  0x2d6796,  0x2d6804,  0x2d6892,
    0x2d68b6,  0x2d68c0,  0x2d6a09,  0x2d6b40,  0x2d6b6b,  0x2d6c40,  0x2d6c65,  0x2d6f00,
    0x2d6fa5,  0x2d7200,  0x2dc801,  0x2dcc02,  0x2dd00b,  0x2dd2f2,  0x2dd360,  0x2de005,
    0x2de960,  0x2de9e6,  0x2dea05,  0x2dea27,  0x2df100,  0x2df1e6,  0x2df264,  0x2df400,
    0x2dfc04,  0x2dfc52,  0x2dfc64,  0x2dfc86,  0x2dfca0,  0x2dfe07,  0x2dfe40,  0x2e0005,
    0x30ff00,  0x310005,  0x319ac0,  0x31a005,  0x31a120,  0x35fe04,  0x35fe80,  0x35fea4,
    0x35ff80,  0x35ffa4,  0x35ffe0,  0x360005,  0x362460,  0x362a05,  0x362a60,  0x362c85,
    0x362d00,  0x362e05,  0x365f80,  0x378005,  0x378d60,  0x378e05,  0x378fa0,  0x379005,
    0x379120,  0x379205,  0x379340,  0x379396,  0x3793a6,  0x3793f2,  0x37941b,  0x379480,
    0x39e006,  0x39e5c0,  0x39e606,  0x39e8e0,  0x39ea16,  0x39f880,  0x3a0016,  0x3a1ec0,
    0x3a2016,  0x3a24e0,  0x3a2536,  0x3a2ca7,  0x3a2ce6,  0x3a2d56,  0x3a2da7,  0x3a2e7b,
    0x3a2f66,  0x3a3076,  0x3a30a6,  0x3a3196,  0x3a3546,  0x3a35d6,  0x3a3d60,  0x3a4016,
    0x3a4846,  0x3a48b6,  0x3a48c0,  0x3a5c0b,  0x3a5e80,  0x3a6016,  0x3a6ae0,  0x3a6c0b,
    0x3a6f20,  0x3a8001,  0x3a8342,  0x3a8681,  0x3a89c2,  0x3a8aa0,  0x3a8ac2,  0x3a8d01,
    0x3a9042,  0x3a9381,  0x3a93a0,  0x3a93c1,  0x3a9400,  0x3a9441,  0x3a9460,  0x3a94a1,
    0x3a94e0,  0x3a9521,  0x3a95a0,  0x3a95c1,  0x3a96c2,  0x3a9740,  0x3a9762,  0x3a9780,
    0x3a97a2,  0x3a9880,  0x3a98a2,  0x3a9a01,  0x3a9d42,  0x3aa081,  0x3aa0c0,  0x3aa0e1,
    0x3aa160,  0x3aa1a1,  0x3aa2a0,  0x3aa2c1,  0x3aa3a0,  0x3aa3c2,  0x3aa701,  0x3aa740,
    0x3aa761,  0x3aa7e0,  0x3aa801,  0x3aa8a0,  0x3aa8c1,  0x3aa8e0,  0x3aa941,  0x3aaa20,
    0x3aaa42,  0x3aad81,  0x3ab0c2,  0x3ab401,  0x3ab742,  0x3aba81,  0x3abdc2,  0x3ac101,
    0x3ac442,  0x3ac781,  0x3acac2,  0x3ace01,  0x3ad142,  0x3ad4c0,  0x3ad501,  0x3ad833,
    0x3ad842,  0x3adb73,  0x3adb82,  0x3adc41,  0x3adf73,  0x3adf82,  0x3ae2b3,  0x3ae2c2,
    0x3ae381,  0x3ae6b3,  0x3ae6c2,  0x3ae9f3,  0x3aea02,  0x3aeac1,  0x3aedf3,  0x3aee02,
    0x3af133,  0x3af142,  0x3af201,  0x3af533,  0x3af542,  0x3af873,  0x3af882,  0x3af941,
    0x3af962,  0x3af980,  0x3af9c9,  0x3b0016,  0x3b4006,  0x3b46f6,  0x3b4766,  0x3b4db6,
    0x3b4ea6,  0x3b4ed6,  0x3b5086,  0x3b50b6,  0x3b50f2,  0x3b5180,  0x3b5366,  0x3b5400,
    0x3b5426,  0x3b5600,  0x3be002,  0x3be145,  0x3be162,  0x3be3e0,  0x3c0006,  0x3c00e0,
    0x3c0106,  0x3c0320,  0x3c0366,  0x3c0440,  0x3c0466,  0x3c04a0,  0x3c04c6,  0x3c0560,
    0x3c2005,  0x3c25a0,  0x3c2606,  0x3c26e4,  0x3c27c0,  0x3c2809,  0x3c2940,  0x3c29c5,
    0x3c29f6,  0x3c2a00,  0x3c5205,  0x3c55c6,  0x3c55e0,  0x3c5805,  0x3c5d86,  0x3c5e09,
    0x3c5f40,  0x3c5ff4,  0x3c6000,  0x3cfc05,  0x3cfce0,  0x3cfd05,  0x3cfd80,  0x3cfda5,
    0x3cfde0,  0x3cfe05,  0x3cffe0,  0x3d0005,  0x3d18a0,  0x3d18eb,  0x3d1a06,  0x3d1ae0,
    0x3d2001,  0x3d2442,  0x3d2886,  0x3d2964,  0x3d2980,  0x3d2a09,  0x3d2b40,  0x3d2bd2,
    0x3d2c00,  0x3d8e2b,  0x3d9596,  0x3d95ab,  0x3d9614,  0x3d962b,  0x3d96a0,  0x3da02b,
    0x3da5d6,  0x3da5eb,  0x3da7c0,  0x3dc005,  0x3dc080,  0x3dc0a5,  0x3dc400,  0x3dc425,
    0x3dc460,  0x3dc485,  0x3dc4a0,  0x3dc4e5,  0x3dc500,  0x3dc525,  0x3dc660,  0x3dc685,
    0x3dc700,  0x3dc725,  0x3dc740,  0x3dc765,  0x3dc780,  0x3dc845,  0x3dc860,  0x3dc8e5,
    0x3dc900,  0x3dc925,  0x3dc940,  0x3dc965,  0x3dc980,  0x3dc9a5,  0x3dca00,  0x3dca25,
    0x3dca60,  0x3dca85,  0x3dcaa0,  0x3dcae5,  0x3dcb00,  0x3dcb25,  0x3dcb40,  0x3dcb65,
    0x3dcb80,  0x3dcba5,  0x3dcbc0,  0x3dcbe5,  0x3dcc00,  0x3dcc25,  0x3dcc60,  0x3dcc85,
    0x3dcca0,  0x3dcce5,  0x3dcd60,  0x3dcd85,  0x3dce60,  0x3dce85,  0x3dcf00,  0x3dcf25,
    0x3dcfa0,  0x3dcfc5,  0x3dcfe0,  0x3dd005,  0x3dd140,  0x3dd165,  0x3dd380,  0x3dd425,
    0x3dd480,  0x3dd4a5,  0x3dd540,  0x3dd565,  0x3dd780,  0x3dde13,  0x3dde40,  0x3e0016,
    0x3e0580,  0x3e0616,  0x3e1280,  0x3e1416,  0x3e15e0,  0x3e1636,  0x3e1800,  0x3e1836,
    0x3e1a00,  0x3e1a36,  0x3e1ec0,  0x3e200b,  0x3e21b6,  0x3e35c0,  0x3e3cd6,  0x3e4060,
    0x3e4216,  0x3e4780,  0x3e4816,  0x3e4920,  0x3e4a16,  0x3e4a40,  0x3e4c16,  0x3e4cc0,
    0x3e6016,  0x3e7f75,  0x3e8016,  0x3edb00,  0x3edbb6,  0x3edda0,  0x3ede16,  0x3edfa0,
    0x3ee016,  0x3eee80,  0x3ef016,  0x3efb20,  0x3efc16,  0x3efd80,  0x3efe16,  0x3efe20,
    0x3f0016,  0x3f0180,  0x3f0216,  0x3f0900,  0x3f0a16,  0x3f0b40,  0x3f0c16,  0x3f1100,
    0x3f1216,  0x3f15c0,  0x3f1616,  0x3f1640,  0x3f2016,  0x3f4a80,  0x3f4c16,  0x3f4dc0,
    0x3f4e16,  0x3f4ea0,  0x3f4f16,  0x3f4fa0,  0x3f5016,  0x3f50e0,  0x3f5216,  0x3f55a0,
    0x3f5616,  0x3f5760,  0x3f5816,  0x3f58c0,  0x3f5a16,  0x3f5b40,  0x3f5c16,  0x3f5d00,
    0x3f5e16,  0x3f5ee0,  0x3f6016,  0x3f7260,  0x3f7296,  0x3f7960,  0x3f7e09,  0x3f7f40,
    0x400005,  0x54dc00,  0x54e005,  0x56e720,  0x56e805,  0x5703c0,  0x570405,  0x59d440,
    0x59d605,  0x5d7c20,  0x5f0005,  0x5f43c0,  0x600005,  0x626960,  0x1c0003b, 0x1c00040,
    0x1c0041b, 0x1c01000, 0x1c02006, 0x1c03e00, 0x1e0001d, 0x1ffffc0, 0x200001d, 0x21fffc0,
};
