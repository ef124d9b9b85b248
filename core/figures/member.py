"""A member of a filing's facts: a segment, product line or region, with its names.

Its own module so that ``core.figures.segments`` (which reads members from facts) and
``core.figures.member_merge`` (which merges one member printed under two names) both name
it without importing each other.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from core.ingest.facts.members import member_words

Kind = Literal["segment", "product", "geography", "other"]


class Member(BaseModel):
    """A segment, product line, region (or another member) of a filing's facts."""

    axis: str = Field(description="As recorded: 'us-gaap:StatementBusinessSegmentsAxis', "
                      "or a table's 'column'.")
    kind: Kind
    member: str = Field(description="As recorded: 'adbe:DigitalMediaMember' or a table "
                        "heading.")
    name: str = Field(description="As the filing prints it: 'Digital Media'.")
    aliases: list[str] = Field(default_factory=list, description="Its other names: its "
                               "QName's words ('Asia Pacific' for 'APAC'), the names of "
                               "the members merged into it.")

    def names(self) -> list[str]:
        """Every name it is known by, the printed one first."""
        return list(dict.fromkeys([self.name, *self.aliases, member_words(self.member)]))
