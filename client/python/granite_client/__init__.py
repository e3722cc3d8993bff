"""granite_client: a small Python client for granite's ClickHouse-compatible gRPC interface.

    import granite_client
    with granite_client.connect("127.0.0.1", 9100) as client:
        print(client.query_text("SELECT 1"))
"""

from .client import Client, QueryResult, QueryStream, connect
from .errors import GraniteError, TransportError

__all__ = ["Client", "QueryResult", "QueryStream", "connect", "GraniteError", "TransportError"]
__version__ = "0.1.0"
