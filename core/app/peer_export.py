"""The peer grid as rows (the table on screen and in exports) and as CSV and Excel files.

    grid_rows(grid)      # one row per company and fiscal year, one column per metric
    source_rows(grid)    # one row per fact behind a cell; a missing cell's reason
    to_csv(grid)         # bytes: the grid, then its sources
    to_xlsx(grid)        # bytes: a workbook with a "Peer grid" and a "Sources" sheet

Values stay numbers (sortable, summable in a spreadsheet) in the unit the column names;
a missing figure is an empty cell, its reason on the sources.
"""

from __future__ import annotations

import csv
import io

from core.app.peer_grid import PeerGrid

UNIT_WORDS = {"percent": "%", "USD millions": "USD millions", "per share": "USD per share",
              "ratio": "ratio", "times": "times", "days": "days", "shares": "shares"}
SOURCE_COLUMNS = ["company", "fiscal year", "metric", "figure", "input", "input value",
                  "filing", "page", "found as", "printed row", "chunk", "missing because"]


def column_name(grid: PeerGrid, metric: str) -> str:
    """'Revenue (USD millions)', 'Net margin (%)'."""
    unit = grid.units.get(metric, "")
    words = UNIT_WORDS.get(unit, unit)
    return f"{grid.metrics[metric]} ({words})" if words else grid.metrics[metric]


def empty_rows(grid: PeerGrid) -> list[tuple[str, str]]:
    """(company key, fiscal year) with no figure at all: no filing loaded covers the year."""
    return [(key, period) for key in grid.companies for period in grid.periods
            if all((c := grid.cell(key, m, period)) is None or c.value is None
                   for m in grid.metrics)]


def grid_rows(grid: PeerGrid) -> list[dict[str, object]]:
    """Company x fiscal year rows; each metric's value as a number, None when missing. A
    company's year with no figure at all is left out (``empty_rows`` names them; the
    sources keep each cell's reason)."""
    rows = []
    skipped = set(empty_rows(grid))
    for key, name in grid.companies.items():
        for period in grid.periods:
            if (key, period) in skipped:
                continue
            row: dict[str, object] = {"company": name, "fiscal year": period}
            for metric in grid.metrics:
                cell = grid.cell(key, metric, period)
                row[column_name(grid, metric)] = cell.value if cell is not None else None
            rows.append(row)
    return rows


def source_rows(grid: PeerGrid) -> list[dict[str, object]]:
    """Each cell's citation: one row per fact it was read or computed from; a missing
    cell's one row says why it is empty."""
    rows = []
    for (key, metric, period), cell in grid.cells.items():
        base = {"company": grid.companies[key], "fiscal year": period,
                "metric": grid.metrics[metric], "figure": cell.display}
        if cell.value is None:
            rows.append({**base, "missing because": cell.reason})
            continue
        if not cell.sources:
            rows.append({**base, "found as": "no printed source"})
        for s in cell.sources:
            rows.append({**base, "input": s.input, "input value": s.value,
                         "filing": s.file_name, "page": s.where, "found as": s.found_as,
                         "printed row": s.row, "chunk": s.chunk_id})
    return [{c: row.get(c) for c in SOURCE_COLUMNS} for row in rows]


def inert(value: object) -> object:
    """A text cell a spreadsheet will not read as a formula ('=HYPERLINK(...)' in a filing's
    row or name gets a leading apostrophe); numbers and other text unchanged."""
    if isinstance(value, str) and value[:1] in ("=", "+", "@", "\t", "\r") or (
            isinstance(value, str) and value[:1] == "-" and not value[1:2].isdigit()):
        return "'" + value
    return value


def _csv_block(writer, rows: list[dict[str, object]], columns: list[str]) -> None:
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row.get(c) is None else inert(row.get(c)) for c in columns])


def to_csv(grid: PeerGrid) -> bytes:
    """The grid, a blank line, then its sources: one file a spreadsheet opens."""
    out = io.StringIO()
    writer = csv.writer(out)
    rows = grid_rows(grid)
    _csv_block(writer, rows, ["company", "fiscal year",
                              *(column_name(grid, m) for m in grid.metrics)])
    writer.writerow([])
    _csv_block(writer, source_rows(grid), SOURCE_COLUMNS)
    return out.getvalue().encode("utf-8-sig")  # the BOM: Excel reads the file as UTF-8


def to_xlsx(grid: PeerGrid) -> bytes:
    """A workbook: the grid (numbers, blank where missing) and its sources."""
    import xlsxwriter

    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True, "strings_to_formulas": False,
                                        "strings_to_urls": False})
    bold = book.add_format({"bold": True})
    for title, rows, columns in (
            ("Peer grid", grid_rows(grid),
             ["company", "fiscal year", *(column_name(grid, m) for m in grid.metrics)]),
            ("Sources", source_rows(grid), SOURCE_COLUMNS)):
        sheet = book.add_worksheet(title)
        sheet.write_row(0, 0, columns, bold)
        for r, row in enumerate(rows, start=1):
            for c, name in enumerate(columns):
                value = row.get(name)
                if value is None or value == "":
                    continue
                if isinstance(value, int | float):
                    sheet.write_number(r, c, value)
                else:
                    sheet.write_string(r, c, str(value))
        sheet.freeze_panes(1, 2 if title == "Peer grid" else 0)
        sheet.set_column(0, 0, 28)
    book.close()
    return buffer.getvalue()
