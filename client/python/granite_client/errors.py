"""Exceptions raised by granite_client."""


class GraniteError(Exception):
    """Raises when the server answers a query with an exception (Result.exception).

    code is the ClickHouse numeric error code (62 = SYNTAX_ERROR, 60 = UNKNOWN_TABLE, ...), name its
    symbolic name and message the server's display_text.
    """

    def __init__(self, code, name, message):
        super().__init__(code, name, message)
        self.code = code
        self.name = name
        self.message = message

    def __str__(self):
        if self.message.startswith("Code: "):  # already ClickHouse's display_text form
            return self.message
        return "Code: %d (%s): %s" % (self.code, self.name, self.message)


class TransportError(GraniteError):
    """Raises when the gRPC call itself fails (server unreachable, deadline exceeded, ...).

    code is 0, name the gRPC status code name (e.g. "UNAVAILABLE") and message its details.
    """

    def __init__(self, status_name, message):
        super().__init__(0, status_name, message)

    def __str__(self):
        return "gRPC %s: %s" % (self.name, self.message)
