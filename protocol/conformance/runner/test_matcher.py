"""Self-test of the pattern language (README.md, "Patterns"): what must match, and what must not."""

import pytest

from runner.matcher import Mismatch, PatternError, json_equal, match


def matches(pattern, value, captures=None):
    return match(pattern, value, captures or {})


def mismatch(pattern, value, captures=None):
    with pytest.raises(Mismatch) as caught:
        match(pattern, value, captures or {})
    return caught.value


@pytest.mark.parametrize("literal", [None, True, False, 0, -3, 2.5, "", "text", [], {}, [1, [2]], {"a": {"b": [None]}}])
def test_a_literal_matches_itself(literal):
    assert matches(literal, literal) == {}


@pytest.mark.parametrize("pattern, value", [
    (1, 2), ("a", "b"), (None, False), (False, None), (True, 1), (1, True), (0, False),
    ("1", 1), ([1], 1), ({}, []), ([], {}), ([1, 2], [2, 1]), ("$$x", "$$x"),
])
def test_a_literal_does_not_match_another_value(pattern, value):
    mismatch(pattern, value)


def test_numbers_compare_by_value():
    assert matches(1, 1.0) == {} and matches(1.0, 1) == {}
    assert json_equal([1, {"a": 2}], [1.0, {"a": 2.0}])
    assert not json_equal(1, True)


def test_objects_need_exactly_the_same_keys():
    mismatch({"a": 1}, {"a": 1, "b": 2})
    error = mismatch({"a": 1, "b": 2}, {"a": 1})
    assert '"b"' in error.reason


def test_partial_objects_check_only_the_listed_keys():
    assert matches({"$partial": True, "a": 1}, {"a": 1, "b": 2}) == {}
    mismatch({"$partial": True, "a": 1}, {"a": 2, "b": 2})
    mismatch({"$partial": True, "a": 1}, {"b": 2})
    mismatch({"$partial": True}, [])
    assert matches({"$partial": False, "a": 1}, {"a": 1}) == {}
    mismatch({"$partial": False, "a": 1}, {"a": 1, "b": 2})


def test_partial_is_not_inherited_by_nested_objects():
    mismatch({"$partial": True, "a": {"b": 1}}, {"a": {"b": 1, "c": 2}})


def test_arrays_need_the_same_length_and_match_element_wise():
    assert matches([1, "$string"], [1, "x"]) == {}
    mismatch([1], [1, 2])
    mismatch([1, 2], [1])
    error = mismatch([1, "$string"], [1, 2])
    assert error.where == "/1"


@pytest.mark.parametrize("matcher, good, bad", [
    ("$any", [None, 0, "", [], {}, False], []),
    ("$int", [0, -5, 3.0, 9007199254740993], [1.5, "1", True, None]),
    ("$number", [0, 1.5, -2e300], ["1", True, None, []]),
    ("$string", ["", "$x"], [1, None, ["a"]]),
    ("$bool", [True, False], [0, 1, None, "true"]),
    ("$null", [None], [0, False, "", [], {}]),
    ("$object", [{}, {"a": 1}], [[], None, "{}"]),
    ("$array", [[], [1]], [{}, None, "[]"]),
])
def test_type_matchers(matcher, good, bad):
    for value in good:
        assert matches(matcher, value) == {}, value
    for value in bad:
        mismatch(matcher, value)


def test_contains():
    assert matches("$contains:ell", "hello") == {}
    assert matches("$contains:", "") == {}
    mismatch("$contains:ell", "help")
    mismatch("$contains:1", 1)


def test_a_literal_dollar_string_is_written_with_two_dollars():
    assert matches("$$any", "$any") == {}
    mismatch("$$any", "x")
    assert matches("$$", "$") == {}
    assert matches({"k": "$$ref:v"}, {"k": "$ref:v"}) == {}


def test_object_keys_are_always_literal():
    assert matches({"$parent": "x"}, {"$parent": "x"}) == {}
    mismatch({"$parent": "x"}, {"parent": "x"})


def test_capture_matches_anything_and_remembers_it():
    assert matches({"v": "$capture:v", "o": "$capture:o"}, {"v": 7, "o": {"a": [1]}}) == {"v": 7, "o": {"a": [1]}}


def test_ref_is_equal_to_an_earlier_capture():
    captures = {"v": 7, "o": {"a": [1]}}
    assert matches(["$ref:v", "$ref:o"], [7, {"a": [1.0]}], captures) == {}
    mismatch("$ref:v", 8, captures)
    mismatch("$ref:o", {"a": [1], "b": 2}, captures)


def test_ref_plus_k_adds_to_an_integer_capture():
    captures = {"v": 7, "d": 2.0, "s": "x"}
    assert matches("$ref:v+1", 8, captures) == {}
    assert matches("$ref:v+0", 7, captures) == {}
    assert matches("$ref:d+3", 5, captures) == {}
    mismatch("$ref:v+1", 7, captures)
    mismatch("$ref:v+1", "8", captures)
    mismatch("$ref:s+1", "x1", captures)


def test_captures_take_effect_only_after_the_whole_message_matched():
    with pytest.raises(PatternError):
        match({"a": "$capture:x", "b": "$ref:x"}, {"a": 1, "b": 1}, {})


def test_a_failed_match_captures_nothing():
    captures = {"v": 1}
    with pytest.raises(Mismatch):
        match({"a": "$capture:v", "b": 2}, {"a": 5, "b": 3}, captures)
    assert captures == {"v": 1}


def test_a_later_capture_replaces_an_earlier_one():
    captures = {"v": 1}
    captures.update(match("$capture:v", 2, captures))
    assert captures == {"v": 2}


@pytest.mark.parametrize("pattern", [
    "$", "$foo", "$int:", "$ref:", "$ref:1x", "$ref:v-1", "$ref:v+", "$capture:", "$capture:a b", {"$partial": "yes"}, "$ref:unknown",
])
def test_malformed_patterns_are_errors_of_the_case(pattern):
    with pytest.raises(PatternError):
        match(pattern, 1, {"v": 1})


def test_capturing_one_name_twice_in_a_pattern_is_an_error():
    with pytest.raises(PatternError):
        match(["$capture:x", "$capture:x"], [1, 1], {})


def test_mismatches_point_at_the_offending_member():
    error = mismatch({"result": {"items": [{"a~b/c": 1}]}}, {"result": {"items": [{"a~b/c": 2}]}})
    assert error.where == "/result/items/0/a~0b~1c"
    assert "expected 1, got 2" in str(error)


@pytest.mark.parametrize("text", ["1.50", "-0", "1e400", "9223372036854775808", "7", "1E+2"])
def test_text_matches_a_number_written_so(text):
    from runner.wire import parse_strict

    assert matches(f"$text:{text}", parse_strict(text)) == {}


@pytest.mark.parametrize("pattern, written", [("$text:1.50", "1.5"), ("$text:-0", "0"), ("$text:1e400", "1E400"), ("$text:7", "7.0")])
def test_text_does_not_match_another_spelling_of_the_value(pattern, written):
    from runner.wire import parse_strict

    mismatch(pattern, parse_strict(written))
    mismatch(pattern, '"' + pattern[len("$text:"):] + '"')
