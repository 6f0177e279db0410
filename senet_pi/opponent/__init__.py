"""The computer opponent: solved endgame tables, an expectimax search, levels and tournaments.

It may import the rules and `errors` only (the rules through `Game`), never the referee or the
service: the service hands it a game. Nothing here does I/O but `tables` (the table files) and
`tournament`'s printing.
"""
