"""Dataclass <-> protobuf message, for every message of neardup.messages.

Field by field by name, from the message's descriptor: scalars as they
are, enums as IntEnum members, messages as dataclasses (None when unset),
repeated fields as lists, maps as dicts, proto3 optional and oneof members
as None when unset. Deprecated fields stay on the raw message only.
"""

from __future__ import annotations

import dataclasses
import enum
import keyword
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
        convert = type(self).__dict__.get("_to_proto_compiled")
        if convert is None:
            convert = _compile_to_proto(type(self))
            setattr(type(self), "_to_proto_compiled", staticmethod(convert))
        return convert(self)

    def to_proto_by_descriptor(self) -> Any:
        """to_proto, written field by field from the descriptor (the
        reference the compiled converters are tested against)."""
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
        # A converter made for this class from its descriptor at first use
        # (one expression per field), six times faster than the loop of
        # from_proto_by_descriptor it equals.
        convert = cls.__dict__.get("_from_proto_compiled")
        if convert is None:
            convert = _compile_from_proto(cls)
            setattr(cls, "_from_proto_compiled", staticmethod(convert))
        result: T = convert(message)
        return result

    @classmethod
    def from_proto_by_descriptor(cls: Type[T], message: Any) -> T:
        """from_proto, read field by field from the descriptor (the
        reference the compiled converters are tested against)."""
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


def _compile_to_proto(cls: Any) -> Any:
    """Python source for cls's to_proto, from the same rules as
    to_proto_by_descriptor, compiled."""
    names = {f.name for f in dataclasses.fields(cls)}
    scope: Dict[str, Any] = {"proto": cls._proto, "cls": cls}
    lines = ["def to_proto(self):"]
    for oneof in cls._descriptor.oneofs:
        synthetic = (len(oneof.fields) == 1 and
                     oneof.name == "_" + oneof.fields[0].name)
        members = [f.name for f in oneof.fields if f.name in names]
        if synthetic or len(members) < 2:
            continue
        # Two members set: the reference raises, naming them.
        count = " + ".join(f"(self.{n} is not None)" for n in members)
        lines.append(f"    if {count} > 1:")
        lines.append("        return cls.to_proto_by_descriptor(self)")
    lines.append("    m = proto()")
    for field in cls._descriptor.fields:
        if field.name not in names:  # deprecated: on the raw message only
            continue
        if keyword.iskeyword(field.name) or not field.name.isidentifier():
            return lambda value: cls.to_proto_by_descriptor(value)
        name = field.name
        lines.append(f"    v = self.{name}")
        lines.append("    if v is not None:")
        if _is_map(field):
            value_field = field.message_type.fields_by_name["value"]
            if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                lines.append(f"        for k, x in v.items(): "
                             f"m.{name}[k].CopyFrom(x.to_proto())")
            elif value_field.type == FieldDescriptor.TYPE_ENUM:
                lines.append(f"        for k, x in v.items(): "
                             f"m.{name}[k] = int(x)")
            else:
                lines.append(f"        m.{name}.update(v)")
        elif field.label == FieldDescriptor.LABEL_REPEATED:
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                lines.append(f"        for x in v: "
                             f"m.{name}.add().CopyFrom(x.to_proto())")
            elif field.type == FieldDescriptor.TYPE_ENUM:
                lines.append(f"        m.{name}.extend(int(x) for x in v)")
            else:
                lines.append(f"        m.{name}.extend(v)")
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            lines.append(f"        m.{name}.CopyFrom(v.to_proto())")
        elif field.type == FieldDescriptor.TYPE_ENUM:
            lines.append(f"        m.{name} = int(v)")
        elif field.type == FieldDescriptor.TYPE_BYTES:
            lines.append(f"        m.{name} = (v.encode('utf-8') if "
                         f"isinstance(v, str) else v)")
        else:
            lines.append(f"        m.{name} = v")
    lines.append("    return m")
    exec(compile("\n".join(lines) + "\n", f"<to_proto of {cls.__name__}>",
                 "exec"), scope)
    return scope["to_proto"]


def _compile_from_proto(cls: Any) -> Any:
    """Python source for cls's from_proto, one expression per field, made
    from the same rules as from_proto_by_descriptor and compiled."""
    names = {f.name for f in dataclasses.fields(cls)}
    scope: Dict[str, Any] = {"cls": cls}
    arguments = []

    def converter(field: Any, value: str) -> str:
        """The expression converting `value`, an element of `field`."""
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            name = f"c{len(scope)}"
            scope[name] = _CLASSES[field.message_type.full_name]
            return f"{name}.from_proto({value})"
        if field.type == FieldDescriptor.TYPE_ENUM:
            # Known numbers to members; a newer server's number as it is.
            name = f"e{len(scope)}"
            scope[name] = {int(m): m for m in
                           _CLASSES[field.enum_type.full_name]}
            return f"{name}.get({value}, {value})"
        return value

    for field in cls._descriptor.fields:
        if field.name not in names:
            continue
        if keyword.iskeyword(field.name) or not field.name.isidentifier():
            return lambda message: cls.from_proto_by_descriptor(message)
        read = f"m.{field.name}"
        if _is_map(field):
            value_field = field.message_type.fields_by_name["value"]
            element = converter(value_field, "v")
            expression = (f"dict({read})" if element == "v" else
                          f"{{k: {element} for k, v in {read}.items()}}")
        elif field.label == FieldDescriptor.LABEL_REPEATED:
            element = converter(field, "v")
            expression = (f"list({read})" if element == "v" else
                          f"[{element} for v in {read}]")
        elif (field.type == FieldDescriptor.TYPE_MESSAGE or
              field.containing_oneof is not None):
            expression = (f"({converter(field, read)} if "
                          f"m.HasField({field.name!r}) else None)")
        else:
            expression = converter(field, read)
        arguments.append(f"{field.name}={expression}")
    source = (f"def from_proto(m):\n"
              f"    return cls({', '.join(arguments)})\n")
    exec(compile(source, f"<from_proto of {cls.__name__}>", "exec"), scope)
    return scope["from_proto"]


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
