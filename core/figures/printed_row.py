"""A printed table row as its cells, with a figure glued to its "% change" column split off.

Some filings print the change beside the last year's figure in one cell of the extracted
row ("Revenue | $26,974 | $26,914 —%", "Net income | $4,368 | $9,752 Down 55%",
"Graphics | 11,906 | 15,868 | (3,962) (25)%"). Quoted as it stands, the value reads as
"$26,914 —%". ``cells`` splits such a cell in two: the figure, then the change ("—%",
"Down 55%", "(25)%", "8.0 pts"); ``quoted`` writes the row back with the cells apart.
"""

from __future__ import annotations

import re

_FIGURE = r"\(?[-–]?\s*[$€£]?\s*\(?[-–]?\d[\d,]*(?:\.\d+)?\)?\s*%?\)?"
_CHANGE = (r"(?:(?:up|down|increase|decrease|increased|decreased)\s+)?"
           r"(?:[-–—]\s*%|\(?[-–+]?\d[\d,]*(?:\.\d+)?\)?\s*(?:%|pts?\b|bps\b|basis\s+points\b)"
           r"|n/?m\b|nm\b)")
_GLUED = re.compile(rf"^(?P<figure>{_FIGURE})\s+(?P<change>{_CHANGE})$", re.IGNORECASE)
_HEAD = re.compile(r"^(?P<head>.*[^\s$%])\s+(?P<change>(?:[$%]\s*)?(?:change|chg\.?))$",
                   re.IGNORECASE)


def split_cell(cell: str) -> list[str]:
    """``cell`` as one or two cells: a figure and its glued change column apart."""
    m = _GLUED.match(cell.strip())
    if m and re.search(r"\d", m.group("figure")):
        return [m.group("figure").strip(), m.group("change").strip()]
    return [cell.strip()]


def split_heading(cell: str) -> list[str]:
    """A heading cell with 'Change' columns glued on ("January 30, 2022 Change",
    "$ Change % Change") split: ["January 30, 2022", "Change"], ["$ Change", "% Change"]."""
    out: list[str] = []
    rest = cell.strip()
    while m := _HEAD.match(rest):
        out.insert(0, m.group("change"))
        rest = m.group("head").strip()
    return [rest, *out] if rest else out or [""]


def cells(row: str) -> list[str]:
    """The cells of a printed row (" | "-joined), glued change columns split off."""
    return [part for cell in row.split("|") for part in split_cell(cell)]


def quoted(row: str) -> str:
    """The row as quoted in an answer or a work table: cells joined by " | "."""
    return " | ".join(c for c in cells(row) if c)
