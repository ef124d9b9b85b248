"""A small exception family whose messages are shown to the user as they are."""


class AppError(Exception):
    """Base class: the message says what went wrong and what to do about it."""


def require_question(question: str | None, *, offline: bool = False) -> str:
    """``question`` stripped; AppError when nothing is asked (checked before any work), or,
    ``offline`` (no LLM: the offline engine's English rules answer), when it is not
    written in a Latin script (``latin_share``)."""
    if not question or not question.strip():
        raise AppError("The question is empty: type what you want to find out.")
    if offline and latin_share(question) < 0.5:
        raise AppError("The offline engine reads questions written in English (its rules "
                       "match English words): ask in English, or configure an LLM "
                       "(DTR_LLM_BASE_URL, DTR_LLM_MODEL) to ask in other languages.")
    return question.strip()


def latin_share(text: str) -> float:
    """Of the letters in ``text``, the share in the Latin script (1.0 when it has none:
    "2023?" is not a question in another language)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 1.0
    return sum(1 for c in letters if ord(c) < 0x250) / len(letters)


class IngestError(AppError):
    """A file or URL could not be ingested; the corpus is unchanged."""


class FetchError(IngestError):
    """A URL could not be downloaded."""


class StoreError(AppError):
    """The corpus store could not complete an operation."""


class RetrievalError(AppError):
    """A search could not run (bad strategy, filter, k...)."""


class LLMOutputError(AppError):
    """An LLM reply stayed unusable after retries and repair."""


class PlanValidationError(AppError):
    """An edited plan is invalid; ``problems`` lists each fault."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))
