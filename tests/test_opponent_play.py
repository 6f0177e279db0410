"""The computer opponent: only legal moves, the same seed plays the same game, the node budget
is kept, only-moves and forced wins are found in small hand-made positions, and `senet-pi hint` follows
../shared/spec/opponent.md."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from opponent_helpers import exact_values, game_at, move_values, small_tables

from senet_pi.cli.command import main
from senet_pi.opponent import search
from senet_pi.opponent.evaluate import fitted_chance
from senet_pi.opponent.fast_search import FastSearch, searcher
from senet_pi.opponent.light import light_copy
from senet_pi.opponent.players import BASELINES, LEVELS, Computer, find_player
from senet_pi.opponent.search import Search
from senet_pi.opponent.tables import Tables, build_table
from senet_pi.opponent.tournament import ladder, wilson
from senet_pi.rules import CardsGame, HousesGame, SecretGame, new_game
from senet_pi.service import hint
from senet_pi.service.hint import Hinter


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Tables of one piece a side (tiny, built in a blink) for secret and houses."""
    return small_tables(tmp_path_factory.mktemp("tables"), 1)


def _play(game, players, seed, decisions):
    """Up to `decisions` decisions with seeded throws; every move checked against the legal moves first."""
    rng = random.Random(seed)
    made = 0
    while not game.is_over and made < decisions:
        player = players[game.to_move]
        if game.turn_starts_with == "card":
            before = game.to_move
            player.card_turn(game)
            assert game.to_move != before or game.is_over or game.phase == "play"
            made += 1
            continue
        game.push_throw(game.random_throw(rng))
        while game.pending is not None and not game.is_over:
            move = player.choose(game)
            assert move in game.legal_moves()
            game.push(move)
            made += 1
    return game.actions


@pytest.mark.parametrize("level", [*LEVELS.values(), *BASELINES.values()], ids=lambda lv: lv.name)
@pytest.mark.parametrize("ruleset", ["secret", "houses"])
def test_every_level_plays_only_legal_moves(folder, ruleset, level):
    game = new_game(ruleset)
    players = [Computer(level, Tables(folder, build=False), 1), Computer(BASELINES["greedy"], None, 2)]
    _play(game, players, 7, 40 if level.depth < 2 else 12)


@pytest.mark.parametrize(("ruleset", "count"), [("modern", 2), ("modern", 3), ("cards", 2)])
def test_modern_and_cards_get_legal_moves_too(ruleset, count):
    game = new_game(ruleset, count, new_game(ruleset).seeded_options(4) or None)
    players = [Computer(LEVELS[3 if ruleset == "cards" else 2], None, seat) for seat in range(count)]
    _play(game, players, 3, 12)


def test_the_card_player_never_reads_a_hand_it_may_not_see():
    """K10: the same visible cards with the other hand dealt differently give the same choice."""
    game = new_game("cards", 2, new_game("cards").seeded_options(11))
    other = game.copy()
    other.redeal_unseen(game.to_move_id, random.Random(99))
    assert other.hand(game.to_move_id) == game.hand(game.to_move_id)
    theirs = game.player_ids[1 - game.to_move]
    assert sorted(other.hand(theirs)) != sorted(game.hand(theirs))  # the hidden hand was dealt anew
    a, b = Computer(LEVELS[3], None, 5), Computer(LEVELS[3], None, 5)
    a.card_turn(game)
    b.card_turn(other)
    assert game.actions[0] == other.actions[0]


@pytest.mark.parametrize("level", [LEVELS[1], LEVELS[3]], ids=lambda lv: lv.name)
def test_the_same_seed_plays_the_same_game(folder, level):
    def once():
        players = [Computer(level, Tables(folder, build=False), 3), Computer(LEVELS[1], None, 4)]
        return _play(new_game("secret"), players, 11, 30)

    assert once() == once()


@pytest.mark.parametrize(("ruleset", "budget"), [("secret", 300), ("houses", 1000), ("modern", 400)])
def test_the_node_budget_is_kept(ruleset, budget):
    rng = random.Random(5)
    game = new_game(ruleset)
    checked = 0
    while not game.is_over and checked < 15:
        game.push_throw(game.random_throw(rng))
        while game.pending is not None and not game.is_over:
            moves = game.legal_moves()
            if len(moves) > 1:
                search = Search(game.copy(history=False), Computer(LEVELS[2]).evaluator, budget)
                values, stats = search.deepen(6)
                assert stats.nodes <= budget
                assert sorted(map(str, moves)) == sorted(str(m) for m, _ in values)
                checked += 1
            game.push(moves[rng.randrange(len(moves))])
    assert checked == 15


ONLY_MOVES = [  # (rule set, mover's squares, other side's squares, throw): one move clearly best by brute force
    (SecretGame, (28, 30), (23,), 1),
    (HousesGame, (26, 30), (23,), 1),  # 26-27 drowns (H6)
    (HousesGame, (26, 29), (22,), 2),  # bearing off from 29 is worse than 26-28 and its bonus throw (H7)
]


@pytest.mark.parametrize(("cls", "me", "op", "throw"), ONLY_MOVES)
def test_the_searching_level_finds_only_moves_that_brute_force_confirms(folder, cls, me, op, throw):
    truth = move_values(cls, "sticks", me, op, throw, exact_values(cls, "sticks", [(me, op)]))
    ranked = sorted(truth, key=truth.get, reverse=True)
    assert truth[ranked[0]] - truth[ranked[1]] > 0.1  # the position is what the test says it is
    # level 3, and the same search two throws deep (the dropped level 4; pip3 searches as deep)
    for level in (LEVELS[3], replace(LEVELS[3], depth=2, budget=20_000)):
        game = game_at(cls, "sticks", me, op)
        game.push_throw(throw)
        assert str(Computer(level, Tables(folder, build=False)).choose(game)) == ranked[0]


@pytest.mark.parametrize("level", [2, 3])
def test_a_forced_win_is_found(level):
    """M10: the third piece up ends the game; going up with the 5-dot piece wins at once (25 + 6 = off)."""
    game = new_game(
        "modern",
        position={
            "A": {"5": 25, "4": 10, "1": 12},
            "B": {"5": 20, "4": 2, "3": 4},
            "up": {"A": [3, 2]},
            "to_move": "A",
        },
    )
    game.push_throw((2, 4))
    player = Computer(LEVELS[level])
    while not game.is_over and game.to_move == 0 and game.pending is not None:
        game.push(player.choose(game))
    assert game.winner_id == "A"


def test_the_default_ladder_plays_neighbouring_levels_and_the_top_level_against_each_baseline():
    assert [(find_player(a).name, find_player(b).name) for a, b in ladder()] == [
        ("club", "beginner"),
        ("expert", "club"),
        ("master", "expert"),
        ("master", "random"),
        ("master", "greedy"),
        ("master", "pip3"),
    ]


def test_wilson_interval_of_a_known_case():
    lo, hi = wilson(60, 100)
    assert round(lo, 3) == 0.502
    assert round(hi, 3) == 0.691


# ---------------------------------------------------------------------- senet-pi hint


def _hint(tmp_path, folder, replay, capsys):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(replay))
    code = main(["hint", str(path), "--tables", str(folder)])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def test_hint_without_a_throw_waiting_is_the_exact_chance(tmp_path, folder, capsys):
    truth = exact_values(SecretGame, "sticks", [((24,), (30,))])
    replay = {"variant": "secret", "position": {"A": [24], "B": [30], "to_move": "A"}, "events": []}
    code, out, _ = _hint(tmp_path, folder, replay, capsys)
    assert code == 0
    assert set(out) == {"player", "win"}
    assert out["player"] == "A"
    assert abs(out["win"] - truth[((24,), (30,))]) < 0.001


def test_hint_with_a_throw_waiting_lists_every_legal_move_best_first(tmp_path, folder, capsys):
    replay = {"variant": "houses", "position": {"A": [12], "B": [20], "to_move": "B"}, "events": [{"throw": 4}]}
    code, out, _ = _hint(tmp_path, folder, replay, capsys)
    truth = exact_values(HousesGame, "sticks", [((20,), (12,))])
    expected = move_values(HousesGame, "sticks", (20,), (12,), 4, truth)
    assert code == 0
    assert out["player"] == "B"
    assert out["throw"] == 4
    assert "exact" not in out
    assert [m["move"] for m in out["moves"]] == list(expected)
    assert abs(out["moves"][0]["win"] - expected["20-24"]) < 0.001
    assert out["win"] == out["moves"][0]["win"]


def test_hint_in_a_d6_game_is_exact_from_the_d6_table(tmp_path, capsys):
    """`secret` with the die (S1's d6 option) has a table of its own: two pieces against one, a 2 to
    play, each move's chance equals a brute-force search through the engine with the die's odds."""
    folder = tmp_path / "tables"
    build_table(SecretGame, "d6", max_pieces=2, folder=folder)
    me, op = (24, 28), (22,)
    replay = {
        "variant": "secret",
        "options": {"throws": "d6"},
        "position": {"A": list(me), "B": list(op), "to_move": "A"},
        "events": [{"throw": 2}],
    }
    code, out, _ = _hint(tmp_path, folder, replay, capsys)
    expected = move_values(SecretGame, "d6", me, op, 2, exact_values(SecretGame, "d6", [(me, op)]))
    assert code == 0
    assert out["player"] == "A"
    assert out["throw"] == 2
    assert "exact" not in out
    assert [m["move"] for m in out["moves"]] == sorted(expected, key=expected.get, reverse=True)
    assert all(abs(m["win"] - expected[m["move"]]) < 0.001 for m in out["moves"])
    assert not (folder / "secret-sticks.table").exists()  # the die's values, not the sticks'


def test_hint_after_a_forfeited_throw_lists_no_move(tmp_path, folder, capsys):
    """P7 with a bonus throw (H1: 1): no move from 28 with a 1 (H7); A throws again."""
    replay = {"variant": "houses", "position": {"A": [28], "B": [3], "to_move": "A"}, "events": [{"throw": 1}]}
    code, out, _ = _hint(tmp_path, folder, replay, capsys)
    truth = exact_values(HousesGame, "sticks", [((28,), (3,))])
    assert code == 0
    assert out["player"] == "A"
    assert out["throw"] == 1
    assert out["moves"] == []
    assert abs(out["win"] - truth[((28,), (3,))]) < 0.001


def test_hint_outside_the_tables_says_it_is_not_exact(tmp_path, folder, capsys):
    code, out, _ = _hint(tmp_path, folder, {"variant": "modern", "events": [{"throw": [3, 5]}]}, capsys)
    assert code == 0
    assert out["exact"] is False
    assert out["player"] == "A"
    assert out["moves"]
    assert out["win"] == max(m["win"] for m in out["moves"])


def test_a_cards_hint_is_an_estimate_and_reads_no_table_built_for_throws(tmp_path, folder, capsys):
    """Cards are not stick throws: with one piece a side (where the houses sticks table has a value) a
    `cards` hint is marked `"exact": false`, and no table is built or read for it."""
    position = {"A": [24], "B": [30], "off": {"A": 4, "B": 4}, "to_move": "A"}
    cards = CardsGame(options=CardsGame.seeded_options(3), position=position)
    houses = HousesGame(position=position)
    assert Tables(folder, build=False).exact(houses) is not None
    assert Tables(folder, build=False).exact(cards) is None
    fresh = tmp_path / "fresh"
    assert Tables(fresh).for_game(cards, 3) is None
    assert not fresh.exists()  # nothing built for cards
    replay = {"variant": "cards", "options": CardsGame.seeded_options(3), "position": position, "events": []}
    code, out, _ = _hint(tmp_path, folder, replay, capsys)
    assert code == 0
    assert out["player"] == "A"
    assert out["exact"] is False
    assert 0.0 <= out["win"] <= 1.0


@pytest.mark.parametrize(
    ("replay", "words"),
    [
        ({"variant": "secret", "position": {"A": [], "B": [3], "off": {"A": 5, "B": 4}}, "events": []}, "over"),
        ({"variant": "secret", "events": [{"throw": 5}]}, "throw"),
        ({"variant": "chess", "events": []}, "variant"),
    ],
)
def test_hint_refuses_a_game_that_is_over_or_a_bad_file_in_one_line(tmp_path, folder, capsys, replay, words):
    code, _, err = _hint(tmp_path, folder, replay, capsys)
    assert code == 1
    assert err.count("\n") == 1
    assert words in err
    assert "Traceback" not in err


# ---------------------------------------------------------------------- senet-pi tournament


def test_a_tournament_prints_win_rates_with_wilson_intervals(tmp_path, capsys):
    code = main(["tournament", "1", "random", "--ruleset", "modern", "--games", "4", "--tables", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "beginner v random (modern, 4 games): beginner wins" in out
    assert "95 % CI" in out
    assert "chance lost per decision in solved endgames no decisions" in out  # modern has no tables


@pytest.mark.parametrize(
    ("args", "words"), [(["--games", "3"], "even"), (["nobody"], "no player"), (["5", "random"], "a level 1-4")]
)
def test_a_tournament_refuses_bad_arguments_in_one_line(tmp_path, capsys, args, words):
    code = main(["tournament", "--ruleset", "modern", "--tables", str(tmp_path), *args])
    err = capsys.readouterr().err
    assert code == 1
    assert words in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("ruleset", ["secret", "houses"])
def test_every_level_keeps_its_node_budget_in_play(folder, ruleset):
    """The levels a person chooses are bounded in nodes, so a seed replays them on any machine."""
    rng = random.Random(8)
    game = new_game(ruleset)
    tables = Tables(folder, build=False)
    players = {n: Computer(level, tables, n) for n, level in LEVELS.items()}
    checked = 0
    while not game.is_over and checked < 12:
        game.push_throw(game.random_throw(rng))
        while game.pending is not None and not game.is_over:
            moves = game.legal_moves()
            for n, player in players.items():
                move = player.choose(game)
                assert move in moves
                assert player.last.nodes <= LEVELS[n].budget
            checked += len(moves) > 1
            game.push(moves[rng.randrange(len(moves))])
    assert checked == 12


def _midgame(ruleset, seed=4, plies=30):
    """A position some way into a seeded random game, with a throw waiting and at least two legal moves."""
    rng = random.Random(seed)
    game = new_game(ruleset)
    made = 0
    while True:
        game.push_throw(game.random_throw(rng))
        while game.pending is not None and not game.is_over:
            moves = game.legal_moves()
            if made >= plies and len(moves) > 1:
                return game
            game.push(moves[rng.randrange(len(moves))])
            made += 1


@pytest.mark.parametrize("ruleset", ["secret", "houses"])
def test_the_master_spends_its_node_budget_and_replays_the_same_choice(folder, ruleset):
    """Beyond the tables the master deepens while its nodes last: far past the expert's one throw, never
    past its budget, and the same position gives the same move and the same count (no clock involved)."""
    game = _midgame(ruleset)
    tables = Tables(folder, build=False)
    master, expert = Computer(LEVELS[4], tables, 1), Computer(LEVELS[3], tables, 1)
    move = master.choose(game)
    expert.choose(game)
    assert master.last.depth >= 2
    assert master.last.depth > expert.last.depth
    assert 10 * expert.last.nodes < master.last.nodes <= LEVELS[4].budget
    again = Computer(LEVELS[4], tables, 1)
    assert again.choose(game) == move
    assert again.last.nodes == master.last.nodes


@pytest.mark.parametrize(("ruleset", "seed"), [("secret", 4), ("houses", 4), ("houses", 5)])
def test_the_master_starts_no_depth_it_cannot_finish_and_chooses_as_if_it_had_tried(folder, ruleset, seed, monkeypatch):
    """A search one throw deeper costs 10-15 times the last: the master foresees it and does not start
    one that would run out of nodes and be thrown away, so it spends less and chooses the same."""
    game = _midgame(ruleset, seed)
    tables = Tables(folder, build=False)
    master = Computer(LEVELS[4], tables, 1)
    move = master.choose(game)
    foreseeing = master.last
    monkeypatch.setattr(search, "FORESEEN_FROM", 99)  # every depth tried until the nodes run out
    trying = Computer(LEVELS[4], tables, 1)
    assert trying.choose(game) == move
    assert trying.last.depth == foreseeing.depth
    assert trying.last.values == foreseeing.values
    assert trying.last.nodes == LEVELS[4].budget
    assert foreseeing.nodes < LEVELS[4].budget


@pytest.mark.parametrize(("ruleset", "seed"), [("secret", 4), ("houses", 5)])
def test_a_hint_before_the_throw_starts_no_depth_it_cannot_finish_and_says_the_same(folder, ruleset, seed, monkeypatch):
    """The chance before a throw is deepened as the master deepens its moves: a throw it foresees it
    could not finish is not started, so it spends less of the budget and the chance is the same."""
    game = _midgame(ruleset, seed)
    game.push(game.legal_moves()[0])
    while game.pending is not None and not game.is_over:
        game.push(game.legal_moves()[0])
    assert game.turn_starts_with == "throw"
    assert not game.is_over
    tables = Tables(folder, build=False)
    master = Computer(LEVELS[4], tables)
    level = LEVELS[4]

    def searched():
        s = Search(light_copy(game), master.evaluator, level.budget, level.star2, tables.exact)
        return s.deepen_chance(level.depth, -1.0), s.nodes

    made = []

    def kept(*args):
        made.append(searcher(*args))
        return made[-1]

    foreseen, spent = searched()
    monkeypatch.setattr(hint, "searcher", kept)
    hinted, exact = Hinter(tables).chance(game, game.to_move)
    assert [s.nodes for s in made] == [spent]  # the hint searched once and spent what foresight spends
    assert isinstance(made[0], FastSearch)  # on the rules' fast path, walking source masks
    monkeypatch.setattr(search, "FORESEEN_FROM", 99)  # every depth tried until the nodes run out
    tried, spent_trying = searched()
    assert not exact
    assert hinted == foreseen == tried
    assert 0.0 < foreseen < 1.0
    assert spent < spent_trying == level.budget


def test_the_master_stops_at_once_where_the_tables_settle_every_move(folder):
    """One piece a side (in the tables): every move's value is exact after it, so the master searches no
    deeper, and its values are the brute force's."""
    me, op = (24,), (20,)
    truth = move_values(SecretGame, "sticks", me, op, 2, exact_values(SecretGame, "sticks", [(me, op)]))
    game = game_at(SecretGame, "sticks", me, op)
    game.push_throw(2)
    scored, stats = Computer(LEVELS[4], Tables(folder, build=False)).values(game)
    assert stats.depth == 0
    assert stats.nodes == len(truth) == len(scored)
    assert all(abs(v - truth[str(m)]) < 0.001 for m, v in scored)


@pytest.mark.parametrize("cls", [SecretGame, HousesGame])
def test_the_club_judges_endgames_by_its_evaluation_and_the_expert_by_the_tables(folder, cls):
    """The club reads no tables, so it is a rung below the expert in every rule set (reading them, it played
    the expert's endgames and the two were not separated); the expert's values there are the brute force's."""
    me, op = (24,), (20,)
    truth = move_values(cls, "sticks", me, op, 2, exact_values(cls, "sticks", [(me, op)]))
    game = game_at(cls, "sticks", me, op)
    game.push_throw(2)
    tables = Tables(folder, build=False)
    expert, _ = Computer(LEVELS[3], tables).values(game)
    assert all(abs(v - truth[str(m)]) < 0.001 for m, v in expert)
    club, _ = Computer(LEVELS[2], tables).values(game)
    guesses = {}
    for move in game.legal_moves():
        game.push(move)
        guesses[str(move)] = 1.0 if game.is_over else fitted_chance(game)[0]
        game.pop()
    assert all(abs(v - guesses[str(m)]) < 1e-9 for m, v in club)
    assert max(abs(v - truth[str(m)]) for m, v in club) > 0.01  # a guess, not the table's value
