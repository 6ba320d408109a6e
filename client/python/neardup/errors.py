"""Typed errors for neardupd's answers: one class per gRPC status code.

Every class derives from :class:`NeardupError` (``code``, ``message`` as the
server wrote it, ``details``: the grpc debug string) and, where one fits, a
builtin: InvalidArgument is a ValueError, NotFound a LookupError,
PermissionDenied and Unauthenticated PermissionErrors, DeadlineExceeded a
TimeoutError.
"""

from __future__ import annotations

from typing import Dict, Optional, Type

import grpc


class NeardupError(Exception):
    """An RPC that neardupd (or the connection) answered with an error."""

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(self, message: str, code: Optional[grpc.StatusCode] = None,
                 details: str = "") -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"


class InvalidArgument(NeardupError, ValueError):
    code = grpc.StatusCode.INVALID_ARGUMENT


class NotFound(NeardupError, LookupError):
    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(NeardupError):
    code = grpc.StatusCode.ALREADY_EXISTS


class ConfigMismatch(NeardupError):
    """FAILED_PRECONDITION: another config hash, a quarantined collection,
    a state that refuses the call."""
    code = grpc.StatusCode.FAILED_PRECONDITION


class ResourceExhausted(NeardupError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class Unavailable(NeardupError):
    code = grpc.StatusCode.UNAVAILABLE


class DeadlineExceeded(NeardupError, TimeoutError):
    code = grpc.StatusCode.DEADLINE_EXCEEDED


class PermissionDenied(NeardupError, PermissionError):
    code = grpc.StatusCode.PERMISSION_DENIED


class Unauthenticated(NeardupError, PermissionError):
    code = grpc.StatusCode.UNAUTHENTICATED


class Cancelled(NeardupError):
    code = grpc.StatusCode.CANCELLED


class Internal(NeardupError):
    code = grpc.StatusCode.INTERNAL


_BY_CODE: Dict[grpc.StatusCode, Type[NeardupError]] = {
    cls.code: cls for cls in (
        InvalidArgument, NotFound, AlreadyExists, ConfigMismatch,
        ResourceExhausted, Unavailable, DeadlineExceeded, PermissionDenied,
        Unauthenticated, Cancelled, Internal)}


def from_rpc_error(error: grpc.RpcError) -> NeardupError:
    """The typed error of a failed call (grpc.RpcError is also a grpc.Call)."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    message = (error.details() if hasattr(error, "details") else None) or ""
    cls = _BY_CODE.get(code, NeardupError)
    return cls(message, code, str(error))
