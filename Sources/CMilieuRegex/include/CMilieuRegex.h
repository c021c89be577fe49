// RE2 behind a C interface Swift can import: compile a pattern under a memory bound, match a
// whole string, free. RE2 matches in time linear in the text (no backtracking), so a pattern
// a client writes cannot stall the daemon.
#ifndef C_MILIEU_REGEX_H
#define C_MILIEU_REGEX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled pattern: an RE2 object. Matching through one from several threads at once is
/// safe (RE2's matching methods are const and lock their own caches).
typedef struct milieu_regex milieu_regex;

/// Why a pattern did not compile, in the cases a caller words differently; any other RE2
/// error is `MILIEU_REGEX_SYNTAX`.
typedef enum {
    MILIEU_REGEX_OK = 0,
    /// Not RE2 syntax (a missing parenthesis, a bad class range, an unknown escape, ...).
    MILIEU_REGEX_SYNTAX,
    /// `\1` to `\9`: RE2 has no backreferences.
    MILIEU_REGEX_BACKREFERENCE,
    /// A `(?` group RE2 lacks: lookahead, lookbehind, `(?<name>`, `(?P=name)`.
    MILIEU_REGEX_UNSUPPORTED_GROUP,
    /// A repetition count over 1000, nested counts multiplied.
    MILIEU_REGEX_REPEAT_SIZE,
    /// The compiled program would need more than the memory bound.
    MILIEU_REGEX_TOO_LARGE,
} milieu_regex_error;

/// Compiles the `length` UTF-8 bytes at `pattern` (RE2 syntax; a NUL byte is a pattern byte)
/// into a program of at most `max_memory` bytes, its matching caches included. On failure
/// returns NULL, sets `*error`, and copies RE2's message (`message_capacity` bytes at most,
/// NUL-terminated) into `message`. Logs nothing.
milieu_regex *milieu_regex_compile(
    const uint8_t *pattern, size_t length, int64_t max_memory, milieu_regex_error *error, uint8_t *message,
    size_t message_capacity);

/// Whether the whole of the `length` UTF-8 bytes at `text` matches (`text` may be NULL when
/// `length` is 0).
int milieu_regex_full_match(const milieu_regex *regex, const uint8_t *text, size_t length);

/// The number of instructions in the compiled program (RE2's `ProgramSize()`): what one byte of
/// text costs at most, when RE2's DFA gives way to its NFA, which steps every live instruction.
int milieu_regex_program_size(const milieu_regex *regex);

/// Frees a compiled pattern; NULL is ignored.
void milieu_regex_free(milieu_regex *regex);

#ifdef __cplusplus
}
#endif

#endif
