/* Unit tests for domain/regex: the ECMA-262 (u-flag) features JSON Schema patterns use, as
 * tables of pattern/subject/expected (cross-checked against node's RegExp with the "u"
 * flag), syntax errors with their messages, and the step and stack budgets that keep
 * pathological patterns from hanging the server. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/regex.h"

struct match_case {
    const char *pattern;
    const char *subject;
    int expect; /* REGEX_MATCH or REGEX_NOMATCH */
};

static int search(const char *pattern, const char *subject)
{
    struct regex *re = NULL;
    char err[160];
    int rc = regex_compile(pattern, strlen(pattern), &re, err, sizeof(err));

    if (rc != 0)
        fail_msg("/%s/ does not compile: %s", pattern, err);
    rc = regex_search(re, subject, strlen(subject));
    regex_free(re);
    return rc;
}

static void run_matches(const struct match_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = search(cases[i].pattern, cases[i].subject);
        if (rc != cases[i].expect)
            fail_msg("/%s/ on \"%s\": got %d, want %d", cases[i].pattern, cases[i].subject, rc,
                     cases[i].expect);
    }
}

#define Y REGEX_MATCH
#define N REGEX_NOMATCH

static const struct match_case literals[] = {
    {"abc", "xxabcxx", Y},
    {"abc", "ab", N},
    {"", "", Y},
    {"a.c", "abc", Y},
    {"a.c", "a\nc", N}, /* . excludes line terminators */
    {"a.c",
     "a\xe2\x80\xa8"
     "c",
     N},                            /* U+2028 */
    {"^.$", "\xf0\x9f\x90\xb2", Y}, /* one code point, four bytes */
    {"^..$", "\xf0\x9f\x90\xb2", N},
    {"^\\t\\n\\r\\v\\f$", "\t\n\r\v\f", Y},
    {"^\\0$", "", N},
    {"^\\x41\\u0042\\u{43}$", "ABC", Y},
    {"^\\u{1F432}$", "\xf0\x9f\x90\xb2", Y},
    {"^\\ud83d\\udc32$", "\xf0\x9f\x90\xb2", Y}, /* surrogate pair escapes join */
    {"^\\cJ$", "\n", Y},
    {"^\\cj$", "\n", Y},
    {"^\\^\\$\\\\\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/$", "^$\\.*+?()[]{}|/", Y},
    {"^caf\xc3\xa9$", "caf\xc3\xa9", Y},
};

static const struct match_case classes[] = {
    {"^[abc]+$", "abcabc", Y},
    {"^[a-c]+$", "abd", N},
    {"^[^a-c]+$", "xyz", Y},
    {"^[^a-c]$", "b", N},
    {"^[-a]$", "-", Y},
    {"^[a-]$", "-", Y},
    {"^[\\-]$", "-", Y},
    {"^[\\d_]+$", "1_2", Y},
    {"^[\\b]$", "\b", Y},
    {"^[]$", "a", N},   /* empty class matches nothing */
    {"^[^]$", "\n", Y}, /* negated empty class matches anything */
    {"^\\d+$", "0123456789", Y},
    {"^\\d$", "\xdf\x80", N}, /* NKO DIGIT ZERO is not \d */
    {"^\\D$", "\xdf\x80", Y},
    {"^\\w+$", "aZ0_", Y},
    {"^\\w$", "\xc3\xa9", N}, /* e-acute is not \w */
    {"^\\W$", "\xc3\xa9", Y},
    {"^\\s+$", " \t\n\v\f\r\xc2\xa0\xef\xbb\xbf\xe2\x80\xa9\xe2\x80\x83", Y},
    {"^\\s$", "\x01", N},
    {"^\\S$", "\xe2\x80\x93", Y}, /* EN DASH */
    {"^[\\s\\d]+$", " 1 2", Y},
    {"^[^\\s]+$", "a b", N},
    {"^[\xf0\x9f\x90\xb2-\xf0\x9f\x90\xb4]$", "\xf0\x9f\x90\xb3", Y},
};

static const struct match_case properties[] = {
    {"\\p{Letter}cole",
     "l'\xc3\xa9"
     "cole",
     Y},
    {"\\p{Letter}cole",
     "L'\xc3\x89"
     "COLE",
     N},
    {"^\\p{L}+$", "\xce\xa9\xd0\x96z", Y},
    {"^\\p{Lu}$", "a", N},
    {"^\\p{Ll}$", "a", Y},
    {"^\\p{digit}+$", "\xe0\xa7\xaa\xe0\xa7\xa8", Y}, /* BENGALI DIGITS FOUR, TWO */
    {"^\\p{Nd}+$", "42", Y},
    {"^\\P{L}+$", "123", Y},
    {"^\\p{General_Category=Zs}$", "\xe3\x80\x80", Y},
    {"^\\p{gc=P}$", "!", Y},
    {"^\\p{ASCII}+$", "abc\xc3\xa9", N},
    {"^\\p{Any}$", "\xf0\x9f\x90\xb2", Y},
    {"^[\\p{L}\\p{N}]+$", "a1\xce\xa9", Y},
    {"^[^\\p{L}]$", "1", Y},
};

static const struct match_case anchors[] = {
    {"^abc$", "abc\n", N}, /* $ is end of input only */
    {"^abc$", "x\nabc", N},   {"abc$", "xabc", Y},    {"\\bfoo\\b", "a foo b", Y},
    {"\\bfoo\\b", "afoo", N}, {"\\Boo\\B", "foo", N}, {"\\Boo\\B", "foot", Y},
    {"\\Boo", "foo", Y},      {"^$", "", Y},
};

static const struct match_case groups[] = {
    {"^(ab)+$", "ababab", Y},
    {"^(?:ab)+$", "ababa", N},
    {"^(a|bc|d)*$", "abcdbc", Y},
    {"^(a)\\1$", "aa", Y},
    {"^(a)\\1$", "ab", N},
    {"^(?<x>[a-z]+)-\\k<x>$", "abc-abc", Y},
    {"^(?<x>[a-z]+)-\\k<x>$", "abc-abd", N},
    {"^\\1(a)$", "a", Y},   /* forward reference matches empty */
    {"^(a)|\\1b$", "b", Y}, /* reference to a group of another alternative */
    {"^(?:(a)|b)\\1$", "b", Y},
    {"^(a*)*$", "aaa", Y},
    {"^(a*)+b$", "aab", Y},
    {"^(?:a|())*$", "aa", Y},
    {"^(?:(a)|b)*\\1$", "aba", N}, /* captures reset on each iteration */
    {"^(?:(a)|b)*\\1$", "abaa", Y},
};

static const struct match_case quantifiers[] = {
    {"^a{3}$", "aaa", Y},
    {"^a{3}$", "aa", N},
    {"^a{2,}$", "aaaa", Y},
    {"^a{2,3}$", "aaaa", N},
    {"^(?:ab){2,3}$", "ababab", Y},
    {"^(?:ab){2,3}$", "ab", N},
    {"^a*?b$", "aaab", Y},
    {"^a+?$", "aaa", Y},
    {"^(a+?)(a*)$", "aaa", Y},
    {"^a??b$", "ab", Y},
    {"^(?:a{2}){2}$", "aaaa", Y},
    {"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "2024-02-29", Y},
    {"^x{0}$", "", Y},
    {"^(?:a?){3}b$", "aab", Y},
};

static const struct match_case lookaround[] = {
    {"foo(?=bar)", "foobar", Y},
    {"foo(?=bar)", "foobaz", N},
    {"foo(?!bar)", "foobar", N},
    {"foo(?!bar)", "foobaz", Y},
    {"(?<=\\$)\\d+", "cost $42", Y},
    {"(?<=\\$)\\d+", "cost 42", N},
    {"(?<!\\$)\\b\\d+", "cost $42", N},
    {"(?<!\\$)\\b\\d+", "cost 42", Y},
    {"(?<=(\\d+)(\\d+))$", "1053", Y},
    {"(?<=\\1(a))b", "aab", Y}, /* backreference inside lookbehind runs right to left */
    {"(?<=\\1(a))b", "cab", N},
    {"^(?=(a+))a*b\\1$", "aaaba", N},
    {"(?=(a+))a*b\\1", "baaabac", Y},
    {"^(?!.*password).*$", "my secret", Y},
    {"^(?!.*password).*$", "my password", N},
    {"(?<=\xf0\x9f\x90\xb2)x", "\xf0\x9f\x90\xb2x", Y},
};

static void test_literals(void **state)
{
    (void)state;
    run_matches(literals, TE_ARRAY_LEN(literals));
}

static void test_classes(void **state)
{
    (void)state;
    run_matches(classes, TE_ARRAY_LEN(classes));
}

static void test_properties(void **state)
{
    (void)state;
    run_matches(properties, TE_ARRAY_LEN(properties));
}

static void test_anchors(void **state)
{
    (void)state;
    run_matches(anchors, TE_ARRAY_LEN(anchors));
}

static void test_groups(void **state)
{
    (void)state;
    run_matches(groups, TE_ARRAY_LEN(groups));
}

static void test_quantifiers(void **state)
{
    (void)state;
    run_matches(quantifiers, TE_ARRAY_LEN(quantifiers));
}

static void test_lookaround(void **state)
{
    (void)state;
    run_matches(lookaround, TE_ARRAY_LEN(lookaround));
}

struct error_case {
    const char *pattern;
    const char *message; /* exact text of err */
};

static const struct error_case errors[] = {
    {"(", "unterminated group at offset 0"},
    {"ab(c", "unterminated group at offset 2"},
    {"a)", "unmatched ')' at offset 1"},
    {"[a-", "unterminated character class at offset 0"},
    {"[z-a]", "range out of order in character class at offset 2"},
    {"[\\d-z]", "invalid range with a class escape in character class at offset 3"},
    {"*a", "nothing to repeat at offset 0"},
    {"a**", "nothing to repeat at offset 2"},
    {"^*", "nothing to repeat at offset 1"},
    {"(?=a)*", "nothing to repeat at offset 5"},
    {"a{2,1}", "numbers out of order in {} quantifier at offset 1"},
    {"a{2", "incomplete quantifier at offset 1"},
    {"{", "lone '{' (escape it as \\{) at offset 0"},
    {"a]", "lone ']' (escape it as \\]) at offset 1"},
    {"\\", "\\ at end of pattern at offset 0"},
    {"\\a", "invalid escape \\a at offset 0"},
    {"\\-", "invalid escape \\- at offset 0"},
    {"\\c1", "invalid \\c escape at offset 0"},
    {"\\xZ1", "invalid \\x escape at offset 0"},
    {"\\u12", "invalid \\u escape at offset 0"},
    {"\\u{110000}", "\\u{...} escape out of range at offset 0"},
    {"\\01", "invalid decimal escape at offset 0"},
    {"(a)\\2", "invalid backreference \\2 at offset 3"},
    {"\\k<x>", "reference to undefined group name at offset 0"},
    {"(?<x>a)(?<x>b)", "duplicate group name at offset 7"},
    {"(?<1x>a)", "invalid group name at offset 0"},
    {"(?x)", "invalid group at offset 0"},
    {"\\p{Script=Latin}", "unsupported Unicode property \\p{Script=Latin} at offset 0"},
    {"\\p{Alphabetic}", "unsupported Unicode property \\p{Alphabetic} at offset 0"},
    {"\\pL", "invalid property escape (expected \\p{...}) at offset 0"},
    {"[\\1]", "invalid escape \\1 in character class at offset 1"},
    {"a\xff", "invalid UTF-8 in pattern at offset 1"},
};

static void test_syntax_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(errors); i++) {
        struct regex *re = NULL;
        char err[160];
        int rc = regex_compile(errors[i].pattern, strlen(errors[i].pattern), &re, err, sizeof(err));
        if (rc != REGEX_ESYNTAX)
            fail_msg("/%s/: got %d, want a syntax error", errors[i].pattern, rc);
        assert_null(re);
        if (strcmp(err, errors[i].message) != 0)
            fail_msg("/%s/: message \"%s\", want \"%s\"", errors[i].pattern, err,
                     errors[i].message);
    }
}

static void test_nesting_limit(void **state)
{
    char pattern[1024];
    struct regex *re = NULL;
    char err[160];

    (void)state;
    memset(pattern, '(', 300);
    memset(pattern + 300, ')', 300);
    assert_int_equal(regex_compile(pattern, 600, &re, err, sizeof(err)), REGEX_ESYNTAX);
    assert_non_null(strstr(err, "nested too deeply"));
    assert_int_equal(regex_compile(pattern + 200, 200, &re, err, sizeof(err)), 0);
    regex_free(re);
}

/* Exponential backtracking is cut off by the step budget instead of hanging. */
static void test_budget(void **state)
{
    char subject[64];
    struct regex *re = NULL;
    struct regex_limits lim = {1000, 0, NULL};
    uint64_t used = 0;
    char err[160];

    (void)state;
    memset(subject, 'a', 40);
    subject[40] = 'b';
    subject[41] = '\0';
    assert_int_equal(regex_compile("(a+)+$", 6, &re, err, sizeof(err)), 0);
    assert_int_equal(regex_search(re, subject, strlen(subject)), REGEX_EBUDGET);
    lim.steps_used = &used;
    assert_int_equal(regex_search_limits(re, subject, strlen(subject), &lim), REGEX_EBUDGET);
    assert_true(used > 1000 && used < 1100);
    /* a short subject fits in the budget */
    assert_int_equal(regex_search_limits(re, "aab", 3, &lim), REGEX_NOMATCH);
    regex_free(re);
}

/* Long subjects do not recurse; the backtrack stack has its own bound. */
static void test_long_subject(void **state)
{
    size_t n = 200000;
    char *s = malloc(n + 1);
    struct regex *re = NULL;
    struct regex_limits small = {0, 1000, NULL};
    char err[160];

    (void)state;
    assert_non_null(s);
    for (size_t i = 0; i < n; i++)
        s[i] = i % 2 ? 'b' : 'a';
    s[n] = '\0';
    assert_int_equal(regex_compile("^(?:ab)*$", 9, &re, err, sizeof(err)), 0);
    assert_int_equal(regex_search(re, s, n), REGEX_MATCH);
    assert_int_equal(regex_search_limits(re, s, n, &small), REGEX_EBUDGET);
    regex_free(re);
    assert_int_equal(regex_compile("^.*$", 4, &re, err, sizeof(err)), 0);
    assert_int_equal(regex_search(re, s, n), REGEX_MATCH);
    regex_free(re);
    assert_int_equal(regex_compile("z", 1, &re, err, sizeof(err)), 0);
    assert_int_equal(regex_search(re, s, n), REGEX_NOMATCH);
    regex_free(re);
    free(s);
}

/* Explicit lengths: NUL bytes are ordinary characters; invalid UTF-8 bytes in a subject
 * are single pseudo code points that only match "anything" constructs. */
static void test_bytes(void **state)
{
    struct regex *re = NULL;
    char err[160];

    (void)state;
    assert_int_equal(regex_compile("^a\\0b$", 6, &re, err, sizeof(err)), 0);
    assert_int_equal(regex_search(re, "a\0b", 3), REGEX_MATCH);
    regex_free(re);
    assert_int_equal(regex_compile("^a.b$", 5, &re, err, sizeof(err)), 0);
    assert_int_equal(regex_search(re, "a\xffz", 3), REGEX_NOMATCH);
    assert_int_equal(regex_search(re,
                                  "a\xff"
                                  "b",
                                  3),
                     REGEX_MATCH);
    regex_free(re);
    assert_int_equal(regex_compile("^[^a]\\W\\S$", 10, &re, err, sizeof(err)), 0);
    assert_int_equal(regex_search(re, "\xe2\x82\xff", 3), REGEX_MATCH);
    regex_free(re);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals),      cmocka_unit_test(test_classes),
        cmocka_unit_test(test_properties),    cmocka_unit_test(test_anchors),
        cmocka_unit_test(test_groups),        cmocka_unit_test(test_quantifiers),
        cmocka_unit_test(test_lookaround),    cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_nesting_limit), cmocka_unit_test(test_budget),
        cmocka_unit_test(test_long_subject),  cmocka_unit_test(test_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
