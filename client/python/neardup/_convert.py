"""Dataclass <-> protobuf message, for every message of neardup.messages.

Field by field by name, from the message's descriptor: scalars as they
are, enums as IntEnum members, messages as dataclasses (None when unset),
repeated fields as lists, maps as dicts, proto3 optional and oneof members
as None when unset. Deprecated fields stay on the raw message only.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, ClassVar, Dict, Optional, Type, TypeVar, Union, overload

from google.protobuf.descriptor import FieldDescriptor

T = TypeVar("T", bound="Message")

# Proto full name -> dataclass or IntEnum, filled by register().
_CLASSES: Dict[str, Any] = {}


class Message:
    """Base of the generated dataclasses."""

    _descriptor: ClassVar[Any]
    _proto: ClassVar[Any]

    def to_proto(self) -> Any:
        """The neardup.v1 protobuf message of this value."""
        message = self._proto()
        for oneof in self._descriptor.oneofs:
            members = [f.name for f in oneof.fields
                       if getattr(self, f.name, None) is not None]
            synthetic = (len(oneof.fields) == 1 and
                         oneof.name == "_" + oneof.fields[0].name)
            if len(members) > 1 and not synthetic:
                raise ValueError(
                    f"{type(self).__name__}: set one of "
                    f"{', '.join(f.name for f in oneof.fields)}, not "
                    f"{' and '.join(members)}")
        for field in self._descriptor.fields:
            if not hasattr(self, field.name):  # deprecated: not here
                continue
            value = getattr(self, field.name)
            if value is None:
                continue
            target = getattr(message, field.name)
            if _is_map(field):
                value_field = field.message_type.fields_by_name["value"]
                for k, v in value.items():
                    if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                        target[k].CopyFrom(v.to_proto())
                    else:
                        target[k] = v
            elif field.label == FieldDescriptor.LABEL_REPEATED:
                if field.type == FieldDescriptor.TYPE_MESSAGE:
                    for item in value:
                        target.add().CopyFrom(item.to_proto())
                else:
                    target.extend(int(v) if field.type ==
                                  FieldDescriptor.TYPE_ENUM else v
                                  for v in value)
            elif field.type == FieldDescriptor.TYPE_MESSAGE:
                target.CopyFrom(value.to_proto())
            elif field.type == FieldDescriptor.TYPE_ENUM:
                setattr(message, field.name, int(value))
            elif (field.type == FieldDescriptor.TYPE_BYTES and
                  isinstance(value, str)):
                setattr(message, field.name, value.encode("utf-8"))
            else:
                setattr(message, field.name, value)
        return message

    @classmethod
    def from_proto(cls: Type[T], message: Any) -> T:
        """The dataclass of a neardup.v1 protobuf message."""
        values: Dict[str, Any] = {}
        names = {f.name for f in dataclasses.fields(cls)}
        for field in message.DESCRIPTOR.fields:
            if field.name not in names:
                continue
            value = getattr(message, field.name)
            if _is_map(field):
                value_field = field.message_type.fields_by_name["value"]
                values[field.name] = {
                    k: _from(value_field, v) for k, v in value.items()}
            elif field.label == FieldDescriptor.LABEL_REPEATED:
                values[field.name] = [_from(field, v) for v in value]
            elif ((field.type == FieldDescriptor.TYPE_MESSAGE or
                   field.containing_oneof is not None) and
                  not message.HasField(field.name)):
                values[field.name] = None
            else:
                values[field.name] = _from(field, value)
        return cls(**values)


def _is_map(field: Any) -> bool:
    return bool(field.type == FieldDescriptor.TYPE_MESSAGE and
                field.message_type.GetOptions().map_entry)


def _from(field: Any, value: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return _CLASSES[field.message_type.full_name].from_proto(value)
    if field.type == FieldDescriptor.TYPE_ENUM:
        cls = _CLASSES[field.enum_type.full_name]
        try:
            return cls(value)
        except ValueError:  # a newer server's value: the number as it is
            return value
    return value


@overload
def as_bytes(value: None) -> None: ...


@overload
def as_bytes(value: Union[bytes, str]) -> bytes: ...


def as_bytes(value: Optional[Union[bytes, str]]) -> Optional[bytes]:
    """A bytes field's value: str as UTF-8 (texts are sent as bytes)."""
    return value.encode("utf-8") if isinstance(value, str) else value


def register(namespace: Dict[str, Any], module: Any) -> None:
    """Ties each generated class to its descriptor and protobuf class."""
    def visit(cls: Any, descriptor: Any, proto: Any) -> None:
        cls._descriptor = descriptor
        cls._proto = proto
        _CLASSES[descriptor.full_name] = cls
        for enum_descriptor in descriptor.enum_types:
            _CLASSES[enum_descriptor.full_name] = getattr(
                cls, enum_descriptor.name)
        for nested in descriptor.nested_types:
            if not nested.GetOptions().map_entry:
                visit(getattr(cls, nested.name), nested,
                      getattr(proto, nested.name))

    file = module.DESCRIPTOR
    for name, enum_descriptor in file.enum_types_by_name.items():
        _CLASSES[enum_descriptor.full_name] = namespace[name]
    for name, descriptor in file.message_types_by_name.items():
        visit(namespace[name], descriptor, getattr(module, name))


__all__ = ["Message", "as_bytes", "register", "enum"]
