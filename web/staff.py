"""The staff page, behind the operator PIN: games per day, durations and warnings as plots, a table,
and the same numbers as CSV (`/staff/stats.csv`) and JSON (`/api/stats`); and the staff card
(`/staff/card`), one A5 page to print and leave by the table.

Everything is read from the journal on a read-only connection of its own (`senet_pi.service.stats`), so
a staff member looking at months of games never holds up the referee. These answers only read,
so they take no CSRF token: the session cookie (SameSite=Strict) is what signs a request in.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from flask import Blueprint, Response, current_app, jsonify, render_template, url_for
from markupsafe import Markup

from senet_pi import i18n
from senet_pi.errors import StatsError
from senet_pi.service.journal.aside import pending

from .errors import error, message_of
from .hands import reachable
from .i18n import language
from .operator import csrf_token
from .signin import guard, is_operator
from .state import services

if TYPE_CHECKING:  # the statistics (csv, statistics) are imported by the staff's requests, not by a visitor's
    from senet_pi.service.stats import DayStats

bp = Blueprint("staff", __name__)

PLOT_DAYS = 31  # the plots show the last month with games; the table and the CSV have every day

FINISHED, ABANDONED, OPEN = "#2e7d32", "#c62828", "#9e9e9e"


def _(msgid: str, /, **params: object) -> str:
    """`msgid` said in this request's language (the staff page is translated like every page)."""
    return i18n.gettext(msgid, language(), **params)


def minutes(seconds: float | None) -> str:
    """A duration for staff in their language: `12.5 min`, or `-` when there is none."""
    return "-" if seconds is None else _("{minutes} min", minutes=f"{seconds / 60:.1f}")


def _refused() -> str | None:
    """Why this session may not see the statistics, or None."""
    if not guard().pin_hash:
        return _("The statistics are for staff, and no operator PIN is set: set one with `senet-pi set-pin`.")
    if not is_operator():
        return _("The statistics are for staff: sign in with the operator PIN on the game page first.")
    return None


def _rows() -> list[DayStats] | str:
    """The journal's days, or why there are none to show (no journal, or one that cannot be read)."""
    service = services()[0]  # not `service, _`: `_` says the page's words here
    if service.journal is None:
        return _("This service keeps no journal.")
    from senet_pi.service.stats import day_stats

    try:
        return day_stats(service.journal)
    except StatsError as exc:  # its Text, said in the page's language
        return str(i18n.translate(message_of(exc), language()))


def plots(rows: list[DayStats]) -> list[Markup]:
    """The staff page's three charts for `rows` (their last PLOT_DAYS days)."""
    from senet_pi.service.stats import UNKNOWN_DAY

    from .plots import Series, bar_chart

    shown = rows[-PLOT_DAYS:]
    days = [_("date unknown") if r.date == UNKNOWN_DAY else r.date for r in shown]
    none, empty = _("none"), _("no games yet")
    return [
        bar_chart(
            "games-per-day",
            _("Games per day"),
            days,
            [
                Series(_("finished"), [r.finished for r in shown], FINISHED),
                Series(_("abandoned"), [r.abandoned for r in shown], ABANDONED),
                Series(_("still open"), [r.open for r in shown], OPEN),
            ],
            _("games started"),
            whole=True,
            none=none,
            empty=empty,
        ),
        bar_chart(
            "durations",
            _("Median length of a finished game"),
            days,
            [
                Series(
                    _("minutes"),
                    [None if r.median_duration_s is None else r.median_duration_s / 60 for r in shown],
                    "#1565c0",
                )
            ],
            _("minutes"),
            none=none,
            empty=empty,
        ),
        bar_chart(
            "warnings",
            _("Warnings per game (illegal moves, wrong boards)"),
            days,
            [Series(_("warnings per game"), [r.warnings_per_game for r in shown], "#ef6c00")],
            _("warnings per game"),
            none=none,
            empty=empty,
        ),
    ]


@bp.get("/staff")
def staff() -> str | tuple[str, int]:
    """The plots and the table; for a session not signed in, only why not (401)."""
    refused = _refused()
    if refused:
        return render_template("staff.html", refused=refused, csrf=csrf_token()), 401
    rows = _rows()
    if isinstance(rows, str):
        return render_template("staff.html", refused=rows, csrf=csrf_token()), 503
    from senet_pi.service.stats import UNKNOWN_DAY

    return render_template(
        "staff.html",
        rows=rows,
        plots=plots(rows),
        minutes=minutes,
        plot_days=PLOT_DAYS,
        unknown_day=UNKNOWN_DAY,
        set_aside=_set_aside(),
        csrf=csrf_token(),
    )


def _set_aside() -> list[str]:
    """The damaged journals set aside whose games are not back yet: history out of service."""
    journal = services()[0].journal
    return [] if journal is None else [str(e["aside"]) for e in pending(journal.path)]


def _rows_for_api() -> list[DayStats] | tuple[Response, int]:
    """The days for a signed-in operator, or the JSON error saying why not (401/403, or 503)."""
    refused = _refused()
    if refused:
        return error(401 if guard().pin_hash else 403, refused)
    rows = _rows()
    if isinstance(rows, str):
        return error(503, rows)
    return rows


@bp.get("/staff/stats.csv")
def stats_csv() -> Response | tuple[Response, int]:
    """Every day as CSV, as a download (for a spreadsheet)."""
    rows = _rows_for_api()
    if not isinstance(rows, list):
        return rows
    from senet_pi.service.stats import to_csv

    return Response(
        to_csv(rows),
        mimetype="text/csv",
        headers={"Content-Disposition": 'attachment; filename="senet-pi-stats.csv"'},
    )


@bp.get("/api/stats")
def stats_json() -> Response | tuple[Response, int]:
    """Every day as JSON: {"days": [{"date": ..., "started": ..., ...}]}."""
    rows = _rows_for_api()
    if not isinstance(rows, list):
        return rows
    return jsonify({"days": [asdict(r) for r in rows]})


@bp.get("/staff/card")
def card() -> str | tuple[str, int]:
    """The staff card: this board's address and its QR code, what the screen's colours mean, what to
    do when something is wrong and whom to call (STAFF_CONTACT), as one A5 page to print."""
    import segno  # here, not at import: its QR tables are for this page and /hands only

    refused = _refused()
    if refused:
        return render_template("staff.html", refused=refused, csrf=csrf_token()), 401
    address = reachable(url_for("pages.index", _external=True))
    return render_template(
        "staff_card.html",
        address=address,
        qr=Markup(segno.make(address, error="m").svg_inline(scale=4)),
        contact=current_app.config.get("STAFF_CONTACT"),
        seconds=round(float(current_app.config["QUESTION_SECONDS"])),
        csrf=csrf_token(),
    )
