"""The case files themselves: well-formed (strict JSON, step.schema.json), uniquely named, scenes present."""

import pytest
from jsonschema import Draft202012Validator

from runner import casefile
from runner.daemon import SCENE_DIR

PATHS = casefile.all_case_paths()


def test_the_step_schema_is_a_valid_schema():
    Draft202012Validator.check_schema(casefile.STEP_SCHEMA)


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_every_case_file_is_well_formed(path):
    case = casefile.load(path)
    assert case.steps, "a case has at least one step"
    if case.scene is not None:
        assert (SCENE_DIR / case.scene).is_file(), f"no scene {case.scene}"


def test_case_names_are_unique_across_areas():
    names = [p.stem for p in PATHS]
    assert sorted(set(names)) == sorted(names)


@pytest.mark.parametrize("scenario", [f"s{n}-" for n in range(1, 8)])
def test_every_scenario_of_semantics_md_has_a_case(scenario):
    assert any(p.stem.startswith(scenario) for p in PATHS)

