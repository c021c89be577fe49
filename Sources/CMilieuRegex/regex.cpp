#include "CMilieuRegex.h"

#include <re2/re2.h>

#include <cstring>

struct milieu_regex {
    RE2 re2;
    milieu_regex(const re2::StringPiece &pattern, const RE2::Options &options) : re2(pattern, options) {}
};

static milieu_regex_error classify(const RE2 &re2) {
    const std::string &argument = re2.error_arg();
    switch (re2.error_code()) {
    case RE2::NoError: return MILIEU_REGEX_OK;
    case RE2::ErrorBadEscape:
        return argument.size() == 2 && argument[1] >= '1' && argument[1] <= '9' ? MILIEU_REGEX_BACKREFERENCE : MILIEU_REGEX_SYNTAX;
    case RE2::ErrorBadPerlOp: return MILIEU_REGEX_UNSUPPORTED_GROUP;
    case RE2::ErrorRepeatSize: return MILIEU_REGEX_REPEAT_SIZE;
    case RE2::ErrorPatternTooLarge: return MILIEU_REGEX_TOO_LARGE;
    default: return MILIEU_REGEX_SYNTAX;
    }
}

extern "C" milieu_regex *milieu_regex_compile(
    const uint8_t *pattern, size_t length, int64_t max_memory, milieu_regex_error *error, uint8_t *message,
    size_t message_capacity) {
    RE2::Options options;
    // The engine does no I/O: RE2 would otherwise write every refused pattern to stderr.
    options.set_log_errors(false);
    options.set_max_mem(max_memory);
    // Only whether the whole text matches is asked, so no group needs tracking.
    options.set_never_capture(true);
    milieu_regex *regex = new milieu_regex(re2::StringPiece(reinterpret_cast<const char *>(pattern), length), options);
    if (regex->re2.ok()) {
        *error = MILIEU_REGEX_OK;
        return regex;
    }
    *error = classify(regex->re2);
    if (message_capacity > 0) {
        const std::string &text = regex->re2.error();
        size_t count = text.size() < message_capacity - 1 ? text.size() : message_capacity - 1;
        std::memcpy(message, text.data(), count);
        message[count] = 0;
    }
    delete regex;
    return nullptr;
}

extern "C" int milieu_regex_full_match(const milieu_regex *regex, const uint8_t *text, size_t length) {
    return RE2::FullMatch(re2::StringPiece(reinterpret_cast<const char *>(text), length), regex->re2) ? 1 : 0;
}

extern "C" int milieu_regex_program_size(const milieu_regex *regex) { return regex->re2.ProgramSize(); }

extern "C" void milieu_regex_free(milieu_regex *regex) { delete regex; }
