"""The solved endgames: the solver's moves are the engine's, tiny tables equal a brute-force
search through the engine, the residual and the colour symmetry hold, and tables are found or built."""

from __future__ import annotations

import random

import numpy as np
import pytest
from opponent_helpers import exact_values, game_at

from senet_pi.opponent.index import RESTING, group_cells, group_size, local_index
from senet_pi.opponent.solve import TOLERANCE
from senet_pi.opponent.tables import Table, Tables, build_table, position_index, table_dir, table_path
from senet_pi.opponent.vector import RuleData, generate
from senet_pi.rules import HousesGame, SecretGame, new_game
from senet_pi.rules.board import squares_in

KINDS = [(SecretGame, "sticks"), (SecretGame, "d6"), (HousesGame, "sticks")]


def _options(cls, throws):
    return {"throws": throws} if "throws" in cls.option_defaults() else {}


def _engine_moves(game, p):
    """Each legal move -> (mover's mask, other's mask, mover throws again, mover won) after it, by the engine."""
    out = {}
    for m in game.legal_moves():
        game.push(m)
        again = game.to_move == p and not game.is_over
        out[(m.from_sq, m.to_sq)] = (game.occ[p], game.occ[1 - p], again, game.is_over)
        game.pop()
    return out


@pytest.mark.parametrize(("cls", "throws"), KINDS)
def test_solver_successors_equal_the_engines_legal_moves(cls, throws):
    """Random positions of random games (up to five pieces a side): the same moves, the same positions after
    them, the same bonus throws and the same forfeits; the sample must include exchanges (P4), drowning or
    reincarnation (S7/H6), forfeits (P7), and in `secret` backward moves (S12) and a bear-off refused by S11."""
    rd = RuleData.of(cls, throws)
    rng = random.Random(23)
    seen = {"exchange": 0, "water": 0, "forfeit": 0, "backward": 0, "s11": 0, "bonus": 0}
    for _ in range(25):
        game = cls(options=_options(cls, throws))
        while not game.is_over:
            t = game.random_throw(rng)
            p = game.to_move
            me, op = game.occ[p], game.occ[1 - p]
            game.push_throw(t)
            if not game.opening:
                mv = generate(rd, np.array([me]), np.array([op]), np.array([squares_in(me)]), t)
                got = {}
                for j in range(mv.legal.shape[1]):
                    if mv.legal[0, j]:
                        won = bool(mv.off[0, j]) and int(mv.me[0, j]) == 0
                        key = (int(mv.src[0, j]), int(mv.dst[0, j]))
                        got[key] = (int(mv.me[0, j]), int(mv.op[0, j]), bool(mv.bonus[0, j]) and not won, won)
                        seen["exchange"] += int(mv.op[0, j]) != op
                        seen["water"] += key[1] == rd.water
                        seen["backward"] += key[1] < key[0]
                        seen["bonus"] += bool(mv.bonus[0, j])
                if game.pending is None:
                    seen["forfeit"] += 1
                    assert got == {}
                else:
                    assert got == _engine_moves(game, p), (game, t)
                if rd.top_row_gate and me & 0x7FE and any(sq + t == 31 for sq in squares_in(me)):
                    seen["s11"] += 1
            moves = game.legal_moves()
            if moves:
                game.push(moves[rng.randrange(len(moves))])
    needed = ["exchange", "water", "forfeit", "bonus"] + (["backward", "s11"] if rd.backward else [])
    assert all(seen[k] > 0 for k in needed), seen


def test_index_names_every_position_of_a_group_once():
    for a, b in [(1, 1), (2, 1), (1, 3), (2, 2)]:
        me, op = group_cells(a, b)
        assert (local_index(me, op) == np.arange(group_size(a, b))).all()
        squares = [(RESTING[m].tolist(), RESTING[o].tolist()) for m, o in zip(me[:50], op[:50], strict=True)]
        assert [position_index(m, o) for m, o in squares] == list(range(50))


def _brute_force(cls, throws):
    """Every 1-against-1 position's value by plain value iteration over the engine's own moves."""
    odds = [(t, float(p)) for t, p in cls(options=_options(cls, throws)).throw_kind.odds().items()]
    squares = [*range(1, 27), 28, 29, 30]
    states = [(m, o) for m in squares for o in squares if m != o]
    links = {}
    for m, o in states:
        per_throw = []
        for t, p in odds:
            game = cls(
                options=_options(cls, throws), position={"A": [m], "B": [o], "off": {"A": 4, "B": 4}, "to_move": "A"}
            )
            game.push_throw(t)
            options = []
            if game.pending is None:  # P7: forfeited
                options.append(("same" if game.to_move == 0 else "other", (m, o) if game.to_move == 0 else (o, m)))
            for move in game.legal_moves():
                game.push(move)
                if game.is_over:
                    options.append(("win", None))
                else:
                    a, b = squares_in(game.occ[0])[0], squares_in(game.occ[1])[0]
                    options.append(("same", (a, b)) if game.to_move == 0 else ("other", (b, a)))
                game.pop()
            per_throw.append((p, options))
        links[(m, o)] = per_throw
    v = dict.fromkeys(states, 0.5)
    for _ in range(5000):
        change = 0.0
        for s in states:
            new = 0.0
            for p, options in links[s]:
                best = max(1.0 if k == "win" else v[x] if k == "same" else 1.0 - v[x] for k, x in options)
                new += p * best
            change = max(change, abs(new - v[s]))
            v[s] = new
        if change < 1e-12:
            break
    return v


@pytest.mark.parametrize(("cls", "throws"), KINDS)
def test_tiny_tables_equal_a_brute_force_search_through_the_engine(tmp_path, cls, throws):
    table = build_table(cls, throws, max_pieces=1, folder=tmp_path)
    assert table.header["residual"] < TOLERANCE
    exact = _brute_force(cls, throws)
    worst = max(abs(table.value(1 << m, 1 << o) - v) for (m, o), v in exact.items())
    assert worst < 1e-4  # 16-bit values: 1/65535 apart


def _engine_bellman(table, game):
    """T(V) of the position `game` (to throw) from the table's values of what each move leads to, by the engine."""
    total = again = 0.0
    for t, p in game.throw_kind.odds().items():
        game.push_throw(t)
        if game.pending is None:  # P7: forfeited, the same side throws again or the turn passes
            me, op = game.occ[game.to_move], game.occ[1 - game.to_move]
            if game.to_move == 0:
                again += float(p)
            else:
                total += float(p) * (1.0 - table.value(me, op))
        else:
            best = 0.0
            for m in game.legal_moves():
                game.push(m)
                me, op = game.occ[game.to_move], game.occ[1 - game.to_move]
                w = 1.0 if game.is_over else table.value(me, op) if game.to_move == 0 else 1.0 - table.value(me, op)
                best = max(best, w)
                game.pop()
            total += float(p) * best
        game.pop()
    return total / (1.0 - again)


@pytest.mark.parametrize(("cls", "throws"), KINDS)
def test_two_piece_tables_hold_the_engines_bellman_values(tmp_path, cls, throws):
    """Four groups (2 v 2 in two chunks, 2 v 1, 1 v 2, 1 v 1), each kept in its own sweep order while solving and
    put back in index order after: each value is the Bellman update of its successors' values through the engine's
    own moves, to the 16-bit rounding (a value put back at the wrong position would be far off)."""
    table = build_table(cls, throws, max_pieces=2, folder=tmp_path)
    rng = random.Random(5)
    squares = [*range(1, 27), 28, 29, 30]
    worst = 0.0
    for a, b in [(2, 2)] * 60 + [(2, 1), (1, 2), (1, 1)] * 20:
        cells = rng.sample(squares, a + b)
        game = game_at(cls, throws, sorted(cells[:a]), sorted(cells[a:]))
        worst = max(worst, abs(_engine_bellman(table, game) - table.value(game.occ[0], game.occ[1])))
    assert worst < 2e-5  # each value within 0.5/65535 of the solver's, which is within 1e-9 of its update


def test_two_piece_tables_equal_a_brute_force_search_through_the_engine(tmp_path):
    """In houses (no backward moves: few positions reachable from late ones), every position reachable from two
    2 v 2 positions near the end has the brute force's value."""
    table = build_table(HousesGame, "sticks", max_pieces=2, folder=tmp_path)
    exact = exact_values(HousesGame, "sticks", [((26, 29), (22, 28)), ((21, 30), (25, 26))])
    assert {(len(m), len(o)) for m, o in exact} == {(2, 2), (2, 1), (1, 2), (1, 1)}
    worst = max(abs(table.value(sum(1 << q for q in m), sum(1 << q for q in o)) - v) for (m, o), v in exact.items())
    assert worst < 1e-4  # 16-bit values: 1/65535 apart


def test_a_table_is_read_through_a_memory_map_and_holds_no_keys(tmp_path):
    table = build_table(SecretGame, "sticks", max_pieces=1, folder=tmp_path)
    assert isinstance(table.values, np.memmap)
    assert table.values.dtype == np.dtype("<u2")
    assert len(table.values) == group_size(1, 1)
    assert Table(table.path).value(1 << 30, 1 << 2) == table.value(1 << 30, 1 << 2)


def test_the_same_position_with_the_colours_swapped_has_the_same_chance(tmp_path):
    Tables(tmp_path).for_game(SecretGame(), 1)
    tables = Tables(tmp_path, build=False)
    for a, b in [(24, 30), (5, 26), (28, 12)]:
        ga = SecretGame(position={"A": [a], "B": [b], "to_move": "A"})
        gb = SecretGame(position={"A": [b], "B": [a], "to_move": "B"})
        va, vb = tables.exact(ga), tables.exact(gb)
        assert va is not None
        assert va == vb


def test_a_missing_table_is_built_when_a_position_needs_it(tmp_path, capsys):
    import io

    stream = io.StringIO()
    tables = Tables(tmp_path, stream=stream)
    game = HousesGame(position={"A": [29], "B": [3], "to_move": "B"})
    v = tables.exact(game)
    assert v is not None
    assert 0 < v < 1
    assert table_path("houses", "sticks", tmp_path).exists()
    assert "solving houses (sticks) endgames" in stream.getvalue()
    assert "%" in stream.getvalue()


def test_the_tables_folder_follows_the_override_then_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("SENET_PI_TABLES", str(tmp_path / "t"))
    assert table_dir() == tmp_path / "t"
    monkeypatch.delenv("SENET_PI_TABLES")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert table_dir() == tmp_path / "c" / "senet-pi" / "tables"


def test_positions_beyond_three_pieces_or_other_rule_sets_have_no_exact_value(tmp_path):
    tables = Tables(tmp_path, build=False)
    assert tables.exact(new_game("secret")) is None
    assert tables.exact(new_game("modern")) is None


def test_the_table_benchmark_reports_any_cache_state(tmp_path):
    """A table built for fewer pieces, one left unreadable and one missing: a row each, no crash."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_opponent.py"
    spec = importlib.util.spec_from_file_location("bench_opponent", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    build_table(SecretGame, "sticks", max_pieces=1, folder=tmp_path)
    table_path("secret", "d6", tmp_path).write_bytes(b"half a table")
    rows = bench.table_rows(Tables(tmp_path, build=False), samples=20)
    assert len(rows) == 3
    assert "only 1 a side" in rows[0]
    assert "e-" in rows[0]  # its Bellman check ran on what it covers
    assert "unreadable" in rows[1]
    assert "not built" in rows[2]


def test_solve_refuses_cards_in_one_line_and_builds_nothing(tmp_path, capsys):
    """Cards move by cards, not throws: no table is built for them (a stick table would be wrong there)."""
    from senet_pi.cli.command import main

    code = main(["solve", "cards", "--tables", str(tmp_path / "t")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1
    assert "cards has no solved endgames (only secret, houses)" in err
    assert not (tmp_path / "t").exists()


def test_moves_kept_in_a_scratch_file_give_the_same_table_and_leave_nothing_behind(tmp_path, monkeypatch):
    """A large group's moves go to a scratch file on the table's disk (so a 3-piece build stays under
    400 MB); read back a chunk at a time they give exactly the values kept in memory give."""
    import tempfile

    from senet_pi.opponent import solve

    memory = build_table(SecretGame, "d6", max_pieces=2, folder=tmp_path / "memory")
    opened = []
    real = tempfile.TemporaryFile

    def scratch_file(dir=None):
        opened.append(dir)
        return real(dir=dir)

    monkeypatch.setattr(solve, "IN_MEMORY", 0)
    monkeypatch.setattr(solve.tempfile, "TemporaryFile", scratch_file)
    on_disk = build_table(SecretGame, "d6", max_pieces=2, folder=tmp_path / "disk")
    assert opened
    assert all(d == tmp_path / "disk" for d in opened)
    assert (np.asarray(on_disk.values) == np.asarray(memory.values)).all()
    assert on_disk.header["residual"] < TOLERANCE
    assert [p.name for p in (tmp_path / "disk").iterdir()] == ["secret-d6.table"]
