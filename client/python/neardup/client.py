"""neardupd's typed clients: :class:`Client` (blocking) and
:class:`AsyncClient` (asyncio).

Every unary RPC is a method taking the request's fields as keyword
arguments and returning the response as a dataclass of
:mod:`neardup.messages` (``.to_proto()`` gives the raw message; the raw
stub is ``client.stub``). Streams: :meth:`Client.upsert_many`,
:meth:`Client.query_many` (results in input order, with gRPC's flow control
as backpressure) and :meth:`Client.export`. Idempotent calls are retried
with exponential backoff while the server answers UNAVAILABLE; errors are
the typed exceptions of :mod:`neardup.errors`.

Connection settings are the CLI's: ``server`` (default ``$NEARDUP_SERVER``
or 127.0.0.1:50051), ``token`` (``$NEARDUP_TOKEN``; sent as a bearer token,
and without TLS only to a loopback server unless
``allow_plaintext_token``), ``tls_ca`` (``$NEARDUP_TLS_CA``; a PEM file,
turns TLS on; ``tls=True`` uses the system's roots), ``tls_cert`` and
``tls_key`` (mTLS), ``tls_server_name``.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import time
from typing import (Any, AsyncIterable, AsyncIterator, Callable, Iterable,
                    Iterator, List, Mapping, Optional, Tuple, Type, TypeVar,
                    Union)

import grpc
import grpc.aio

from neardup import errors
from neardup._convert import as_bytes
from neardup._methods import _AsyncMethods, _SyncMethods
from neardup.messages import (BulkUpsertRequest, BulkUpsertResult, Document,
                              ExportRequest, QueryRequest, QueryResponse,
                              UpsertRequest)
from neardup.v1 import neardup_pb2_grpc

DEFAULT_SERVER = "127.0.0.1:50051"
_T = TypeVar("_T")
_HEALTH = "/grpc.health.v1.Health/Check"
_SYSTEM_ROOTS = "/etc/ssl/certs/ca-certificates.crt"  # Debian's ca-certificates
_HEALTH_STATUS = {0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING",
                  3: "SERVICE_UNKNOWN"}

UpsertItem = Union[UpsertRequest, Mapping[str, Any]]
QueryItem = Union[QueryRequest, Mapping[str, Any], str, bytes]


class _Settings:
    """What both clients connect with (see the module's docstring)."""

    def __init__(self, server: Optional[str], token: Optional[str],
                 tls: bool, tls_ca: Optional[str], tls_cert: Optional[str],
                 tls_key: Optional[str], tls_server_name: Optional[str],
                 allow_plaintext_token: bool, timeout: float,
                 max_attempts: int, initial_backoff: float,
                 max_backoff: float) -> None:
        self.server = server or os.environ.get("NEARDUP_SERVER") or \
            DEFAULT_SERVER
        self.token = token if token is not None else \
            os.environ.get("NEARDUP_TOKEN") or None
        tls_ca = tls_ca or os.environ.get("NEARDUP_TLS_CA") or None
        self.tls = tls or tls_ca is not None or tls_cert is not None
        if (tls_cert is None) != (tls_key is None):
            raise ValueError("tls_cert and tls_key go together")
        # tls=True alone: the system's CA bundle (grpcio would otherwise use
        # the roots it ships with).
        if self.tls and tls_ca is None and os.path.exists(_SYSTEM_ROOTS):
            tls_ca = _SYSTEM_ROOTS
        self.root = _read(tls_ca)
        self.cert = _read(tls_cert)
        self.key = _read(tls_key)
        self.server_name = tls_server_name
        if self.token and not self.tls and not allow_plaintext_token and \
                not _is_loopback(self.server):
            raise ValueError(
                f"a token would travel in clear text to {self.server}: use "
                "TLS (tls_ca or tls=True), or allow_plaintext_token=True "
                "behind a trusted TLS-terminating proxy")
        if timeout <= 0 or max_attempts < 1:
            raise ValueError("timeout must be > 0 and max_attempts >= 1")
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff

    def options(self) -> List[Tuple[str, Any]]:
        options: List[Tuple[str, Any]] = [
            ("grpc.max_receive_message_length", 64 << 20),
            ("grpc.max_send_message_length", 64 << 20)]
        if self.server_name:
            options.append(("grpc.ssl_target_name_override",
                            self.server_name))
        return options

    def credentials(self) -> Any:
        return grpc.ssl_channel_credentials(
            root_certificates=self.root, private_key=self.key,
            certificate_chain=self.cert)

    def metadata(self) -> Optional[List[Tuple[str, str]]]:
        return [("authorization", f"Bearer {self.token}")] \
            if self.token else None

    def backoffs(self) -> Iterator[float]:
        """Seconds to wait before each retry."""
        backoff = self.initial_backoff
        for _ in range(self.max_attempts - 1):
            yield backoff
            backoff = min(backoff * 2, self.max_backoff)


def _read(path: Optional[str]) -> Optional[bytes]:
    if path is None:
        return None
    with open(path, "rb") as f:
        return f.read()


def _is_loopback(server: str) -> bool:
    """Whether a gRPC target stays on this machine (as the C++ client's
    IsLoopbackTarget): unix sockets, localhost, loopback addresses."""
    if server.startswith(("unix:", "unix-abstract:")):
        return True
    for scheme in ("dns:///", "ipv4:", "ipv6:"):
        if server.startswith(scheme):
            server = server[len(scheme):]
    if server.startswith("["):  # [::1]:port
        host = server[1:server.find("]")] if "]" in server else server
    elif server.count(":") == 1:
        host = server.split(":")[0]
    else:
        host = server  # a bare IPv6 address, or a name without a port
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _upsert_request(collection: str, item: UpsertItem) -> Any:
    request = item if isinstance(item, UpsertRequest) else \
        UpsertRequest(**dict(item))
    proto = request.to_proto()
    if not proto.collection:
        proto.collection = collection
    return proto


def _query_request(collection: str, item: QueryItem) -> Any:
    if isinstance(item, (str, bytes)):
        request = QueryRequest(text=as_bytes(item))
    elif isinstance(item, QueryRequest):
        request = item
    else:
        request = QueryRequest(**dict(item))
    proto = request.to_proto()
    if not proto.collection:
        proto.collection = collection
    return proto


def _batches(collection: str, items: Iterable[UpsertItem],
             batch_size: int) -> Iterator[Any]:
    batch = BulkUpsertRequest().to_proto()
    for item in items:
        batch.items.append(_upsert_request(collection, item))
        if len(batch.items) >= batch_size:
            yield batch
            batch = BulkUpsertRequest().to_proto()
    if batch.items:
        yield batch


class _Feed:
    """A stream's requests, made from the caller's items (on gRPC's thread,
    for the blocking client). The first exception making one (a bad item,
    the caller's own generator failing) ends the requests there, as if the
    items had ended: the server answers what it was sent, and then the
    caller gets that exception, not gRPC's."""

    def __init__(self, requests: Iterator[Any]) -> None:
        self._requests = requests
        self.error: Optional[BaseException] = None

    def __iter__(self) -> "_Feed":
        return self

    def __next__(self) -> Any:
        try:
            return next(self._requests)
        except StopIteration:
            raise
        except Exception as error:
            self.error = error
            raise StopIteration from None


def _responses(call: Any, feed: Optional[_Feed],
               convert: Callable[[Any], Iterable[_T]]) -> Iterator[_T]:
    """A blocking stream's answers; stopping early cancels the call."""
    try:
        for response in call:
            yield from convert(response)
    except grpc.RpcError as error:
        if feed is not None and feed.error is not None:
            raise feed.error
        raise errors.from_rpc_error(error) from None
    finally:
        call.cancel()  # the caller stopped early, or a no-op
    if feed is not None and feed.error is not None:
        raise feed.error


def _health_status(data: bytes) -> str:
    # HealthCheckResponse is one varint field (1: status); 0 is absent.
    status = 0
    if len(data) >= 2 and data[0] == 0x08:
        status = data[1]
    return _HEALTH_STATUS.get(status, str(status))


class _Connection:
    """What Client and AsyncClient share: the connection's settings (the
    CLI's, see the module's docstring), the channel made from them (by
    ``_grpc``, grpc or grpc.aio), the raw stub and the health call."""

    _grpc: Any

    def __init__(self, server: Optional[str] = None, *,
                 token: Optional[str] = None, tls: bool = False,
                 tls_ca: Optional[str] = None,
                 tls_cert: Optional[str] = None,
                 tls_key: Optional[str] = None,
                 tls_server_name: Optional[str] = None,
                 allow_plaintext_token: bool = False,
                 timeout: float = 30.0, max_attempts: int = 5,
                 initial_backoff: float = 0.1,
                 max_backoff: float = 2.0) -> None:
        self._settings = _Settings(
            server, token, tls, tls_ca, tls_cert, tls_key, tls_server_name,
            allow_plaintext_token, timeout, max_attempts, initial_backoff,
            max_backoff)
        s = self._settings
        self._channel = self._grpc.secure_channel(
            s.server, s.credentials(), s.options()) if s.tls else \
            self._grpc.insecure_channel(s.server, s.options())
        self.stub = neardup_pb2_grpc.NearDupStub(  # type: ignore[no-untyped-call]
            self._channel)
        self._health = self._channel.unary_unary(
            _HEALTH, request_serializer=lambda _: b"",
            response_deserializer=_health_status)

    @property
    def server(self) -> str:
        return self._settings.server


class Client(_Connection, _SyncMethods):
    """A blocking client of neardupd (see the module's docstring)."""

    _grpc = grpc

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _call(self, call: Callable[..., Any], request: Any, retry: bool,
              timeout: Optional[float]) -> Any:
        backoffs = iter(self._settings.backoffs() if retry else ())
        while True:
            try:
                return call(request,
                            timeout=timeout or self._settings.timeout,
                            metadata=self._settings.metadata())
            except grpc.RpcError as error:
                wait = next(backoffs, None) \
                    if error.code() == grpc.StatusCode.UNAVAILABLE else None
                if wait is None:
                    raise errors.from_rpc_error(error) from None
                time.sleep(wait)

    def _unary(self, rpc: str, request: Any, response: Type[_T],
               retry: bool, timeout: Optional[float]) -> _T:
        reply = self._call(getattr(self.stub, rpc), request.to_proto(), retry,
                           timeout)
        return response.from_proto(reply)  # type: ignore[attr-defined,no-any-return]

    def health(self, *, timeout: Optional[float] = None) -> str:
        """The server's health: "SERVING", "NOT_SERVING", ... (retried)."""
        return str(self._call(self._health, None, True, timeout))

    def upsert_many(self, collection: str, items: Iterable[UpsertItem], *,
                    batch_size: int = 256,
                    timeout: Optional[float] = None
                    ) -> Iterator[BulkUpsertResult]:
        """Streams items (UpsertRequest or dicts of its fields; collection
        filled in) in messages of ``batch_size``; yields one result per
        item, in input order. An item the server refuses fails alone (its
        result's code and message); an item that cannot be sent at all (a
        wrong field) ends the stream there and raises, after the results
        of the messages sent before it (the items sharing its message are
        not sent). Keep repeats of
        an id within one batch: across messages either may win.
        ``timeout`` bounds the whole stream (None: no bound). Not retried.
        Stopping early (``break``, ``close()``) cancels the stream."""
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        feed = _Feed(_batches(collection, items, batch_size))
        call = self.stub.BulkUpsert(
            feed, timeout=timeout, metadata=self._settings.metadata())
        return _responses(call, feed, lambda response: (
            BulkUpsertResult.from_proto(r) for r in response.results))

    def query_many(self, collection: str, items: Iterable[QueryItem], *,
                   timeout: Optional[float] = None
                   ) -> Iterator[QueryResponse]:
        """Streams queries (texts, QueryRequests or dicts of its fields);
        yields one QueryResponse per item, in input order. Not retried;
        stopping early cancels the stream."""
        feed = _Feed(_query_request(collection, item) for item in items)
        call = self.stub.BatchQuery(
            feed, timeout=timeout, metadata=self._settings.metadata())
        return _responses(call, feed, lambda response: (
            QueryResponse.from_proto(response),))

    def export(self, collection: str, *, with_signatures: bool = False,
               replica_only: bool = False,
               left_out: Optional[List[str]] = None,
               timeout: Optional[float] = None) -> Iterator[Document]:
        """Every document of a collection, from one snapshot, as it comes.
        ``left_out``, when given, receives the ids whose shingle sets the
        export left out (ExportResponse.shingle_set_left_out)."""
        request = ExportRequest(collection=collection,
                                with_signatures=with_signatures,
                                replica_only=replica_only).to_proto()
        call = self.stub.Export(request, timeout=timeout,
                                metadata=self._settings.metadata())

        def documents(response: Any) -> Iterator[Document]:
            if left_out is not None:
                left_out.extend(response.shingle_set_left_out)
            return (Document.from_proto(d) for d in response.documents)
        return _responses(call, None, documents)


class AsyncClient(_Connection, _AsyncMethods):
    """The asyncio client: Client's methods as coroutines, its streams as
    async iterators (``upsert_many`` and ``query_many`` also take async
    iterables)."""

    _grpc = grpc.aio

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def _call(self, call: Callable[..., Any], request: Any,
                    retry: bool, timeout: Optional[float]) -> Any:
        backoffs = iter(self._settings.backoffs() if retry else ())
        while True:
            try:
                return await call(request,
                                  timeout=timeout or self._settings.timeout,
                                  metadata=self._settings.metadata())
            except grpc.RpcError as error:
                wait = next(backoffs, None) \
                    if error.code() == grpc.StatusCode.UNAVAILABLE else None
                if wait is None:
                    raise errors.from_rpc_error(error) from None
                await asyncio.sleep(wait)

    async def _unary(self, rpc: str, request: Any, response: Type[_T],
                     retry: bool, timeout: Optional[float]) -> _T:
        reply = await self._call(getattr(self.stub, rpc), request.to_proto(),
                                 retry, timeout)
        return response.from_proto(reply)  # type: ignore[attr-defined,no-any-return]

    async def health(self, *, timeout: Optional[float] = None) -> str:
        """The server's health: "SERVING", "NOT_SERVING", ... (retried)."""
        return str(await self._call(self._health, None, True, timeout))

    def upsert_many(
            self, collection: str,
            items: Union[Iterable[UpsertItem], AsyncIterable[UpsertItem]], *,
            batch_size: int = 256, timeout: Optional[float] = None
    ) -> AsyncIterator[BulkUpsertResult]:
        """Client.upsert_many, as an async iterator. Leaving it early
        cancels the stream once the iterator is closed (``aclose()``, or
        ``contextlib.aclosing``; else when it is collected)."""
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        feed = _AsyncFeed()

        async def batches() -> AsyncIterator[Any]:
            batch = BulkUpsertRequest().to_proto()
            async for item in _aiter(items):
                batch.items.append(_upsert_request(collection, item))
                if len(batch.items) >= batch_size:
                    yield batch
                    batch = BulkUpsertRequest().to_proto()
            if batch.items:
                yield batch

        feed.call = self.stub.BulkUpsert(
            feed.guard(batches()), timeout=timeout,
            metadata=self._settings.metadata())
        return _async_responses(feed, lambda response: (
            BulkUpsertResult.from_proto(r) for r in response.results))

    def query_many(
            self, collection: str,
            items: Union[Iterable[QueryItem], AsyncIterable[QueryItem]], *,
            timeout: Optional[float] = None) -> AsyncIterator[QueryResponse]:
        """Client.query_many, as an async iterator (see upsert_many)."""
        feed = _AsyncFeed()

        async def requests() -> AsyncIterator[Any]:
            async for item in _aiter(items):
                yield _query_request(collection, item)

        feed.call = self.stub.BatchQuery(
            feed.guard(requests()), timeout=timeout,
            metadata=self._settings.metadata())
        return _async_responses(feed, lambda response: (
            QueryResponse.from_proto(response),))

    def export(self, collection: str, *, with_signatures: bool = False,
               replica_only: bool = False,
               left_out: Optional[List[str]] = None,
               timeout: Optional[float] = None) -> AsyncIterator[Document]:
        """Client.export, as an async iterator."""
        request = ExportRequest(collection=collection,
                                with_signatures=with_signatures,
                                replica_only=replica_only).to_proto()
        feed = _AsyncFeed()
        feed.call = self.stub.Export(request, timeout=timeout,
                                     metadata=self._settings.metadata())

        def documents(response: Any) -> Iterator[Document]:
            if left_out is not None:
                left_out.extend(response.shingle_set_left_out)
            return (Document.from_proto(d) for d in response.documents)
        return _async_responses(feed, documents)


class _AsyncFeed:
    """_Feed for the asyncio client: guard() wraps the requests."""

    def __init__(self) -> None:
        self.error: Optional[BaseException] = None
        self.call: Any = None

    async def guard(self, items: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """The requests, ending at the first exception (kept for the
        caller), so that the server answers what it was sent."""
        try:
            async for item in items:
                yield item
        except Exception as error:
            self.error = error


async def _async_responses(feed: _AsyncFeed,
                           convert: Callable[[Any], Iterable[_T]]
                           ) -> AsyncIterator[_T]:
    try:
        async for response in feed.call:
            for value in convert(response):
                yield value
    except grpc.RpcError as error:
        if feed.error is not None:
            raise feed.error
        raise errors.from_rpc_error(error) from None
    except asyncio.CancelledError:
        if feed.error is not None:
            raise feed.error
        raise
    finally:
        feed.call.cancel()  # left early, or a no-op
    if feed.error is not None:
        raise feed.error


async def _aiter(items: Union[Iterable[Any], AsyncIterable[Any]]
                 ) -> AsyncIterator[Any]:
    if isinstance(items, AsyncIterable):
        async for item in items:
            yield item
    else:
        for item in items:
            yield item


__all__ = ["AsyncClient", "Client", "DEFAULT_SERVER"]
