"""The computer opponent: solved endgame tables, an expectimax search, levels, hints and tournaments.

Nothing here does I/O but `tables` (the table files) and `tournament`'s printing; the rules
are used only through `Game`.
"""
