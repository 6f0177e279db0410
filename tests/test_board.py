"""P1: the path, its rows and corners."""

import pytest

from senet_pi.rules import board


def test_P1_path_runs_1_to_30_with_off_as_31():
    assert list(board.SQUARES) == list(range(1, 31))
    assert board.square_name(31) == "off"
    assert board.square_name(12) == 12


@pytest.mark.parametrize(
    ("square", "row", "cell"),
    [(1, 1, (0, 0)), (10, 1, (0, 9)), (11, 2, (1, 9)), (20, 2, (1, 0)), (21, 3, (2, 0)), (30, 3, (2, 9))],
)
def test_P1_rows_snake_so_11_sits_under_10(square, row, cell):
    assert board.row_of(square) == row
    assert board.cell_of(square) == cell


def test_P1_corners():
    assert board.CORNERS == ((10, 11), (20, 21))
    for a, b in board.CORNERS:
        assert board.cell_of(a)[1] == board.cell_of(b)[1]


def test_row_of_rejects_squares_off_the_board():
    with pytest.raises(ValueError, match="not on the board"):
        board.row_of(31)


def test_runs_count_across_corners_for_protection():
    occupied = board.mask([10, 11])
    assert board.squares_in(board.runs_of_two(occupied)) == [10, 11]


def test_runs_of_three_in_a_row_only_vs_anywhere():
    corner = board.mask([10, 11, 12])
    assert board.runs_of_three(corner, board.RUN3_STARTS_IN_ROW) == 0
    assert board.squares_in(board.runs_of_three(corner, board.RUN3_STARTS_ANYWHERE)) == [10, 11, 12]
    four = board.mask([12, 13, 14, 15])
    assert board.squares_in(board.runs_of_three(four, board.RUN3_STARTS_IN_ROW)) == [12, 13, 14, 15]


def test_between_is_strict_and_symmetric():
    assert board.squares_in(board.between(10, 14)) == [11, 12, 13]
    assert board.between(14, 10) == board.between(10, 14)
    assert board.between(5, 6) == 0
