/*
 * ECMA-262 regular expressions (the dialect JSON Schema `pattern` uses), compiled once and
 * searched many times. Patterns come from users, so matching is bounded: a backtracking VM
 * with an explicit stack (no recursion on input length) and a step budget per search.
 *
 * Dialect: ECMAScript with the `u` flag and no other flags (no i/m/s/y/g/v), matching
 * code points of a UTF-8 subject. Supported: literals; escapes \t \n \r \v \f \0 \xHH
 * \uHHHH (surrogate pairs joined) \u{H..} \cX and identity escapes of syntax characters
 * and `/` (and `-` inside classes); `.`; classes [..] [^..] with ranges and \d \D \w \W
 * \s \S \p{..} \P{..}; ^ $ (whole input, not multiline); \b \B; groups (..), (?:..),
 * (?<name>..); backreferences \N and \k<name>; alternation; * + ? {n} {n,} {n,m} and
 * their lazy forms; lookahead (?= (?! and lookbehind (?<= (?<!.
 *
 * \p{..}: General_Category values by short or long name, optionally written as
 * `General_Category=X` or `gc=X` (e.g. L, Letter, Lu, Nd, digit, P, punct, Zs, Cc),
 * plus the binary properties Any, ASCII, Assigned, ASCII_Hex_Digit (AHex) and
 * White_Space (space). Category data is Unicode 14.0. Scripts and other properties are
 * a compile error, never a silent mismatch.
 *
 * Invalid UTF-8 bytes in a subject each match as one pseudo code point outside Unicode
 * (only `.`, negated classes and \P/\D/\W/\S match them). A pattern must be valid UTF-8.
 */
#ifndef TE_DOMAIN_REGEX_H
#define TE_DOMAIN_REGEX_H

#include "core/common.h"

#define REGEX_NOMATCH 0
#define REGEX_MATCH 1
#define REGEX_ESYNTAX (-1) /* regex_compile: bad pattern (message in err) */
#define REGEX_EBUDGET (-2) /* regex_search: step or backtrack-stack budget exceeded */
#define REGEX_ENOMEM (-3)

#define REGEX_DEFAULT_STEPS 1000000u
#define REGEX_DEFAULT_STACK 500000u /* backtrack entries (24 bytes each on LP64) */

struct regex;

/* Per-search bounds; a zero field means the default above. */
struct regex_limits {
    uint32_t max_steps;   /* VM instructions plus characters consumed by simple repeats */
    uint32_t max_stack;   /* backtrack stack entries */
    uint64_t *steps_used; /* if not NULL, the steps this search took are added to it */
};

/*
 * Compiles pattern[0..len). Returns 0 and sets *out (free with regex_free), or
 * REGEX_ESYNTAX with a message such as "unterminated group at offset 3" in err, or
 * REGEX_ENOMEM.
 */
int regex_compile(const char *pattern, size_t len, struct regex **out, char *err,
                  size_t errlen) TE_MUSTCHECK;

/*
 * Unanchored search, like RegExp.prototype.test: REGEX_MATCH, REGEX_NOMATCH,
 * REGEX_EBUDGET or REGEX_ENOMEM. The step budget covers the whole search, every start
 * position included (start positions that cannot begin a match, by the pattern's first
 * character or a leading ^, are skipped without cost). Safe to call concurrently on one
 * compiled regex.
 */
int regex_search(const struct regex *re, const char *subject, size_t len) TE_MUSTCHECK;
int regex_search_limits(const struct regex *re, const char *subject, size_t len,
                        const struct regex_limits *lim) TE_MUSTCHECK;

void regex_free(struct regex *re);

#endif
