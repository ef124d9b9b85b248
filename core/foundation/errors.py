"""A small exception family whose messages are shown to the user as they are."""


class AppError(Exception):
    """Base class: the message says what went wrong and what to do about it."""


def require_question(question: str | None) -> str:
    """``question`` stripped; AppError when nothing is asked (checked before any work)."""
    if not question or not question.strip():
        raise AppError("The question is empty: type what you want to find out.")
    return question.strip()


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
