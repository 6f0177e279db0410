"""Bad input anywhere (replay files, pin maps, the instance config) is one clear
line and exit status 1 (2 for bad arguments), never an internal error or a traceback."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from senet_pi.cli.command import main

ROOT = Path(__file__).resolve().parents[1]
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def run_main(capsys, args: list[str]) -> tuple[int, str]:
    """Run the CLI in-process; the exit status and standard error."""
    capsys.readouterr()
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's usage errors
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    return code, err


def assert_clear(code: int, err: str, codes: tuple[int, ...] = (0, 1, 2)) -> None:
    assert code in codes, err
    assert "internal error" not in err
    assert "Traceback" not in err
    if code == 1:
        assert err.count("\n") == 1, err  # one line


# ------------------------------------------------------------------ replay files: huge, deep or out of range


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"variant": "secret", "players": ' + "9" * 5000 + ', "events": []}', "number too long"),
        ('{"variant": "secret", "events": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"variant": "secret", "options": {"throws": ["d6"]}, "events": []}', "option throws=['d6']"),
        ('{"variant": "modern", "players": 1000000000000, "events": []}', "is for 2 or 3 or 4 players"),
        ('{"variant": "modern", "players": ' + "9" * 4000 + ', "events": []}', "is for 2 or 3 or 4 players"),
    ],
)
def test_a_bad_replay_file_is_one_clear_line_saying_what_is_wrong(tmp_path, capsys, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    code, err = run_main(capsys, ["replay", str(path)])
    assert code == 1
    assert message in err
    assert_clear(code, err)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe[matrix]\n", "is not a UTF-8 text file"),
        (b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested too deeply"),
        (b"[matrix]\nrows = 5\n[thrower]\n", "rows must list 6 GPIO numbers"),
    ],
)
def test_a_bad_pin_map_is_one_clear_line_saying_what_is_wrong(tmp_path, capsys, content, message):
    path = tmp_path / "pinmap.toml"
    path.write_bytes(content)
    code, err = run_main(capsys, ["selftest", "--backend", "sim", "--auto", "--pinmap", str(path)])
    assert code == 1
    assert message in err
    assert_clear(code, err)


@pytest.fixture
def busy_port(monkeypatch):
    """A `run` that gets as far as serving its page builds the app (reading the config again, as its
    first visitor would) and then stops there, as if its port were taken; no socket is opened."""
    import senet_pi.server.on_demand
    import senet_pi_web

    def serve_on_demand(board, host, port, config, on_start=None):
        senet_pi_web.create_app(board=board)
        raise OSError(98, "Address already in use")

    monkeypatch.setattr(senet_pi.server.on_demand, "serve_on_demand", serve_on_demand)
    return 8080


def run_with_config(capsys, folder: Path, port: int, content: bytes) -> tuple[int, str]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_bytes(content)
    script = folder / "script.txt"
    script.write_text("")
    journal = str(folder / "j.sqlite")
    args = ["run", "--backend", "sim", "--journal", journal, "--script", str(script), "--page-port", str(port)]
    return run_main(capsys, args)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfeSECRET_KEY = 'x'\n", "is not a UTF-8 text file"),
        (b"A = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested too deeply"),
        (b"PIN_DELAY = 'slow'\n", "PIN_DELAY must be a number"),
        (b"OPERATOR_PIN_HASH = 1234\n", "OPERATOR_PIN_HASH must be a string"),
        (b"SECRET_KEY = [1, 2]\n", "SECRET_KEY must be a string"),
        (b"MAX_CONTENT_LENGTH = true\n", "MAX_CONTENT_LENGTH must be a whole number"),
    ],
)
def test_bad_input_instance_config_is_a_startup_error(tmp_path, capsys, monkeypatch, busy_port, content, message):
    monkeypatch.setenv("SENET_PI_INSTANCE", str(tmp_path / "instance"))
    code, err = run_with_config(capsys, tmp_path / "instance", busy_port, content)
    assert code == 1
    assert message in err
    assert not (tmp_path / "instance" / "j.sqlite").exists()  # said before anything started
    assert_clear(code, err)


# ------------------------------------------------------------------ fuzz


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value)  # ints, floats and strings: JSON's spelling is TOML's


def toml_text(tables: dict) -> str:
    lines = []
    for name, table in tables.items():
        if isinstance(table, dict):
            lines.append(f"[{json.dumps(name)}]")
            lines += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in table.items()]
        else:
            lines.insert(0, f"{json.dumps(name)} = {toml_value(table)}")
    return "\n".join(lines) + "\n"


SCALARS = st.one_of(
    st.integers(-(2**63), 2**63 - 1), st.integers(0, 40), st.text(max_size=8), st.booleans(), st.floats(allow_nan=False)
)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=7), max_leaves=12)
JSONS = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=6)),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=15,
)
EVENT = st.one_of(
    st.dictionaries(
        st.sampled_from(["throw", "move", "lift", "place", "wait", "answer", "undo", "card", "by", "pass", "x"]),
        JSONS | st.integers(0, 31) | st.lists(st.integers(-1, 31), max_size=3),
        max_size=2,
    ),
    JSONS,
)
REPLAY = st.fixed_dictionaries(
    {"variant": st.sampled_from(["secret", "houses", "cards", "modern", "chess"]) | JSONS},
    optional={
        "players": st.integers() | JSONS,
        "options": st.dictionaries(
            st.sampled_from(["throws", "pieces_up_to_end", "deck_order", "shuffle_seed", "copies", "specials"]),
            JSONS | st.integers(),
            max_size=3,
        )
        | JSONS,
        "position": st.dictionaries(st.sampled_from(["A", "B", "C", "off", "up", "to_move"]), JSONS) | JSONS,
        "events": st.lists(EVENT, max_size=12) | JSONS,
        "extra": JSONS,
    },
)


@FUZZ
@given(REPLAY, st.binary(max_size=20), st.booleans())
def test_any_damaged_replay_file_is_a_clear_message_never_a_traceback(capsys, replay, noise, damage):
    text = json.dumps(replay).encode()
    if damage:
        cut = len(noise) % (len(text) + 1)
        text = text[:cut] + noise + text[cut:]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "replay.json"
        path.write_bytes(text)
        assert_clear(*run_main(capsys, ["replay", str(path)]))


PINMAP = st.dictionaries(
    st.sampled_from(["matrix", "thrower", "other"]),
    st.dictionaries(st.sampled_from(["rows", "columns", "leds", "button", "buzzer"]), VALUES, max_size=5) | VALUES,
    max_size=3,
)


@FUZZ
@given(PINMAP, st.binary(max_size=12), st.booleans())
def test_any_damaged_pin_map_is_a_clear_message_never_a_traceback(capsys, pinmap, noise, damage):
    text = toml_text(pinmap).encode()
    if damage:
        text = text[: len(noise) * 3] + noise + text[len(noise) * 3 :]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pinmap.toml"
        path.write_bytes(text)
        assert_clear(*run_main(capsys, ["selftest", "--backend", "sim", "--auto", "--pinmap", str(path)]))


CONFIG = st.dictionaries(
    st.sampled_from(["SECRET_KEY", "OPERATOR_PIN_HASH", "PIN_DELAY", "MAX_CONTENT_LENGTH", "lower", "OTHER"]),
    VALUES,
    max_size=4,
)


@settings(FUZZ, max_examples=25)
@given(CONFIG, st.binary(max_size=8), st.booleans())
def test_any_damaged_instance_config_is_a_clear_message_never_a_traceback(capsys, busy_port, config, noise, damage):
    text = toml_text(config).encode()
    if damage:
        text = noise + text
    with tempfile.TemporaryDirectory() as folder:
        import os

        os.environ["SENET_PI_INSTANCE"] = folder
        try:
            code, err = run_with_config(capsys, Path(folder), busy_port, text)
        finally:
            del os.environ["SENET_PI_INSTANCE"]
        assert_clear(code, err, codes=(1,))  # a sound config gets as far as the busy page port


def test_bad_input_a_huge_player_count_is_refused_at_once(tmp_path, capsys):
    args = ["run", "--backend", "sim", "--journal", str(tmp_path / "j.sqlite"), "--page-port", "0"]
    code, err = run_main(capsys, [*args, "--ruleset", "modern", "--players", "1000000000000"])
    assert code == 1
    assert "is for 2 or 3 or 4 players, not 1000000000000" in err
    assert_clear(code, err)
