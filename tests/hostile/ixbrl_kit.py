"""Small inline-XBRL documents for the hostile suite: contexts and units declared in an
``ix:header``, ``ix:nonFraction`` elements built with the attributes filers use, and a
one-table 10-K whose statement cells are tagged."""

from __future__ import annotations

import re

_PERIOD = {"c-fy24": "<xbrli:startDate>2024-01-01</xbrli:startDate>"
                     "<xbrli:endDate>2024-12-31</xbrli:endDate>",
           "c-fy23": "<xbrli:startDate>2023-01-01</xbrli:startDate>"
                     "<xbrli:endDate>2023-12-31</xbrli:endDate>",
           "c-i24": "<xbrli:instant>2024-12-31</xbrli:instant>"}
_ENTITY = ('<xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0009999998'
           '</xbrli:identifier>{segment}</xbrli:entity>')
_SEGMENT = ('<xbrli:segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegments'
            'Axis">acme:DataCenterMember</xbrldi:explicitMember></xbrli:segment>')
CONTEXTS = {cid: f'<xbrli:context id="{cid}">{_ENTITY.format(segment="")}<xbrli:period>'
                 f'{period}</xbrli:period></xbrli:context>' for cid, period in _PERIOD.items()}
CONTEXTS["c-fy24-dc"] = (f'<xbrli:context id="c-fy24-dc">{_ENTITY.format(segment=_SEGMENT)}'
                         f'<xbrli:period>{_PERIOD["c-fy24"]}</xbrli:period></xbrli:context>')
UNITS = ('<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>'
         '<xbrli:unit id="pure"><xbrli:measure>xbrli:pure</xbrli:measure></xbrli:unit>')
HEAD = ('<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/'
        'inlineXBRL" xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:xbrldi="http://'
        'xbrl.org/2006/xbrldi" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xmlns:us-gaap="http://fasb.org/us-gaap/2024" xmlns:dei="http://xbrl.sec.gov/dei/'
        '2024"><body>')


def header(hidden: str = "") -> str:
    return (f'<div style="display:none"><ix:header><ix:hidden>{hidden}</ix:hidden>'
            f'<ix:resources>{"".join(CONTEXTS.values())}{UNITS}</ix:resources></ix:header>'
            '</div>')


def nonfraction(concept: str, text: str, *, ctx: str = "c-fy24", unit: str = "usd",
                scale: int | None = None, sign: str | None = None, decimals: str = "-6",
                fmt: str | None = None, nil: bool = False, self_closing: bool = False) -> str:
    """One ``ix:nonFraction`` element, attributes as a filer writes them."""
    attrs = [f'name="{concept}"', f'contextRef="{ctx}"', f'unitRef="{unit}"']
    if nil:
        attrs.append('xsi:nil="true"')
    else:
        attrs.append(f'decimals="{decimals}"')
    attrs += [f'{k}="{v}"' for k, v in (("scale", scale), ("sign", sign), ("format", fmt))
              if v is not None]
    opening = f"<ix:nonFraction {' '.join(attrs)}"
    return opening + "/>" if self_closing else f"{opening}>{text}</ix:nonFraction>"


def lower_cased(html: str) -> str:
    """``html`` as an HTML serialiser re-saves it: tag and attribute names lower-cased."""
    html = re.sub(r"</?[\w:.-]+", lambda m: m.group(0).lower(), html)
    return re.sub(r'(\s)([\w:.-]+)(=")', lambda m: m.group(1) + m.group(2).lower() + m.group(3),
                  html)


def document(*elements: str, lower: bool = False) -> bytes:
    """A document holding ``elements``, each in a paragraph."""
    html = HEAD + header() + "".join(f"<p>{e}</p>" for e in elements) + "</body></html>"
    return (lower_cased(html) if lower else html).encode()


def grouped(whole: int, thousands: str, fraction: str, point: str) -> str:
    """``whole`` with its thousands grouped by ``thousands``, then ``point`` and
    ``fraction`` when there is one: grouped(1234567, ".", "5", ",") == "1.234.567,5"."""
    body = f"{whole:,}".replace(",", thousands)
    return f"{body}{point}{fraction}" if fraction else body


def tagged_10k(cells: dict[tuple[str, str], str], company: str = "TAGGED WIDGETS INC.") -> str:
    """A one-statement iXBRL 10-K for fiscal 2024 whose income-statement cells are
    ``cells[(line item, "2024" | "2023")]`` (an ``ix:nonFraction`` element, or plain text)."""
    hidden = "".join(
        f'<ix:nonNumeric name="dei:{name}" contextRef="c-fy24">{value}</ix:nonNumeric>'
        for name, value in (("DocumentType", "10-K"), ("DocumentPeriodEndDate", "2024-12-31"),
                            ("DocumentFiscalYearFocus", "2024"),
                            ("DocumentFiscalPeriodFocus", "FY"),
                            ("EntityRegistrantName", company),
                            ("EntityCentralIndexKey", "0009999998")))
    rows = sorted({item for item, _ in cells}, key=[i for i, _ in cells].index)
    table = "".join(f"<tr><td>{item}</td><td>{cells.get((item, '2024'), '')}</td>"
                    f"<td>{cells.get((item, '2023'), '')}</td></tr>" for item in rows)
    return (HEAD + header(hidden) +
            "<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p><p>Washington, D.C. 20549"
            "</p><p>FORM 10-K</p><p>ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE "
            "SECURITIES EXCHANGE ACT OF 1934</p><p>For the fiscal year ended December 31, 2024"
            f"</p><p>{company}</p><p>(Exact name of registrant as specified in its charter)"
            "</p><h2>Item 7. Management's Discussion and Analysis</h2><p>Revenue grew on "
            "demand for widgets across every region we serve, and margins held steady.</p>"
            "<h2>Item 8. Financial Statements and Supplementary Data</h2>"
            "<p>CONSOLIDATED STATEMENTS OF OPERATIONS</p><p>(in millions)</p><table><tr><td>"
            "</td><td>Year Ended December 31, 2024</td><td>Year Ended December 31, 2023</td>"
            f"</tr>{table}</table></body></html>")
