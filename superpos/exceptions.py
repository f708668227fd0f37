"""The one exception type for errors a user can cause."""


class SuperposError(ValueError):
    """A user-facing error; its message says what to do. The CLI prints it in one line."""


class NotRepresentable(SuperposError):
    """An expression cannot be written as a tree over the given basis."""
